import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../http/env.js'
import { ApiError } from '../http/errors.js'
import { WINDOW_MS, type RateLimitResult, type RateLimiter } from './types.js'

/** The header values of draft-ietf-httpapi-ratelimit-headers-07 (see DOMAIN.md 4.1). */
export function rateLimitHeaders(r: RateLimitResult, now: number): Record<string, string> {
  const reset = Math.max(0, Math.ceil((r.resetAt - now) / 1000))
  return {
    'RateLimit-Policy': `${r.limit};w=${WINDOW_MS / 1000}`,
    RateLimit: `limit=${r.limit}, remaining=${r.remaining}, reset=${reset}`,
  }
}

/**
 * Counts every authenticated request once (a batch is one request) against the key's
 * per-minute allowance, shared across all products, and sends the headers on every answer.
 * Runs after `requireApiKey`, keyed by the key id, never the raw key.
 */
export function rateLimit(limiter: RateLimiter, clock: () => number = Date.now): MiddlewareHandler<AppEnv> {
  return async function rateLimitMiddleware(c, next) {
    const key = c.get('apiKey')
    const now = clock()
    const r = await limiter.limit(key.id, key.ratePerMinute, now)
    const headers = rateLimitHeaders(r, now)
    for (const [k, v] of Object.entries(headers)) c.header(k, v)
    if (!r.allowed) {
      const retryAfter = Math.max(1, Math.ceil((r.resetAt - now) / 1000))
      throw new ApiError('RateLimitExceeded', `rate limit of ${r.limit} requests per minute reached; retry in ${retryAfter} s`, undefined, {
        ...headers,
        'Retry-After': String(retryAfter),
      })
    }
    await next()
  }
}
