import type { Context } from 'hono'
import type { AppEnv } from './env.js'
import type { Answer, Answerer } from './front-door.js'
import { requestHeader } from './request-header.js'
import { appendHeader, reply, setHeader } from './reply.js'

/**
 * Cross-origin requests from the origins of `CORS_ORIGINS` (docs/operations.md
 * "Configuration", docs/api.md "HTTP conventions"); with none configured the app sends no CORS
 * header at all and nothing here runs.
 *
 * A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed
 * origin, to a path that has routes, answers 204 without a key: `Access-Control-Allow-Origin`
 * (that origin), `-Allow-Methods` (the path's methods), `-Allow-Headers` (`X-API-KEY`,
 * `Content-Type`), `-Max-Age`. Any other answer carries `Vary: Origin` and, for an allowed
 * origin, `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` (the rate-limit
 * headers, `Retry-After`, `X-Request-Id`, `ETag`).
 *
 * Not hono's `cors` middleware: it is async (a promise per request, which takes the adapter off
 * its synchronous path) and needs Hono's middleware chain, which the router refuses
 * (src/http/prefix-router.ts); it also writes its headers through the context's own header
 * helper, which `reply` bypasses (src/http/reply.ts). Here the headers are gathered like every
 * other one, by a synchronous step the app puts around each route when origins are configured.
 *
 * @module
 */

/** What a preflight may ask to send. */
export const CORS_ALLOW_HEADERS = 'X-API-KEY, Content-Type'
/** What a page may read of an answer, beyond the CORS-safelisted headers. */
export const CORS_EXPOSE_HEADERS = 'RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, ETag'
/** s a browser may keep a preflight's answer. */
export const CORS_MAX_AGE_S = 600

/**
 * The origins of a `CORS_ORIGINS` value (comma-separated, spaces ignored); throws on anything
 * that is not a bare origin (`scheme://host[:port]`, no path, no trailing slash).
 */
export function parseCorsOrigins(value: string): string[] {
  const origins: string[] = []
  for (const raw of value.split(',')) {
    const o = raw.trim()
    if (o === '') continue
    let origin: string
    try {
      origin = new URL(o).origin
    } catch {
      origin = 'null'
    }
    if (origin !== o) throw new Error(`${o} is not an origin (scheme://host[:port], nothing after)`)
    origins.push(o)
  }
  return origins
}

/** The CORS step of one app over its allowed origins (see the module comment). */
export class Cors {
  private readonly origins: ReadonlySet<string>

  /** `allowed(method, path)`: the path's methods for an `Allow` list, or null when it has none. */
  constructor(
    origins: readonly string[],
    private readonly allowed: (method: string, path: string) => string | null,
  ) {
    this.origins = new Set(origins)
  }

  /** `run` with this request's CORS headers gathered first. */
  around(c: Context<AppEnv>, run: Answerer): Answer {
    appendHeader(c, 'Vary', 'Origin')
    const origin = requestHeader(c, 'origin')
    if (origin === undefined || !this.origins.has(origin)) return run(c)
    setHeader(c, 'Access-Control-Allow-Origin', origin)
    if (c.req.method === 'OPTIONS' && requestHeader(c, 'access-control-request-method') !== undefined) {
      const methods = this.allowed('OPTIONS', c.req.path)
      if (methods !== null) {
        setHeader(c, 'Access-Control-Allow-Methods', methods)
        setHeader(c, 'Access-Control-Allow-Headers', CORS_ALLOW_HEADERS)
        setHeader(c, 'Access-Control-Max-Age', String(CORS_MAX_AGE_S))
        return reply(c, null, 204)
      }
    }
    setHeader(c, 'Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS)
    return run(c)
  }
}
