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
   */
  limit(keyId: string, limit: number, now: number): RateLimitResult | Promise<RateLimitResult>
  close?(): void
}

export const WINDOW_MS = 60_000
