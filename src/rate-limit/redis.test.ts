import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RedisServer, startRedis } from '../../test/fixtures/redis-server.js'
import { RedisLink } from '../redis/connection.js'
import { counterKey, RedisRateLimiter } from './redis.js'
import { RateLimitStoreError, type RateLimitResult, WINDOW_MS } from './types.js'

let redis: RedisServer
let admin: Redis
const links: RedisLink[] = []

function link(timeoutMs = 250): RedisLink {
  const l = new RedisLink(redis.url, { timeoutMs, name: 'test' })
  links.push(l)
  return l
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
})
afterEach(() => {
  for (const l of links.splice(0)) l.close()
})
afterAll(async () => {
  admin?.disconnect()
  redis?.kill()
})

describe('RedisRateLimiter', () => {
  it('is exact across limiters: N allowed, the rest refused, remaining N-1..0 each once', async () => {
    const limiters = [link(), link(), link()].map((l) => new RedisRateLimiter(l))
    for (const l of links) expect(await l.ready(5000)).toBe(true)
    await roomInWindow(5000)
    const now = Date.now()
    const results = (await Promise.all(
      Array.from({ length: 200 }, (_, k) => limiters[k % 3].limit('exact', 50, now)),
    )) as RateLimitResult[]
    const allowed = results.filter((r) => r.allowed)
    expect(allowed).toHaveLength(50)
    expect(allowed.map((r) => r.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, k) => k))
    for (const r of results) {
      expect(r.limit).toBe(50)
      expect(r.resetAt - now).toBeGreaterThan(0)
      expect(r.resetAt - now).toBeLessThanOrEqual(WINDOW_MS)
      if (!r.allowed) expect(r.remaining).toBe(0)
    }
  })

  it('counts into rl:{id}:<window start>, aligned to Redis’s clock, expiring after its window', async () => {
    const limiter = new RedisRateLimiter(link())
    await links[0].ready(5000)
    await limiter.limit('k7Gx2mQp', 10, Date.now())
    const keys = await admin.keys(`${counterKey('k7Gx2mQp')}:*`)
    expect(keys).toHaveLength(1)
    const start = Number(keys[0].split(':').pop())
    expect(start % WINDOW_MS).toBe(0)
    expect(keys[0]).toBe(`rl:{k7Gx2mQp}:${start}`)
    const ttl = await admin.pttl(keys[0])
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS + 1000)
  })

  it('sends the counts of one event-loop turn as one pipeline', async () => {
    const l = link()
    const limiter = new RedisRateLimiter(l)
    await l.ready(5000)
    const pipeline = vi.spyOn(l.client, 'pipeline')
    await Promise.all(Array.from({ length: 100 }, () => limiter.limit('batched', 1000, Date.now())))
    expect(pipeline).toHaveBeenCalledTimes(1)
    await limiter.limit('batched', 1000, Date.now())
    expect(pipeline).toHaveBeenCalledTimes(2)
  })

  it('fails closed on a Redis slower than the timeout, and recovers once it answers', async () => {
    const l = link(100)
    const limiter = new RedisRateLimiter(l)
    await l.ready(5000)
    await admin.call('CLIENT', 'PAUSE', '600', 'ALL')
    const err = await limiter.limit('slow', 10, Date.now()).catch((e: Error) => e)
    expect(err).toBeInstanceOf(RateLimitStoreError)
    expect((err as Error).message).toMatch(/no answer within 100 ms/)
    expect(l.reason()).toMatch(/no answer within 100 ms/)
    await new Promise((r) => setTimeout(r, 700))
    expect((await limiter.limit('slow', 10, Date.now()))?.allowed).toBe(true)
    expect(l.reason()).toBeNull()
  })

  it('Redis stopped: closed rejects at once, open answers null (counted as uncounted); both recover', async () => {
    const l = link()
    const closed = new RedisRateLimiter(l)
    let uncounted = 0
    const warn = vi.fn()
    const open = new RedisRateLimiter(l, { failOpen: true, onUncounted: (n) => (uncounted += n), log: { warn } })
    await l.ready(5000)
    await redis.stop()
    await new Promise((r) => setTimeout(r, 100))
    const t = Date.now()
    const err = await closed.limit('down', 10, Date.now()).catch((e: Error) => e)
    expect(Date.now() - t).toBeLessThan(100)
    expect(err).toBeInstanceOf(RateLimitStoreError)
    expect(l.reason()).toMatch(/^redis: /)
    expect(await Promise.all([open.limit('down', 10, Date.now()), open.limit('down', 10, Date.now())])).toEqual([
      null,
      null,
    ])
    await open.limit('down', 10, Date.now())
    expect(uncounted).toBe(3)
    expect(warn).toHaveBeenCalledTimes(1)
    await redis.start()
    expect(await l.ready(5000)).toBe(true)
    expect((await closed.limit('down', 10, Date.now()))?.allowed).toBe(true)
    expect((await open.limit('down', 10, Date.now()))?.remaining).toBe(8)
    expect(l.reason()).toBeNull()
  })
})
