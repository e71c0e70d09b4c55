import type { Context } from 'hono'
import type { ApiKeyRecord } from '../auth/types.js'
import type { AppEnv } from '../http/env.js'
import { ApiError } from '../http/errors.js'
import { WINDOW_MS, type RateLimitResult, type RateLimiter } from './types.js'
import { setHeader } from '../http/reply.js'

/** The header values of draft-ietf-httpapi-ratelimit-headers-07 (see docs/domain.md 4.1). */
export function rateLimitHeaders(r: RateLimitResult, now: number): Record<string, string> {
  const reset = Math.max(0, Math.ceil((r.resetAt - now) / 1000))
  return {
    'RateLimit-Policy': `${r.limit};w=${WINDOW_MS / 1000}`,
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
  return r instanceof Promise ? r.then((x) => applyLimit(c, x, now)) : applyLimit(c, r, now)
}

function applyLimit(c: Context<AppEnv>, r: RateLimitResult, now: number): void {
  const headers = rateLimitHeaders(r, now)
  for (const k in headers) setHeader(c, k, headers[k])
  if (!r.allowed) {
    const retryAfter = Math.max(1, Math.ceil((r.resetAt - now) / 1000))
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
