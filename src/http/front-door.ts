import { randomUUID } from 'node:crypto'
import type { Context } from 'hono'
import type { Logger } from 'pino'
import type { AppEnv } from './env.js'
import type { IncomingMessage } from 'node:http'
import { clientAddress } from './client-address.js'
import { accessLogWriter } from './log.js'
import { acceptClientRequestId, REQUEST_ID_HEADER } from './request-id.js'
import { requestHeader } from './request-header.js'
import { setHeader } from './reply.js'

/** An answer, at once when every step was synchronous. */
export type Answer = Response | Promise<Response>
/** What answers one request (a route, the not-found answer, or the gate around either). */
export type Answerer = (c: Context<AppEnv>) => Answer

/**
 * What every request goes through exactly once, around whatever answers it (a route or the
 * not-found answer): sets `requestId` (the client's when safe, else a UUID) and its response
 * header, turns anything thrown into the error answer, then writes the access-log line.
 *
 * Not Hono middleware, on purpose: with more than one handler matched, Hono runs its
 * koa-style chain (an async function and a promise per link, and a promise for the whole
 * request even when nothing waits), and @hono/node-server then takes its slow path for a
 * promised answer (a close listener per request, an awaited response). Each route is instead
 * registered as one handler that calls `enter`, so Hono calls it directly and a request whose
 * steps are all synchronous (one worker: key cache, in-process rate limit, the query) returns
 * its Response synchronously, which the adapter writes at once.
 *
 * The error answer is built here rather than by Hono's `onError`, so it is logged like any
 * other; `onError` stays registered for failures outside any route.
 */
export function frontDoor(
  log: Logger,
  onError: (err: Error, c: Context<AppEnv>) => Response,
  opts: { build?: string; trustedProxies?: ReadonlySet<string> } = {},
) {
  const write = accessLogWriter(log, opts.build)
  const trusted = opts.trustedProxies ?? new Set<string>()
  const line = (c: Context<AppEnv>, id: string, r: Response, start: number) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
    write(id, c.req.method, c.req.path, {
      status: r.status,
      ms: performance.now() - start,
      keyId: c.get('apiKey')?.id,
      error: r.status >= 400 ? c.get('errorCode') : undefined,
      bytes: c.get('bodyBytes') ?? 0,
      client: clientAddress(incoming?.socket?.remoteAddress, requestHeader(c, 'x-forwarded-for'), trusted),
      userAgent: requestHeader(c, 'user-agent'),
    })
  }
  const fail = (c: Context<AppEnv>, err: unknown): Response =>
    onError(err instanceof Error ? err : new Error(String(err)), c)
  return function enter(c: Context<AppEnv>, run: Answerer): Answer {
    const id = acceptClientRequestId(requestHeader(c, 'x-request-id')) ?? randomUUID()
    c.set('requestId', id)
    setHeader(c, REQUEST_ID_HEADER, id)
    const logging = write.enabled()
    const start = logging ? performance.now() : 0
    let res: Answer
    try {
      res = run(c)
    } catch (err) {
      res = fail(c, err)
    }
    if (res instanceof Promise) {
      const settled = res.catch((err: unknown) => fail(c, err))
      if (!logging) return settled
      return settled.then((r) => {
        line(c, id, r, start)
        return r
      })
    }
    if (logging) line(c, id, res, start)
    return res
  }
}

export type FrontDoor = ReturnType<typeof frontDoor>
