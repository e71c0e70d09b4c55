import { WINDOW_MS, type RateLimitResult, type RateLimiter } from './types.js'

interface Window {
  start: number
  count: number
}

/**
 * Fixed window per key, opened by the key's first request: simple, exact, O(1) memory per key.
 * A sliding log would smooth bursts at window edges, but the specs' `reset` header describes a
 * window that refills at a point in time, which is exactly a fixed window.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>()
  private sweeps = 0

  /** Synchronous core, shared with the cluster primary. */
  count(keyId: string, limit: number, now: number): RateLimitResult {
    let w = this.windows.get(keyId)
    if (!w || now >= w.start + WINDOW_MS) {
      w = { start: now, count: 0 }
      this.windows.set(keyId, w)
      if (++this.sweeps % 1024 === 0) this.sweep(now)
    }
    const allowed = w.count < limit
    if (allowed) w.count++
    return { allowed, limit, remaining: Math.max(0, limit - w.count), resetAt: w.start + WINDOW_MS }
  }

  limit(keyId: string, limit: number, now: number): RateLimitResult {
    return this.count(keyId, limit, now)
  }

  // drop windows that have ended, so memory follows active keys only
  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + WINDOW_MS) this.windows.delete(k)
  }
}
