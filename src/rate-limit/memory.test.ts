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
})
