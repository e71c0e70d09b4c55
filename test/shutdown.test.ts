/**
 * Graceful shutdown and supervision with real processes on loopback (docs/operations.md "Running
 * in production"): a stop lets in-flight requests finish and exits 0, with one process or a
 * cluster; a worker killed under load is replaced and only its in-flight requests may fail;
 * workers that keep dying make the primary exit 1; a missing key store or a bad variable stops
 * the start with one line. Every wait is bounded.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import { listeningPids, type ServerProcess, spawnServer, until } from './fixtures/server-process.js'

/** The production entry on a free loopback port, once it listens (WORKERS of them). */
const serve = (env: Record<string, string>, workers = 1): Promise<ServerProcess> =>
  spawnServer(env, workers, ['parcels', 'jurisdiction'], 'shutdown')

/** A POST whose body arrives in two halves, `gapMs` apart: in flight for that long. */
function slowPost(p: ServerProcess, gapMs: number): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ points: [{ latitude: -34.9045, longitude: 17.0015 }] })
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: p.port,
        method: 'POST',
        path: '/api/v1/jurisdiction/batch',
        headers: { 'X-API-KEY': p.key, 'Content-Type': 'application/json', 'Content-Length': body.length },
      },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      },
    )
    req.on('error', reject)
    req.write(body.slice(0, 10))
    setTimeout(() => req.end(body.slice(10)), gapMs)
  })
}

async function get(p: ServerProcess, path: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`, { headers: { 'X-API-KEY': p.key } })
  await res.arrayBuffer()
  return res.status
}

describe('graceful shutdown', () => {
  for (const workers of [1, 2])
    it(`WORKERS=${workers}: SIGTERM lets an in-flight request finish, refuses new connections, exits 0`, async () => {
      const p = await serve({ SHUTDOWN_TIMEOUT_S: '10' }, workers)
      try {
        expect(await get(p, '/readyz')).toBe(200)
        const inFlight = slowPost(p, 1500)
        await new Promise((r) => setTimeout(r, 300))
        const stoppedAt = Date.now()
        p.child.kill('SIGTERM')
        await new Promise((r) => setTimeout(r, 400))
        await expect(get(p, '/healthz')).rejects.toThrow()
        const answer = await inFlight
        expect(answer.status).toBe(200)
        expect(JSON.parse(answer.body).results).toHaveLength(1)
        expect(await p.exited).toBe(0)
        expect(Date.now() - stoppedAt).toBeLessThan(8_000)
        expect(p.output()).toMatch(/draining: not ready, finishing in-flight requests/)
      } finally {
        p.child.kill('SIGKILL')
      }
    }, 40_000)

  it('a request still in flight after SHUTDOWN_TIMEOUT_S is cut and the process exits 0', async () => {
    const p = await serve({ SHUTDOWN_TIMEOUT_S: '1' })
    try {
      const inFlight = slowPost(p, 5000).catch((err: Error) => err)
      await new Promise((r) => setTimeout(r, 300))
      const stoppedAt = Date.now()
      p.child.kill('SIGTERM')
      expect(await p.exited).toBe(0)
      expect(Date.now() - stoppedAt).toBeLessThan(4_000)
      expect(await inFlight).toBeInstanceOf(Error)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 30_000)
})

describe('supervision', () => {
  it('replaces a worker killed under load; only requests in flight on it fail', async () => {
    const p = await serve({}, 2)
    try {
      const victim = listeningPids(p.output())[0]!
      let ok = 0
      let failed = 0
      let stop = false
      const CONNECTIONS = 8
      const loops = Array.from({ length: CONNECTIONS }, async () => {
        while (!stop) {
          try {
            if ((await get(p, '/api/v1/parcels/C01307770000000200000')) === 200) ok++
            else failed++
          } catch {
            failed++
          }
        }
      })
      await new Promise((r) => setTimeout(r, 500))
      process.kill(victim, 'SIGKILL')
      await new Promise((r) => setTimeout(r, 1500))
      stop = true
      await Promise.all(loops)
      // at most the requests each connection had in flight on the killed worker
      expect(failed).toBeLessThanOrEqual(CONNECTIONS)
      expect(ok).toBeGreaterThan(100)
      expect(p.output()).toMatch(new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting a replacement in 250 ms`))
      await until('the replacement', () => listeningPids(p.output()).length === 3, p.output, 10_000)
      expect(await get(p, '/readyz')).toBe(200)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 40_000)

  it('exits 1 when workers keep dying, instead of forking without end', async () => {
    // the port is taken: every worker's listen fails
    const taken: Server = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s))
    })
    const port = (taken.address() as { port: number }).port
    const dir = mkdtempSync(join(inject('workDir'), 'crash-'))
    new SqliteKeyStore(join(dir, 'keys.db')).close()
    try {
      const started = Date.now()
      const r = spawnSync(process.execPath, ['dist/server.js'], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          WORKERS: '2',
          KEYS_DB: join(dir, 'keys.db'),
          DATASET_DIR: inject('datasetDir'),
        },
        timeout: 30_000,
      })
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(/workers died 5 times within 60 s .*stopping/)
      expect(Date.now() - started).toBeLessThan(20_000)
    } finally {
      taken.close()
    }
  }, 40_000)
})

