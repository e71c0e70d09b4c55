/**
 * Switching the served build under load, with real processes on loopback (docs/operations.md
 * "Swapping datasets"): DATASET_DIR is a symlink moved between two builds and the server is sent
 * SIGHUP; with two workers and 50 connections asking all along, no request fails and every answer
 * names one of the two builds' `dataset_version`. The primary hashes each new build once for its
 * workers. A damaged build is refused with one log line and the served one keeps answering.
 * Every wait is bounded.
 */
import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { type Builds, makeBuilds, pointAt } from './fixtures/builds.js'
import { fresh, listeningPids, type ServerProcess, spawnServer, until } from './fixtures/server-process.js'

const count = (text: string, re: RegExp) => (text.match(re) ?? []).length

interface Proc extends ServerProcess {
  /** the build `/readyz` names, asked over a new connection (so a cluster hands it to any worker) */
  readyBuild: () => Promise<string | null>
}

const readyBuild = async (p: ServerProcess): Promise<string | null> =>
  (await fresh(p, '/readyz'))?.body?.build?.name ?? null

/**
 * The production entry on DATASET_DIR=`builds.current`, once it serves build-a (LOG_LEVEL warn
 * keeps the access log out; a switch logs at info, so /readyz tells).
 */
async function serve(
  builds: Builds,
  workers: number,
  logLevel = 'warn',
  more: Record<string, string> = {},
): Promise<Proc> {
  const env = { DATASET_DIR: builds.current, LOG_LEVEL: logLevel, SHUTDOWN_TIMEOUT_S: '5', ...more }
  const p = await spawnServer(env, workers, ['jurisdiction'], 'switch', {
    started: async (p) => (await readyBuild(p)) === 'build-a',
  })
  return { ...p, readyBuild: () => readyBuild(p) }
}

/** A jurisdiction batch whose body arrives in two halves, `gapMs` apart: in flight for that long. */
function slowBatch(p: Proc, gapMs: number): Promise<{ status: number; body: { dataset_version?: string } }> {
  const body = JSON.stringify({ points: [{ latitude: -34.9045, longitude: 17.0015 }] })
  return new Promise((resolve, reject) => {
    const req = request(
      `${p.url}/api/v1/jurisdiction/batch`,
      {
        method: 'POST',
        agent: false,
        headers: { 'X-API-KEY': p.key, 'Content-Type': 'application/json', 'Content-Length': body.length },
      },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
      },
    )
    req.on('error', reject)
    req.write(body.slice(0, 10))
    setTimeout(() => req.end(body.slice(10)), gapMs)
  })
}

