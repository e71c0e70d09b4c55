import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { Logger } from 'pino'
import type { AppEnv } from './env.js'
import { accessLogWriter } from './log.js'
import { acceptClientRequestId, REQUEST_ID_HEADER } from './request-id.js'
import { requestHeader } from './request-header.js'
import { setHeader } from './reply.js'

/**
 * The outermost middleware, one per request: sets `requestId` (the client's when safe, else a
 * UUID) and its response header, then writes the access-log line once the answer is built.
 * One middleware rather than two: each link of Hono's chain costs a closure and a promise.
 *
 * Hono keeps headers set on the context for the answers `onError` and `notFound` build too
 * (tested for every kind of answer), so nothing is read back afterwards.
 */
export function frontDoor(log: Logger): MiddlewareHandler<AppEnv> {
  const write = accessLogWriter(log)
  return async function frontDoorMiddleware(c, next) {
    const id = acceptClientRequestId(requestHeader(c, 'x-request-id')) ?? randomUUID()
    c.set('requestId', id)
    setHeader(c, REQUEST_ID_HEADER, id)
    if (!write.enabled()) return next()
    const start = performance.now()
    await next()
    write(id, c.req.method, c.req.path, c.res.status, performance.now() - start, c.get('apiKey')?.id)
  }
}
