import { describe, expect, it } from 'vitest'
import { MemoryRateLimiter } from './memory.js'
import { rateLimitHeaders } from './middleware.js'

describe('MemoryRateLimiter', () => {
  it('allows exactly the limit in a window, then refuses, then refills when the window ends', () => {
    const rl = new MemoryRateLimiter()
    const t0 = 1_000_000
    const results = Array.from({ length: 4 }, (_, k) => rl.count('k1', 3, t0 + k))
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false])
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0])
    expect(results[3].resetAt).toBe(t0 + 60_000)
    expect(rl.count('k1', 3, t0 + 59_999).allowed).toBe(false)
    expect(rl.count('k1', 3, t0 + 60_000)).toEqual({ allowed: true, limit: 3, remaining: 2, resetAt: t0 + 120_000 })
  })

  it('keeps keys apart', () => {
    const rl = new MemoryRateLimiter()
    rl.count('a', 1, 0)
    expect(rl.count('a', 1, 1).allowed).toBe(false)
    expect(rl.count('b', 1, 1).allowed).toBe(true)
  })

  it('applies a lowered limit at once', () => {
    const rl = new MemoryRateLimiter()
    for (let i = 0; i < 5; i++) rl.count('a', 60, i)
    expect(rl.count('a', 5, 10).allowed).toBe(false)
  })
})

describe('rateLimitHeaders', () => {
  it('writes the draft-07 fields with reset in whole seconds, rounded up', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 60, remaining: 59, resetAt: 42_500 }, 1_000)).toEqual({
      'RateLimit-Policy': '60;w=60',
      RateLimit: 'limit=60, remaining=59, reset=42',
    })
  })

  it('writes the draft-11 fields, named by the allowance, when asked', () => {
    const r = { allowed: true, limit: 60, remaining: 59, resetAt: 42_500 }
    expect(rateLimitHeaders(r, 1_000, 'default', 'draft-11')).toEqual({
      'RateLimit-Policy': '"default";q=60;w=60',
      RateLimit: '"default";r=59;t=42',
    })
    expect(rateLimitHeaders({ ...r, limit: 1200, remaining: 0 }, 1_000, 'tiles', 'draft-11')).toEqual({
      'RateLimit-Policy': '"tiles";q=1200;w=60',
      RateLimit: '"tiles";r=0;t=42',
    })
  })

  it('never announces a reset beyond the window (w=60), at the edges or from a clock behind the window', () => {
    const rl = new MemoryRateLimiter()
    const t0 = 5_000_000
    const opened = rl.count('k', 10, t0)
    const reset = (now: number) => rateLimitHeaders(rl.count('k', 10, now), now).RateLimit.split('reset=')[1]
    expect(rateLimitHeaders(opened, t0).RateLimit).toBe('limit=10, remaining=9, reset=60')
    expect(reset(t0 + 1)).toBe('60')
    expect(reset(t0 + 59_999)).toBe('1')
    // counted with a `now` earlier than the one that opened the window (another worker's clock
    // 5 s behind): the window still refills at t0 + 60 s, but `reset` may not exceed w
    expect(reset(t0 - 5_000)).toBe('60')
    expect(reset(t0 - 3_600_000)).toBe('60')
    for (let now = t0 - 2_000; now < t0 + 60_000; now += 250) {
      const r = Number(reset(now))
      expect(r, String(now - t0)).toBeGreaterThanOrEqual(0)
      expect(r, String(now - t0)).toBeLessThanOrEqual(60)
    }
  })
})
