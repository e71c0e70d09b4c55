/**
 * The key store and the rate limiter, timed into their histograms (docs/operations.md
 * "Metrics"): wrappers made once at start, only when metrics are on, so the app calls them as
 * it calls the stores themselves. A store that answers at once is timed without allocating; one
 * that answers with a promise (the cluster primary's rate limit) through one `then` that
 * carries the start time.
 */
import type { KeyVerifier, VerifyResult } from '../auth/types.js'
import type { RateLimiter, RateLimitResult } from '../rate-limit/types.js'
import type { Series } from './series.js'

/** Observes the time since `start` once `r` is known: at once, or when its promise settles. */
function timed<T>(series: Series, start: number, r: T | Promise<T>): T | Promise<T> {
  if (r instanceof Promise)
    return r.then((v) => {
      series.observe((performance.now() - start) / 1000)
      return v
    })
  series.observe((performance.now() - start) / 1000)
  return r
}

export class TimedKeyVerifier implements KeyVerifier {
  constructor(
    private readonly inner: KeyVerifier,
    private readonly series: Series,
  ) {}

  verify(rawKey: string | undefined, now: Date | number): VerifyResult | Promise<VerifyResult> {
    const start = performance.now()
    return timed(this.series, start, this.inner.verify(rawKey, now))
  }

  close(): void {
    this.inner.close()
  }
}

export class TimedRateLimiter implements RateLimiter {
  constructor(
    private readonly inner: RateLimiter,
    private readonly series: Series,
  ) {}

  limit(keyId: string, limit: number, now: number): RateLimitResult | null | Promise<RateLimitResult | null> {
    const start = performance.now()
    return timed(this.series, start, this.inner.limit(keyId, limit, now))
  }

  close(): void {
    this.inner.close?.()
  }
}
