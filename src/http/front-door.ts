import { randomUUID } from 'node:crypto'
import type { Context } from 'hono'
import type { Logger } from 'pino'
import type { DatasetSnapshot } from '../data/open-dataset.js'
import type { AppEnv } from './env.js'
import type { IncomingMessage } from 'node:http'
import { clientAddress } from './client-address.js'
import { internalOf } from './internal-request.js'
import { accessLogWriter } from './log.js'
import { acceptClientRequestId, acceptTraceparent, REQUEST_ID_HEADER } from './request-id.js'
import { requestHeader } from './request-header.js'
import { setHeader } from './reply.js'
import type { AppMetrics, RouteMetrics } from '../metrics/metrics.js'

/** An answer, at once when every step was synchronous. */
export type Answer = Response | Promise<Response>
/** What answers one request (a route, the not-found answer, or the gate around either). */
export type Answerer = (c: Context<AppEnv>) => Answer

/** Where the front door pins the served build for a request (a DatasetHandle). */
export interface SnapshotPins {
  acquire(): DatasetSnapshot<unknown>
  release(s: DatasetSnapshot<unknown>): void
}

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
 *
 * With metrics on (docs/operations.md "Metrics"), the answer is also recorded under `route`,
 * the route's metrics made once when it was registered (its pattern, never the raw path), and
 * an error answer under its code.
 *
 * With `pins`, the request holds the snapshot serving when it came in (its dataset, services and
 * build name, `c.get('snapshot')`) until it has answered, so a dataset switch never closes files
 * under it and it never mixes two builds.
 */
export function frontDoor(
  log: Logger,
  onError: (err: Error, c: Context<AppEnv>) => Response,
  opts: { build?: string; trustedProxies?: ReadonlySet<string>; metrics?: AppMetrics; pins?: SnapshotPins } = {},
) {
  const pins = opts.pins
  const write = accessLogWriter(log, opts.build)
  const trusted = opts.trustedProxies ?? new Set<string>()
  const errors = opts.metrics?.errors
  const record = (c: Context<AppEnv>, route: RouteMetrics, r: Response, ms: number) => {
    route.observe(r.status, ms / 1000)
    if (r.status >= 400) errors!.inc(c.get('errorCode') ?? 'unknown')
  }
  // after the answer: its metrics, then its access-log line
  const done = (
    c: Context<AppEnv>,
    id: string,
    r: Response,
    start: number,
    route: RouteMetrics | undefined,
    logging: boolean,
  ) => {
    const ms = performance.now() - start
    if (route !== undefined) record(c, route, r, ms)
    if (logging) line(c, id, r, ms)
  }
  const line = (c: Context<AppEnv>, id: string, r: Response, ms: number) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
    write(id, c.req.method, c.req.path, {
      status: r.status,
      ms,
      keyId: c.get('apiKey')?.id,
      error: r.status >= 400 ? c.get('errorCode') : undefined,
      bytes: c.get('bodyBytes') ?? 0,
      client: clientAddress(incoming?.socket?.remoteAddress, requestHeader(c, 'x-forwarded-for'), trusted),
      userAgent: requestHeader(c, 'user-agent'),
      build: c.get('snapshot')?.build,
      traceparent: acceptTraceparent(requestHeader(c, 'traceparent')),
    })
  }
  const fail = (c: Context<AppEnv>, err: unknown): Response =>
    onError(err instanceof Error ? err : new Error(String(err)), c)
  /** `route`: the route's metrics, or undefined with metrics off */
  return function enter(c: Context<AppEnv>, run: Answerer, route?: RouteMetrics): Answer {
    // a bulk job's row: its job's build, no access-log line or metrics of its own (internal-request.ts)
    const internal = internalOf(c)
    if (internal !== undefined) {
      c.set('snapshot', internal.snapshot)
      c.set('requestId', randomUUID())
      try {
        const res = run(c)
        return res instanceof Promise ? res.catch((err: unknown) => fail(c, err)) : res
      } catch (err) {
        return fail(c, err)
      }
    }
    // one build for the request's whole life, even across a switch (docs/operations.md "Swapping datasets")
    const snapshot = pins === undefined ? undefined : pins.acquire()
    if (snapshot !== undefined) c.set('snapshot', snapshot)
    const id = acceptClientRequestId(requestHeader(c, 'x-request-id')) ?? randomUUID()
    c.set('requestId', id)
    setHeader(c, REQUEST_ID_HEADER, id)
    const logging = write.enabled()
    const timing = logging || route !== undefined
    const start = timing ? performance.now() : 0
    let res: Answer
    try {
      res = run(c)
    } catch (err) {
      res = fail(c, err)
    }
    if (res instanceof Promise) {
      const settled = res.catch((err: unknown) => fail(c, err))
      if (!timing && snapshot === undefined) return settled
      return settled.then((r) => {
        if (timing) done(c, id, r, start, route, logging)
        if (snapshot !== undefined) pins!.release(snapshot)
        return r
      })
    }
    if (timing) done(c, id, res, start, route, logging)
    if (snapshot !== undefined) pins!.release(snapshot)
    return res
  }
}

export type FrontDoor = ReturnType<typeof frontDoor>
