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

/**
 * The syntax of the two headers (docs/api.md "Rate limits"): `draft-07`, the expired draft's that
 * the specs promise (`60;w=60` and `limit=60, remaining=59, reset=60`), the default for this
 * release because clients built from the specs parse it; or `draft-11`, the current IETF draft's
 * (draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy: "default";q=60;w=60` and
 * `RateLimit: "default";r=59;t=60`), chosen with RATE_LIMIT_HEADERS and the default from the next
 * release (docs/decisions.md). The two cannot be sent together: they share the header names.
 */
export type HeaderSyntax = 'draft-11' | 'draft-07'

/** Which allowance a route counts against: the key's requests, or its tiles (and TileJSON). */
export type AllowanceName = 'default' | 'tiles'

/** An allowance: its policy name in the headers, and the counter and limit of a key. */
export interface Allowance {
  readonly name: AllowanceName
  /** the limiter's counter for the key: the key id, suffixed for an allowance of its own */
  counter(key: ApiKeyRecord): string
  limit(key: ApiKeyRecord): number
}

/** The key's requests per minute (every route but tiles). */
export const REQUESTS: Allowance = {
  name: 'default',
  counter: (key) => key.id,
  limit: (key) => key.ratePerMinute,
}

/** Tiles and TileJSON: the key's own tile allowance, else the server's `TILE_RATE_PER_MINUTE`. */
export function tileAllowance(serverDefault: number): Allowance {
  return {
    name: 'tiles',
    // `/` never appears in a key id (api-key.ts), so no key's requests share this counter
    counter: (key) => `${key.id}/tiles`,
    limit: (key) => key.tileRatePerMinute ?? serverDefault,
  }
}

/** The header values for one count (see {@link HeaderSyntax}; docs/domain.md 4.1). */
export function rateLimitHeaders(
  r: RateLimitResult,
  now: number,
  policy: AllowanceName = 'default',
  syntax: HeaderSyntax = 'draft-07',
): Record<string, string> {
  const reset = secondsUntil(r.resetAt, now, 0)
  if (syntax === 'draft-07')
    return {
      'RateLimit-Policy': `${r.limit};w=${WINDOW_S}`,
      RateLimit: `limit=${r.limit}, remaining=${r.remaining}, reset=${reset}`,
    }
  return {
    'RateLimit-Policy': `"${policy}";q=${r.limit};w=${WINDOW_S}`,
    RateLimit: `"${policy}";r=${r.remaining};t=${reset}`,
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
  allowance: Allowance = REQUESTS,
  syntax: HeaderSyntax = 'draft-07',
): void | Promise<void> {
  const r = limiter.limit(allowance.counter(key), allowance.limit(key), now)
  return r instanceof Promise
    ? r.then((x) => applyLimit(c, x, now, allowance.name, syntax), storeFailed)
    : applyLimit(c, r, now, allowance.name, syntax)
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

function applyLimit(
  c: Context<AppEnv>,
  r: RateLimitResult | null,
  now: number,
  policy: AllowanceName,
  syntax: HeaderSyntax,
): void {
  // not counted (a shared store set to fail open is unavailable): no allowance to describe
  if (r === null) return
  const headers = rateLimitHeaders(r, now, policy, syntax)
  for (const k in headers) setHeader(c, k, headers[k])
  if (!r.allowed) {
    const retryAfter = secondsUntil(r.resetAt, now, 1)
    const what = policy === 'tiles' ? 'tile allowance' : 'rate limit'
    throw new ApiError(
      'RateLimitExceeded',
      `${what} of ${r.limit} requests per minute reached; retry in ${retryAfter} s`,
      undefined,
      {
        ...headers,
        'Retry-After': String(retryAfter),
      },
    )
  }
}
