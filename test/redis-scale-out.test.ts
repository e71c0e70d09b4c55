/**
 * Several instances sharing one Redis (docs/production.md "Several instances with Redis"), with
 * real parts: a `redis-server` on a free loopback port, three `dist/server.js` instances of two
 * workers each, and the keys CLI (`dist/keys.js`) changing a key while they serve. Checks that a
 * key's allowance is exact across all six workers, that a suspension reaches every instance
 * within 2 s, and that Redis stopped answers 503 RateLimitUnavailable (and `/readyz` 503) until it
 * returns, without a restart. Needs `npm run build`; every wait is bounded; afterAll kills all.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { openRedisKeyStore } from '../src/auth/cli-store.js'
import { WINDOW_MS } from '../src/rate-limit/types.js'
import { type RedisServer, startRedis } from './fixtures/redis-server.js'
import { fresh, type ServerProcess, spawnServer } from './fixtures/server-process.js'

const INSTANCES = 3
const WORKERS = 2
const PARCEL = '/api/v1/parcels/C01307770000000200000'

type Instance = ServerProcess

let redis: RedisServer
let admin: Redis
const instances: Instance[] = []

async function serve(): Promise<Instance> {
  const env = {
    REDIS_URL: redis.url,
    // never created: with REDIS_URL the keys live in Redis
    KEYS_DB: join(inject('workDir'), 'no-such-keys.db'),
    VERIFY_ON_START: 'off',
    // the machine running the tests may be busy: what is tested is exactness, not latency
    REDIS_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'warn',
  }
  // started once /readyz answers 200 (LOG_LEVEL=warn logs no "listening")
  const instance = await spawnServer(env, WORKERS, [], 'redis', {
    started: async (p) => (await fresh(p, '/readyz'))?.status === 200,
  })
  instances.push(instance)
  return instance
}

async function issue(ratePerMinute: number): Promise<{ key: string; id: string }> {
  const store = await openRedisKeyStore(redis.url)
  try {
    const { key, record } = await store.issue({ products: ['parcels'], countries: ['SOUTH_AFRICA'], ratePerMinute })
    return { key, id: record.id }
  } finally {
    store.close()
  }
}

async function get(i: Instance, path: string, key?: string) {
  const res = await fetch(`http://127.0.0.1:${i.port}${path}`, { headers: key ? { 'X-API-KEY': key } : {} })
  return { status: res.status, headers: res.headers, body: await res.text() }
}

/** The keys CLI as an operator runs it, against the same Redis. */
function keysCli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/keys.js', ...args], {
      env: { ...process.env, REDIS_URL: redis.url, KEYS_DB: join(inject('workDir'), 'no-such-keys.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

/** Waits until at least `ms` are left in Redis's current window, so a burst stays in one window. */
async function roomInWindow(ms: number): Promise<void> {
  const [s, us] = await admin.time()
  const now = Number(s) * 1000 + Math.floor(Number(us) / 1000)
  const left = WINDOW_MS - (now % WINDOW_MS)
  if (left < ms) await new Promise((r) => setTimeout(r, left + 50))
}

beforeAll(async () => {
  redis = await startRedis()
  admin = new Redis(redis.url)
  await Promise.all(Array.from({ length: INSTANCES }, serve))
}, 60_000)

afterAll(() => {
  for (const i of instances) i.child.kill('SIGKILL')
  admin?.disconnect()
  redis?.kill()
})

describe('three instances of two workers sharing one Redis', () => {
  it('a key of 100 per minute hit 400 times across them: exactly 100 answers 200 (remaining 99..0), 300 answers 429', async () => {
    const { key } = await issue(100)
    await roomInWindow(5000)
    const answers = await Promise.all(Array.from({ length: 400 }, (_, k) => get(instances[k % INSTANCES], PARCEL, key)))
    const statuses: Record<number, number> = {}
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1
    expect(statuses, answers.find((a) => a.status !== 200 && a.status !== 429)?.body).toEqual({ 200: 100, 429: 300 })
    const ok = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status === 429)
    expect(ok).toHaveLength(100)
    expect(refused).toHaveLength(300)
    const remaining = ok.map((a) => Number(/remaining=(\d+)/.exec(a.headers.get('ratelimit') ?? '')?.[1]))
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, k) => k))
    for (const a of [...ok, ...refused]) {
      expect(a.headers.get('ratelimit-policy')).toBe('100;w=60')
      const reset = Number(/reset=(\d+)/.exec(a.headers.get('ratelimit') ?? '')?.[1])
      expect(reset).toBeGreaterThanOrEqual(0)
      expect(reset).toBeLessThanOrEqual(60)
    }
    for (const a of refused) {
      expect(JSON.parse(a.body)).toMatchObject({ error: 'RateLimitExceeded' })
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(a.headers.get('ratelimit')).toMatch(/remaining=0,/)
    }
  })

  it('a suspension through the keys CLI is refused by every instance within 2 s', async () => {
    const { key, id } = await issue(10_000)
    // every worker of every instance has verified the key (and cached it)
    for (const i of instances) for (let k = 0; k < 6; k++) expect((await get(i, PARCEL, key)).status).toBe(200)
    const suspended = await keysCli(['suspend', '--id', id])
    expect(suspended).toMatchObject({ code: 0, out: expect.stringMatching(new RegExp(`API key ${id} suspended`)) })
    const t = Date.now()
    for (;;) {
      const rounds = await Promise.all(
        instances.map((i) => Promise.all(Array.from({ length: 6 }, () => get(i, PARCEL, key)))),
      )
      if (rounds.flat().every((a) => a.status === 401)) {
        expect(JSON.parse(rounds[0][0].body)).toMatchObject({ error: 'ApiKeySuspended' })
        break
      }
      expect(Date.now() - t).toBeLessThan(2000)
      await new Promise((r) => setTimeout(r, 50))
    }
  })

  it('Redis stopped: 503 RateLimitUnavailable in the envelope and /readyz 503; back without a restart', async () => {
    const { key } = await issue(10_000)
    for (const i of instances) expect((await get(i, PARCEL, key)).status).toBe(200)
    await admin.save() // the keys outlive the restart (the server runs with --save '')
    await redis.stop()
    for (const i of instances) {
      const a = await get(i, PARCEL, key)
      expect(a.status).toBe(503)
      expect(JSON.parse(a.body)).toEqual({
        error: 'RateLimitUnavailable',
        // the count, or the key on a worker that had not verified it yet
        message: expect.stringMatching(/^the (rate-limit|key) store is unavailable, .*; retry in 2 s$/),
        requestId: expect.any(String),
      })
      expect(a.headers.get('retry-after')).toBe('2')
      expect(a.headers.get('cache-control')).toBe('no-store')
      const ready = await get(i, '/readyz')
      expect(ready.status).toBe(503)
      expect(JSON.parse(ready.body)).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/^redis: /) })
    }
    await redis.start()
    const t = Date.now()
    for (const i of instances)
      for (;;) {
        const rounds = await Promise.all(Array.from({ length: 4 }, () => get(i, PARCEL, key)))
        const ready = await get(i, '/readyz')
        if (rounds.every((a) => a.status === 200) && ready.status === 200) break
        expect(Date.now() - t).toBeLessThan(5000)
        await new Promise((r) => setTimeout(r, 100))
      }
    for (const i of instances) expect(i.child.exitCode).toBeNull()
  })
})
