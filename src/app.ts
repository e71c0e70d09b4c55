import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, Next } from 'hono'
import type { H, RouterRoute } from 'hono/types'
import { bodyLimit } from 'hono/body-limit'
import type { Logger } from 'pino'
import { API_KEY_HEADER, authenticate } from './auth/middleware.js'
import type { ApiKeyRecord, KeyVerifier } from './auth/types.js'
import { describeIntegrity, type IntegrityStatus } from './data/integrity.js'
import type { DatasetHandle } from './data/open-dataset.js'
import { mountDocs } from './http/docs.js'
import type { AppEnv } from './http/env.js'
import { Cors } from './http/cors.js'
import { AnswerTags } from './http/etag.js'
import { ApiError, handleError, handleNotFound, handleWrongMethod } from './http/errors.js'
import { MAX_BODY_BYTES } from './http/body-limit.js'
import { fixedJson } from './http/fixed-document.js'
import { frontDoor, type Answer, type Answerer } from './http/front-door.js'
import { ApiRouter } from './http/openapi.js'
import { registerOgcRoutes } from './http/ogc/routes.js'
import { PrefixRouter } from './http/prefix-router.js'
import { requestHeader } from './http/request-header.js'
import { encumbranceOgcCollection, registerEncumbranceRoutes } from './features/encumbrances/routes.js'
import { internalOf } from './http/internal-request.js'
import { registerJurisdictionRoutes } from './features/jurisdiction/routes.js'
import { parcelOgcCollection, registerParcelRoutes } from './features/parcels/routes.js'
import { registerPlotRoutes } from './features/plots/routes.js'
import { appRows } from './jobs/app-rows.js'
import { jobOperations } from './jobs/operations.js'
import { registerJobRoutes, type JobsDeps } from './jobs/routes.js'
import { JobRunner, type RunnerOptions } from './jobs/runner.js'
import { type RowThreads, threadRows } from './jobs/thread-rows.js'
import { mountMap } from './features/map/routes.js'
import {
  type Allowance,
  type AllowanceName,
  countRequest,
  type HeaderSyntax,
  REQUESTS,
  tileAllowance,
} from './rate-limit/middleware.js'
import type { RateLimiter } from './rate-limit/types.js'
import type { Services } from './services.js'
import { json } from './http/reply.js'
import { type AppMetrics, UNMATCHED } from './metrics/metrics.js'

export interface AppDeps {
  log: Logger
  keys: KeyVerifier
  limiter: RateLimiter
  data: DatasetHandle<Services>
  /** the dataset's integrity check (src/data/integrity.ts): `/readyz` answers 503 once it fails; absent: `off` */
  integrity?: IntegrityStatus
  /** injectable for tests */
  clock?: () => number
  /** further routes, mounted after the services' as they are (tests) */
  routes?: (router: ApiRouter) => void
  /** why the server is not ready (draining, a failed check), or null when it is: /readyz answers 503 with it */
  readiness?: () => string | null
  /** why a store every request needs (Redis) cannot be used, or null: /readyz answers 503 `unavailable` with it */
  unavailable?: () => string | null
  /**
   * the served build, named in every access-log line (the dataset directory's name) when the
   * request's snapshot does not name one (it does: `data` names each build it serves)
   */
  build?: string
  /** proxies whose X-Forwarded-For names the client in the access log (TRUSTED_PROXIES) */
  trustedProxies?: ReadonlySet<string>
  /** the Prometheus metrics (src/metrics), absent when METRICS_PORT is unset: nothing is recorded */
  metrics?: AppMetrics
  /** origins whose pages may call the API from a browser (CORS_ORIGINS); absent or empty: no CORS */
  corsOrigins?: readonly string[]
  /** tile requests per minute of a key without a tile allowance of its own (TILE_RATE_PER_MINUTE); default 1200 */
  tileRatePerMinute?: number
  /** the RateLimit headers' syntax (RATE_LIMIT_HEADERS); default the specs' (draft-07) */
  rateLimitHeaders?: HeaderSyntax
  /**
   * bulk jobs (src/jobs, docs/api.md "Bulk jobs"): their routes, and a runner of their rows,
   * handed to `runner` to start and stop; absent: no /jobs routes. The rows are answered on
   * `threads` (the server's), each by an app of its own over the job's build; without it, by this
   * app on the calling thread
   */
  jobs?: JobsDeps & { runner?: (make: (opts: RunnerSettings) => JobRunner) => void; threads?: RowThreads }
}

/** What a job runner is made with beyond the store, the files and the app (src/jobs/runner.ts). */
export type RunnerSettings = Omit<RunnerOptions, 'store' | 'dir' | 'open' | 'clock' | 'retentionMs'>

/** The services of the build the request pinned (the front door sets `snapshot` from `deps.data`). */
const servicesOf = (c: Context<AppEnv>): Services => c.get('snapshot').services as Services

export const API_BASE = '/api/v1'
/** Request bodies above this answer 413 before they are read whole (src/http/body-limit.ts). */
export { MAX_BODY_BYTES }

