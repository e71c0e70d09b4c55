import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from './env.js'

const HEADER = 'X-Request-Id'
/** A client id is kept only when it is 1-128 characters of a safe alphabet, so it can go into logs and headers verbatim. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Pure check, exported for tests. */
export function acceptClientRequestId(value: string | undefined): string | null {
  return value !== undefined && SAFE_ID.test(value) ? value : null
}

/**
 * Sets `requestId` (echoed when safe, else a UUID) and the response header. Hono keeps headers
 * set on the context for the answers `onError` and `notFound` build too (tested for every kind
 * of answer), so nothing is checked afterwards (reading `c.res.headers` after every request
 * made @hono/node-server build a full Headers object: ~2 % of a small request).
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return function requestIdMiddleware(c, next) {
    const id = acceptClientRequestId(c.req.header(HEADER)) ?? randomUUID()
    c.set('requestId', id)
    c.header(HEADER, id)
    return next()
  }
}