describe('start-up checks', () => {
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['dist/server.js'], {
      encoding: 'utf8',
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATASET_DIR: inject('datasetDir'), ...env },
      timeout: 20_000,
    })

  it('a key store that does not exist stops the start, naming it and `keys init`', () => {
    const missing = join(mkdtempSync(join(inject('workDir'), 'nokeys-')), 'typo', 'keys.db')
    for (const workers of ['1', '2']) {
      const r = start({ KEYS_DB: missing, WORKERS: workers })
      expect(r.status).toBe(1)
      expect(r.stderr.trim()).toBe(
        `cannot start: the key store ${missing} does not exist: create it with \`npm run keys -- init\` ` +
          `(KEYS_DB=${missing}), or point KEYS_DB at the existing one`,
      )
    }
  })

  it('a bad variable is one line naming it, exit 2, no stack trace', () => {
    const r = start({ WORKERS: 'many', KEYS_DB: ':memory:' })
    expect(r.status).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^cannot start: invalid configuration: WORKERS: /)
    expect(r.stderr).not.toMatch(/ at /)
  })
})

describe('access log', () => {
  it('names the error code, bytes sent, the served build, the client behind a trusted proxy and the agent', async () => {
    const p = await serve({ TRUSTED_PROXIES: '127.0.0.1' })
    try {
      const res = await fetch(`http://127.0.0.1:${p.port}/api/v1/parcels/C01300000000000000000`, {
        headers: { 'X-API-KEY': p.key, 'X-Forwarded-For': '203.0.113.5, 198.51.100.7', 'User-Agent': 'probe/1.0' },
      })
      const body = await res.arrayBuffer()
      expect(res.status).toBe(404)
      const deadline = Date.now() + 5_000
      let line: Record<string, unknown> | undefined
      while (!line && Date.now() < deadline) {
        line = p
          .output()
          .split('\n')
          .filter((l) => l.includes('"requestId"') && l.includes('C01300000000000000000'))
          .map((l) => JSON.parse(l))[0]
        if (!line) await new Promise((r) => setTimeout(r, 50))
      }
      expect(line).toMatchObject({
        status: 404,
        error: 'ParcelNotFound',
        bytes: body.byteLength,
        build: expect.any(String),
        client: '198.51.100.7',
        userAgent: 'probe/1.0',
      })
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 30_000)
})

describe('npm run reload', () => {
  it('signals the pid PID_FILE names; the file is removed when the server stops', async () => {
    const pidFile = join(mkdtempSync(join(inject('workDir'), 'pid-')), 'run', 'server.pid')
    const p = await serve({ PID_FILE: pidFile })
    try {
      expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(p.child.pid))
      const r = spawnSync(process.execPath, ['dist/reload.js'], {
        env: { ...process.env, PID_FILE: pidFile },
        encoding: 'utf8',
      })
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(/asked the server \(pid \d+\) to switch/)
      const deadline = Date.now() + 5_000
      while (!/DATASET_DIR names the served build, nothing to do/.test(p.output()) && Date.now() < deadline)
        await new Promise((res) => setTimeout(res, 50))
      expect(p.output()).toMatch(/DATASET_DIR names the served build, nothing to do/)
      p.child.kill('SIGTERM')
      expect(await p.exited).toBe(0)
      expect(existsSync(pidFile)).toBe(false)
      const none = spawnSync(process.execPath, ['dist/reload.js'], {
        env: { ...process.env, PID_FILE: pidFile },
        encoding: 'utf8',
      })
      expect(none.status).toBe(1)
      expect(none.stderr).toMatch(/no server pid in/)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 30_000)
})
