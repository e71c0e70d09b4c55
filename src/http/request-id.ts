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

/** Sets `requestId` (echoed when safe, else a UUID) and the response header on every response. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    const id = acceptClientRequestId(c.req.header(HEADER)) ?? randomUUID()
    c.set('requestId', id)
    c.header(HEADER, id)
    await next()
    // errors answered by onError build a fresh response: make sure it carries the id too
    if (c.res.headers.get(HEADER) !== id) c.res.headers.set(HEADER, id)
  }
}
