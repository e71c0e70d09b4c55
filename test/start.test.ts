/**
 * `npm start` (dist/start.js) from an empty working directory: the first start generates the
 * sample export, builds the dataset, prints a demo key once and serves; the second reuses all of
 * it; with REDIS_URL the demo key goes into Redis; with DATASET_DIR set nothing is generated and
 * no key is issued.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import { freePort } from './fixtures/free-port.js'
import { startRedis } from './fixtures/redis-server.js'

const ROOT = resolve('.')
const START = join(ROOT, 'dist', 'start.js')

/**
 * Runs start.js until it logs "listening" (within `listenMs`), then returns its output and a stop
 * function.
 */
async function start(cwd: string, env: Record<string, string>, listenMs = 60_000) {
  const port = await freePort()
  const child = spawn(process.execPath, [START], {
    cwd,
    env: { ...process.env, LANDDATA_ROOT: ROOT, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()))
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`start did not listen:\n${out}`)), listenMs)
    const check = () => {
      if (out.includes('"listening"')) {
        clearTimeout(timer)
        res()
      }
    }
    child.stdout!.on('data', check)
    child.on('exit', (code) => rej(new Error(`start exited with ${code}:\n${out}`)))
  })
  const stop = () =>
    new Promise<void>((res) => {
      child.once('exit', () => res())
      child.kill('SIGTERM')
    })
  return { port, output: () => out, stop }
}

describe('npm start', () => {
  it('first start prepares everything and prints a working demo key once; the second reuses it all', async () => {
    const cwd = mkdtempSync(join(inject('workDir'), 'start-'))
    // the first start generates the sample export and builds it, tile stores included: about a
    // minute alone, longer beside the other test files on two cores
    const first = await start(cwd, {}, 180_000)
    try {
      const out = first.output()
      expect(out).toContain('generating the sample source export')
      // without a terminal: tens of lines (a line per layer and step), not one per tenth of
      // every file (about 1,500 before); the build ends with its time
      expect(out).toMatch(/^built the sample dataset in \d+ (min \d+ )?s$/m)
      expect(out.split('\n').length).toBeLessThan(150)
      expect(existsSync(join(cwd, 'data/datasets/sample/manifest.json'))).toBe(true)
      // the bulk jobs' directory, made by npm start on the sample
      expect(existsSync(join(cwd, 'data/jobs'))).toBe(true)
      const key = out.match(/ldk_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}/)?.[0]
      expect(key).toBeDefined()
      expect(out.match(/curl -H 'X-API-KEY: ldk_/g)).toHaveLength(3)
      expect(out).toContain(`Map: http://localhost:${first.port}/map`)
      expect((await fetch(`http://127.0.0.1:${first.port}/map`)).status).toBe(200)
      const res = await fetch(`http://127.0.0.1:${first.port}/api/v1/cities?country=ALL`, {
        headers: { 'X-API-KEY': key! },
      })
      expect(res.status).toBe(200)
      const body = (await res.json()) as { cities: { country: string }[] }
      expect(new Set(body.cities.map((c) => c.country))).toEqual(new Set(['BOTSWANA', 'SOUTH_AFRICA']))
    } finally {
      await first.stop()
    }

    const second = await start(cwd, {})
    try {
      expect(second.output()).not.toContain('generating')
      expect(second.output()).not.toContain('building')
      expect(second.output()).not.toMatch(/ldk_/)
    } finally {
      await second.stop()
    }

    // with REDIS_URL the server verifies keys in Redis: the demo key goes there, and works
    const redis = await startRedis()
    const third = await start(cwd, { REDIS_URL: redis.url })
    try {
      const key = third.output().match(/ldk_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}/)?.[0]
      expect(key).toBeDefined()
      const res = await fetch(`http://127.0.0.1:${third.port}/api/v1/cities?country=ALL`, {
        headers: { 'X-API-KEY': key! },
      })
      expect(res.status).toBe(200)
    } finally {
      await third.stop()
      redis.kill()
    }
  }, 300_000)

  it('with DATASET_DIR set serves that dataset and generates nothing', async () => {
    const cwd = mkdtempSync(join(inject('workDir'), 'start-'))
    // with DATASET_DIR set, npm start makes no key store: it must exist (`keys init`)
    new SqliteKeyStore(join(cwd, 'keys.db')).close()
    const s = await start(cwd, { DATASET_DIR: inject('datasetDir'), KEYS_DB: join(cwd, 'keys.db') })
    try {
      expect(s.output()).not.toMatch(/generating|building|ldk_/)
      // the native addon is built by scripts/build.mjs (the tests' global setup runs it)
      expect(s.output()).toMatch(/"indexes":"mapped","msg":"listening"/)
      expect(existsSync(join(cwd, 'data'))).toBe(false)
      const ready = (await (await fetch(`http://127.0.0.1:${s.port}/readyz`)).json()) as {
        domains: { plots: { dataset_version: string } }
      }
      expect(ready.domains.plots.dataset_version).toBe('plots-synth-tiny-s42')
    } finally {
      await s.stop()
    }
  }, 60_000)

  it('SQLITE_MMAP_MB=0 and INDEX_MMAP=0 serve without memory-mapping any file; a bad value stops the start with ' +
    'its name', async () => {
    const cwd = mkdtempSync(join(inject('workDir'), 'start-'))
    const keysDb = join(cwd, 'keys.db')
    new SqliteKeyStore(keysDb).close()
    const s = await start(cwd, {
      DATASET_DIR: inject('datasetDir'),
      KEYS_DB: keysDb,
      SQLITE_MMAP_MB: '0',
      INDEX_MMAP: '0',
    })
    try {
      expect(s.output()).toMatch(/"indexes":"read","msg":"listening"/)
      const store = new SqliteKeyStore(keysDb)
      const { key } = store.issue({ products: ['parcels'], countries: ['SOUTH_AFRICA'], ratePerMinute: 100 })
      store.close()
      // the fixture erf 1 of parcel-fixtures (-34.9045, 17.0015)
      const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/parcels/at?latitude=-34.9045&longitude=17.0015`, {
        headers: { 'X-API-KEY': key },
      })
      expect(res.status).toBe(200)
      expect(((await res.json()) as { parcels: unknown[] }).parcels.length).toBeGreaterThan(0)
    } finally {
      await s.stop()
    }
    const bad = spawnSync(process.execPath, [START], {
      cwd,
      env: { ...process.env, LANDDATA_ROOT: ROOT, DATASET_DIR: inject('datasetDir'), SQLITE_MMAP_MB: 'lots' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    // a bad variable exits 2 (docs/operations.md "Configuration")
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/invalid configuration: SQLITE_MMAP_MB: /)
    const bad2 = spawnSync(process.execPath, [START], {
      cwd,
      env: { ...process.env, LANDDATA_ROOT: ROOT, DATASET_DIR: inject('datasetDir'), INDEX_MMAP: 'yes' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(bad2.status).toBe(2)
    expect(bad2.stderr).toMatch(/invalid configuration: INDEX_MMAP: /)
  }, 60_000)
})