describe('dataset switch', () => {
  it('switches five times under load (2 workers, 50 connections) without a failed request', async () => {
    const builds = makeBuilds()
    const { a, b, damaged, current, versionA, versionB } = builds
    const p = await serve(builds, 2)
    const { child, url, key, readyBuild, output } = p
    try {
      let stop = false
      const failures: string[] = []
      const versions = new Map<string, number>()
      let answers = 0
      const connection = async () => {
        while (!stop) {
          try {
            const r = await fetch(`${url}/api/v1/jurisdiction/coverage`, { headers: { 'X-API-KEY': key } })
            const body = (await r.json()) as { dataset_version?: string }
            if (r.status !== 200) failures.push(`${r.status} ${JSON.stringify(body)}`)
            else versions.set(String(body.dataset_version), (versions.get(String(body.dataset_version)) ?? 0) + 1)
            answers++
          } catch (err) {
            failures.push(String(err))
          }
        }
      }
      const load = Array.from({ length: 50 }, connection)

      // both workers must have switched before the next move: each says so on /readyz
      const servedBy = async (name: string) => {
        const deadline = Date.now() + 30_000
        let seen = 0
        while (seen < 10) {
          if (Date.now() > deadline)
            throw new Error(`the workers did not all switch to ${name}: ${output().slice(-3000)}`)
          if ((await readyBuild()) === name) seen++
          else {
            seen = 0
            await new Promise((r) => setTimeout(r, 50))
          }
        }
      }
      const order = [b, a, b, a, b]
      for (const target of order) {
        const before = answers
        pointAt(current, target)
        child.kill('SIGHUP')
        await servedBy(target === a ? 'build-a' : 'build-b')
        await until('answers after the switch', () => answers > before + 50, output)
      }

      // a damaged build is refused with one line (the primary's), and the served one answers on
      pointAt(current, damaged)
      child.kill('SIGHUP')
      await until(
        'the primary to refuse the damaged build',
        () => count(output(), /dataset switch refused/g) === 1,
        output,
      )
      const before = answers
      await until('answers after the refusal', () => answers > before + 50, output)
      expect(await readyBuild()).toBe('build-b')

      stop = true
      await Promise.all(load)
      expect(failures).toEqual([])
      expect([...versions.keys()].sort()).toEqual([versionA, versionB].sort())
      expect(count(output(), /dataset switch refused/g)).toBe(1)
      expect(output()).toMatch(new RegExp(`dataset switch refused: .*${builds.damagedFile}.*the workers serve on`))
      expect(child.exitCode).toBeNull()
    } finally {
      child.kill('SIGKILL')
    }
  }, 120_000)

  it('WORKERS=2: the primary hashes the new build once and the workers switch to it', async () => {
    const builds = makeBuilds()
    const p = await serve(builds, 2, 'info')
    try {
      pointAt(builds.current, builds.b)
      p.child.kill('SIGHUP')
      await until(
        'both workers to switch',
        () => count(p.output(), /"msg":"dataset switched"/g) === 2,
        p.output,
        20_000,
      )
      expect(count(p.output(), /dataset checked: telling the workers to switch/g)).toBe(1)
      // the workers checked sizes and headers only
      expect(count(p.output(), /"hashedBy":"the primary"/g)).toBe(2)
      expect(count(p.output(), /"hashedBy":"this process"/g)).toBe(0)
      expect(await p.readyBuild()).toBe('build-b')
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 60_000)

  it('WORKERS=1: a request in flight during a switch answers from the build it started on', async () => {
    const builds = makeBuilds()
    const p = await serve(builds, 1)
    try {
      const inFlight = slowBatch(p, 2500)
      await new Promise((r) => setTimeout(r, 300))
      pointAt(builds.current, builds.b)
      p.child.kill('SIGHUP')
      await until('the switch', async () => (await p.readyBuild()) === 'build-b', p.output, 2000)
      const answer = await inFlight
      expect(answer.status).toBe(200)
      expect(answer.body.dataset_version).toBe(builds.versionA)
      const after = await slowBatch(p, 0)
      expect(after.body.dataset_version).toBe(builds.versionB)
      // SIGHUP with DATASET_DIR unchanged: nothing to do, still serving B
      p.child.kill('SIGHUP')
      await new Promise((r) => setTimeout(r, 300))
      expect(await p.readyBuild()).toBe('build-b')
      expect(p.child.exitCode).toBeNull()
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 60_000)
})

describe('/readyz after a switch', () => {
  /** `n` /readyz answers over new connections (so every worker answers): each `status integrity build` */
  const readyz = async (p: ServerProcess, n: number): Promise<string[]> => {
    const seen = new Set<string>()
    for (let i = 0; i < n; i++) {
      const r = await fresh(p, '/readyz')
      seen.add(`${r?.status} ${r?.body?.integrity} ${r?.body?.build?.name}`)
    }
    return [...seen]
  }

  for (const workers of [1, 2])
    it(`WORKERS=${workers}: describes the integrity of the build served, not the start-up one`, async () => {
      const builds = makeBuilds()
      // quick: the start-up build's large files are never hashed; a switch hashes the new one whole
      const p = await serve(builds, workers, 'info', { VERIFY_ON_START: 'quick' })
      try {
        expect(await readyz(p, 6)).toEqual(['200 quick build-a'])
        pointAt(builds.current, builds.b)
        p.child.kill('SIGHUP')
        await until('the switch', () => count(p.output(), /"msg":"dataset switched"/g) === workers, p.output)
        expect(await readyz(p, 6)).toEqual(['200 ok build-b'])
        // a refused build changes nothing
        pointAt(builds.current, builds.damaged)
        p.child.kill('SIGHUP')
        await until('the refusal', () => /dataset switch refused/.test(p.output()), p.output)
        expect(await readyz(p, 6)).toEqual(['200 ok build-b'])
        if (workers > 1) {
          // a replacement asks the primary, which describes the build switched to
          process.kill(listeningPids(p.output())[0]!, 'SIGKILL')
          await until('the replacement', () => listeningPids(p.output()).length === 3, p.output)
          expect(await readyz(p, 6)).toEqual(['200 ok build-b'])
        }
      } finally {
        p.child.kill('SIGKILL')
      }
    }, 60_000)
})
