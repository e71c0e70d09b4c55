import type { Context } from 'hono'
import type { ApiKeyRecord } from '../auth/types.js'
import type { AppEnv } from '../http/env.js'
import { ApiError, storeUnavailable } from '../http/errors.js'
import { RateLimitStoreError, WINDOW_MS, type RateLimitResult, type RateLimiter } from './types.js'
import { setHeader } from '../http/reply.js'

const WINDOW_S = WINDOW_MS / 1000

/**
 * Whole seconds from `now` until `resetAt`, rounded up, and never more than the window
 * (docs/api.md "Rate limits"): a window can have been opened by a request stamped later than
 * this one (another worker's clock, a count batched behind a later one), which would otherwise
 * promise a reset beyond `w`.
 */
function secondsUntil(resetAt: number, now: number, min: number): number {
  const s = Math.ceil((resetAt - now) / 1000)
  return s > WINDOW_S ? WINDOW_S : s < min ? min : s
}

/** The header values of draft-ietf-httpapi-ratelimit-headers-07 (see docs/domain.md 4.1). */
export function rateLimitHeaders(r: RateLimitResult, now: number): Record<string, string> {
  const reset = secondsUntil(r.resetAt, now, 0)
  return {
    'RateLimit-Policy': `${r.limit};w=${WINDOW_S}`,
    RateLimit: `limit=${r.limit}, remaining=${r.remaining}, reset=${reset}`,
  }
}

/**
 * Counts one authenticated request (a batch is one request) against the key's per-minute
 * allowance, shared across all products, and sets the headers every answer carries; throws the
 * 429 when the allowance is spent. Keyed by the key id, never the raw key. Synchronous when the
 * store answers at once (one process), a promise when it is remote (the cluster primary).
 */
export function countRequest(
  c: Context<AppEnv>,
  limiter: RateLimiter,
  key: ApiKeyRecord,
  now: number,
): void | Promise<void> {
  const r = limiter.limit(key.id, key.ratePerMinute, now)
  return r instanceof Promise ? r.then((x) => applyLimit(c, x, now), storeFailed) : applyLimit(c, r, now)
}

/**
 * A shared store that cannot count (Redis unreachable or slow): 503 `RateLimitUnavailable`,
 * failing closed, with `Retry-After`; the cause (an address, a timeout) is for `/readyz` and the
 * log, not the client. Any other failure stays what it is.
 */
function storeFailed(err: unknown): never {
  if (err instanceof RateLimitStoreError)
    throw storeUnavailable('the rate-limit store is unavailable, so requests cannot be counted')
  throw err
}

function applyLimit(c: Context<AppEnv>, r: RateLimitResult | null, now: number): void {
  // not counted (a shared store set to fail open is unavailable): no allowance to describe
  if (r === null) return
  const headers = rateLimitHeaders(r, now)
  for (const k in headers) setHeader(c, k, headers[k])
  if (!r.allowed) {
    const retryAfter = secondsUntil(r.resetAt, now, 1)
    throw new ApiError(
      'RateLimitExceeded',
      `rate limit of ${r.limit} requests per minute reached; retry in ${retryAfter} s`,
      undefined,
      {
        ...headers,
        'Retry-After': String(retryAfter),
      },
    )
  }
}