export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const clock = deps.clock ?? Date.now
  // routes picked by service first, then one regular expression per route of that service
  // (see PrefixRouter for why not Hono's default router)
  const routes = new PrefixRouter<[H, RouterRoute]>(API_BASE)
  const app = new OpenAPIHono<AppEnv>({ router: routes })
  // every route is one handler: the front door around the gate (API routes) around the route
  // (see frontDoor for why not middleware); onError only answers failures outside them
  const onError = handleError(deps.log)
  const enter = frontDoor(deps.log, onError, {
    build: deps.build,
    trustedProxies: deps.trustedProxies,
    metrics: deps.metrics,
    pins: deps.data,
  })
  app.onError(onError)
  // CORS_ORIGINS: the CORS headers gathered before anything answers, and preflights answered
  // before the key is asked for (src/http/cors.ts); none: no step at all
  const cors = deps.corsOrigins?.length ? new Cors(deps.corsOrigins, (m, p) => routes.allowed(m, p)) : null
  // built once per route, so a request allocates no closure on its way in; `route` is the
  // route's pattern, its metrics label (never the raw path)
  const open = (handler: Answerer, route: string) => {
    const metrics = deps.metrics?.route(route)
    if (cors === null) return (c: Context<AppEnv>) => enter(c, handler, metrics)
    const crossing: Answerer = (c) => cors.around(c, handler)
    return (c: Context<AppEnv>) => enter(c, crossing, metrics)
  }

  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      // the rest of the body is not read: the connection cannot carry another request, and the
      // answer says so rather than promise keep-alive
      throw new ApiError('PayloadTooLarge', `the request body is larger than ${MAX_BODY_BYTES} bytes`, undefined, {
        Connection: 'close',
      })
    },
  })
  const keyHeader = API_KEY_HEADER.toLowerCase()
  // every authenticated request: the body limit, the key (401), the rate limit (429, headers on
  // every answer), then `run`; synchronous when the key and the count are known at once
  const syntax = deps.rateLimitHeaders ?? 'draft-07'
  const allowances: Record<AllowanceName, Allowance> = {
    default: REQUESTS,
    tiles: tileAllowance(deps.tileRatePerMinute ?? 1200),
  }
  const gated = (c: Context<AppEnv>, run: Answerer, allowance: Allowance = REQUESTS, ownBody = false): Answer => {
    // a bulk job's row: the job's key, counted when the job was submitted (src/http/internal-request.ts)
    const internal = internalOf(c)
    if (internal !== undefined) {
      c.set('apiKey', internal.key)
      return run(c)
    }
    // GET and HEAD bodies are never read; skipping them keeps @hono/node-server from building a
    // full WHATWG Request per query (about a sixth of the CPU of a /plots/reverse request).
    // bodyLimit returns what its `next` returns: here the answer. A route that reads its body
    // as a stream caps it itself (a bulk job's upload).
    return c.req.method === 'GET' || c.req.method === 'HEAD' || ownBody
      ? gate(c, run, allowance)
      : (limitBody(c, (async () => gate(c, run, allowance)) as unknown as Next) as Promise<Response>)
  }
  const gate = (c: Context<AppEnv>, run: Answerer, allowance: Allowance): Answer => {
    const now = clock()
    const key = authenticate(deps.keys, requestHeader(c, keyHeader), now)
    if (key instanceof Promise) return key.then((k) => admit(c, k, now, run, allowance))
    return admit(c, key, now, run, allowance)
  }
  const admit = (c: Context<AppEnv>, key: ApiKeyRecord, now: number, run: Answerer, allowance: Allowance): Answer => {
    c.set('apiKey', key)
    const counted = countRequest(c, deps.limiter, key, now, allowance, syntax)
    return counted instanceof Promise ? counted.then(() => run(c)) : run(c)
  }
  // no route: 405 with `Allow` when the path has routes for other methods, else 404; under the
  // API root the key and the count come first (401 before 404 or 405), as for a route
  const miss: Answerer = (c) => {
    const allow = routes.allowed(c.req.method, c.req.path)
    return allow === null ? handleNotFound(c) : handleWrongMethod(c, allow)
  }
  const notFound: Answerer = (c) => (c.req.path.startsWith(`${API_BASE}/`) ? gated(c, miss) : miss(c))
  app.notFound(open(notFound, UNMATCHED))

  app.get(
    '/healthz',
    open((c) => json(c, { status: 'ok' }), '/healthz'),
  )
  app.get(
    '/readyz',
    open((c) => {
      const served = c.get('snapshot')
      const ds = served.dataset
      // the build being served: its directory's name and digest (docs/operations.md "Swapping datasets")
      const build = { name: served.build, build_digest: ds.manifest.build_digest ?? null }
      const domains = Object.fromEntries(
        (['plots', 'parcels', 'encumbrances', 'jurisdiction'] as const).map((d) => {
          const m = ds.domain(d)
          return [d, m ? { dataset_version: m.dataset_version, as_of: m.as_of } : null]
        }),
      )
      const state = deps.integrity?.stateOf(ds.dir) ?? 'off'
      const integrity = describeIntegrity(state)
      // a file that does not match the manifest: out of rotation until the process is replaced
      if (typeof state === 'object')
        return json(c, { status: 'failed', integrity, reason: state.reason, build, domains }, 503)
      const reason = deps.readiness?.() ?? null
      if (reason !== null) return json(c, { status: 'not_ready', reason, integrity, build, domains }, 503)
      const missing = deps.unavailable?.() ?? null
      if (missing !== null) return json(c, { status: 'unavailable', reason: missing, integrity, build, domains }, 503)
      return json(c, { status: 'ready', integrity, build, domains })
    }, '/readyz'),
  )

  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-KEY',
  })
  // made once, tagged and compressed once (src/http/fixed-document.ts)
  const openapi = fixedJson(() =>
    app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Land-data API: South Africa and Botswana',
        version: '1.0.0',
        description:
          'Plots and erven, the South African parcel cadastre, encumbrances and jurisdiction. Every /api/v1 ' +
          'request except this document needs `X-API-KEY`. ' +
          'Every authenticated response carries `RateLimit-Policy` and `RateLimit` (the form of ' +
          'draft-ietf-httpapi-ratelimit-headers-07 by default, of draft-11 with RATE_LIMIT_HEADERS=draft-11); tile and ' +
          "TileJSON routes count against the key's tile allowance, the others against its requests. A valid W3C " +
          '`traceparent` is written to the access log. Every response carries ' +
          '`X-Request-Id` and `X-Content-Type-Options: nosniff`. ' +
          'Errors share one body: `error`, `message`, `details`, `requestId`, with `Cache-Control: no-store`. ' +
          'Every other answer of an authenticated JSON GET carries a strong `ETag`, `Cache-Control: private, ' +
          'max-age=60` and `Vary: X-API-KEY, Accept-Encoding` (the 304 too); `If-None-Match` naming the ETag answers 304. JSON answers and tiles over ' +
          '1 KB are compressed (br or gzip) as `Accept-Encoding` allows, the ETag then suffixed `-br` or `-gzip`. ' +
          'A path asked with a method it does not have answers 405 `MethodNotAllowed` with `Allow`. A request ' +
          'that is not valid HTTP/1.1 answers 400, one with headers over 16 KB 431 ' +
          '`RequestHeaderFieldsTooLarge`, and one not sent within the server timeouts 408 `RequestTimeout`; ' +
          'these three close the connection.',
        // the project's licence (LICENSE), as an SPDX identifier; OpenAPI 3.1 has `identifier`, the
        // config's type is 3.0's, and the generator copies the object as it is
        license: { name: 'MIT', identifier: 'MIT' } as { name: string },
      },
      // the paths name the API root (/api/v1) themselves, so the server is the origin that
      // serves this document: a relative URL, right behind any host or proxy (docs/api.md)
      servers: [{ url: '/', description: 'The server that serves this document; every path starts at the API root.' }],
      tags: router.documentTags(),
    }),
  )
  app.get(`${API_BASE}/openapi.json`, open(openapi, `${API_BASE}/openapi.json`))
  mountDocs(app, `${API_BASE}/openapi.json`, open)
  // the map page and its files, no key (the page asks for one): docs/map.md
  mountMap(app, open)

  const router = new ApiRouter(
    app,
    API_BASE,
    (run, authenticated, route, allowance, ownBody) => {
      const counted = allowances[allowance]
      return open(authenticated ? (c) => gated(c, run, counted, ownBody) : run, route)
    },
    new AnswerTags((c) => c.get('snapshot').dataset),
    deps.trustedProxies,
  )
  // every service is read from the build the request pinned (the front door's `snapshot`)
  registerPlotRoutes(router, (c) => servicesOf(c).plots)
  registerParcelRoutes(router, (c) => servicesOf(c).parcels)
  registerEncumbranceRoutes(router, (c) => servicesOf(c).encumbrances)
  registerJurisdictionRoutes(router, (c) => servicesOf(c).jurisdiction)
  // the OGC API - Features view of the lists that page through everything (docs/api.md)
  registerOgcRoutes(router, [
    parcelOgcCollection((c) => servicesOf(c).parcels),
    encumbranceOgcCollection((c) => servicesOf(c).encumbrances),
  ])
  const jobs = deps.jobs
  if (jobs) {
    const operation = jobOperations(router)
    registerJobRoutes(router, jobs, clock, operation)
    const open = jobs.threads
      ? threadRows(jobs.threads, deps.data, API_BASE, operation)
      : appRows(app, deps.data, API_BASE, operation)
    jobs.runner?.((opts) => {
      const runner = new JobRunner({
        ...opts,
        store: jobs.store,
        dir: jobs.dir,
        open,
        clock,
        retentionMs: jobs.retentionMs,
      })
      jobs.wake = () => void runner.wake()
      return runner
    })
  }
  deps.routes?.(router)

  return app
}
