/** The outcome of counting one request against a key's allowance. */
export interface RateLimitResult {
  allowed: boolean
  limit: number
  remaining: number
  /** Epoch milliseconds at which the window refills. */
  resetAt: number
}

/**
 * Counts requests per key in a 60-second window. Behind an interface so the store can move:
 * in-memory for one process, the cluster primary for several workers on one machine, Redis
 * for several machines. Implementations must be exact: N allowed, the N+1st refused.
 */
export interface RateLimiter {
  /**
   * Counts one request for `keyId` (never the raw key) against `limit` per window. A store
   * in this process answers at once; a remote one (cluster primary, Redis) with a promise.
   * `null`: not counted (a Redis store that is unavailable, with RATE_LIMIT_ON_STORE_ERROR=open):
   * the request is served without rate-limit headers.
   */
  limit(keyId: string, limit: number, now: number): RateLimitResult | null | Promise<RateLimitResult | null>
  close?(): void
}

export const WINDOW_MS = 60_000

/**
 * A shared store (Redis) that cannot count now: unreachable, or slower than REDIS_TIMEOUT_MS.
 * The middleware answers it with 503 `RateLimitUnavailable` (fail closed); a store set to fail
 * open answers `null` (not counted) instead of throwing it.
 */
export class RateLimitStoreError extends Error {
  override readonly name = 'RateLimitStoreError'
}
