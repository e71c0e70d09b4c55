import type { Context } from 'hono'
import { type OpenAPIHono, z } from '@hono/zod-openapi'
import type { AllowanceName } from '../rate-limit/middleware.js'
import type { AppEnv, RouteGuard } from './env.js'
import { ERROR_STATUS, type ErrorCode } from './errors.js'
import type { AnswerTags } from './etag.js'
import type { Answer, Answerer } from './front-door.js'
import { FeatureCollectionSchema, FormatParam, GEOJSON_TYPE, negotiateGeoJson } from './geojson.js'
import { appendHeader } from './reply.js'
import { validateRequest, type RequestSchemas, type ValidatedInput } from './validate.js'

export const ErrorBodySchema = z
  .object({
    error: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).openapi({
      example: 'ValidationError',
      description: 'The error code; each code always comes with the same HTTP status.',
    }),
    message: z.string(),
    details: z
      .union([z.array(z.object({ field: z.string(), message: z.string() })), z.record(z.string(), z.unknown())])
      .optional()
      .openapi({
        description: 'For ValidationError, one entry per invalid field; for 404s at a point, `{ nearest }`.',
      }),
    requestId: z.string().openapi({ description: 'Also sent in the X-Request-Id header.' }),
  })
  .openapi('Error')

const STANDARD_ERRORS: Record<number, string> = {
  400:
    'ValidationError: a parameter or the body is missing, malformed or out of range; `details` lists every ' +
    'invalid field.',
  401: 'ApiKeyMissing, ApiKeyInvalid, ApiKeySuspended or ApiKeyExpired (the message names the date).',
  403: 'ProductNotPermitted, CountryNotPermitted or CityNotPermitted.',
  429:
    "RateLimitExceeded: the key's requests a minute are spent (the tile and TileJSON routes: its tile allowance); " +
    '`Retry-After` gives the seconds to wait.',
  500: 'The service failed; the body carries only a generic message and the request id.',
  503:
    'RateLimitUnavailable: the store shared by several instances (Redis) cannot count the request or check the ' +
    'key now; `Retry-After` gives the seconds to wait.',
}

export interface ResponseSpec {
  description: string
  schema?: z.ZodType
  contentType?: string
}

/** One endpoint: its OpenAPI description and the zod schemas that validate it are the same objects. */
export interface RouteSpec<S extends RequestSchemas> {
  method: 'get' | 'post'
  /** OpenAPI path relative to the API root, e.g. `/plots/{plot_number}`. */
  path: string
  /** Hono path when it differs from the OpenAPI one (regex params). */
  honoPath?: string
  tags: string[]
  summary: string
  description?: string
  request: S
  /** Parameter docs that zod cannot express (examples, formats), keyed by name. */
  responses: Record<number, ResponseSpec>
  /** false for unauthenticated routes. */
  authenticated?: boolean
  /** the allowance the route counts against (src/rate-limit/middleware.ts): `default` unless given */
  allowance?: AllowanceName
  /**
   * true: the 200 answer can also be a GeoJSON FeatureCollection (src/http/geojson.ts). The router
   * adds the `format` query parameter and the `application/geo+json` content, decides the form
   * after validation (the route asks `isGeoJson(c)`), names it in the ETag and sends `Vary: Accept`.
   */
  geojson?: boolean
}

/** `Vary` of a tagged answer, and of one whose form `Accept` may choose (etag.ts appends it). */
const VARY_KEY_ACCEPT = 'X-API-KEY, Accept, Accept-Encoding'

/** The query schema with `format` added (a route answering GeoJSON too). */
function withFormat(query: z.ZodType | undefined): z.ZodType {
  if (query === undefined) return z.object({ format: FormatParam })
  const shape = (query as unknown as { shape?: Record<string, unknown> }).shape
  if (!shape || 'format' in shape) throw new Error('a GeoJSON route needs an object query schema without format')
  return (query as unknown as z.ZodObject).extend({ format: FormatParam })
}

export type RouteHandler<S extends RequestSchemas> = (
  c: Context<AppEnv>,
  input: ValidatedInput<S>,
) => Response | Promise<Response>

/**
 * The Hono handler of a route, made once at registration: the front door, and for an
 * authenticated route the key check and the rate limit, around `run` (see app.ts). `route` is
 * the route's OpenAPI path from the root, e.g. `/api/v1/parcels/{lpi}` (its metrics label).
 */
export type RouteDoor = (
  run: Answerer,
  authenticated: boolean,
  route: string,
  allowance: AllowanceName,
) => (c: Context<AppEnv>) => Answer

/**
 * The API root: registers each route in the OpenAPI registry and mounts it on Hono as one
 * handler (the door, then one validator over path, query and body, then the route). Features
 * receive an `ApiRouter` and call `add`.
 */
export class ApiRouter {
  constructor(
    readonly app: OpenAPIHono<AppEnv>,
    readonly basePath: string,
    private readonly door: RouteDoor,
    /** ETag, caching and 304 of the authenticated JSON GETs (src/http/etag.ts); absent: none */
    private readonly tags?: AnswerTags,
    /** TRUSTED_PROXIES: whose X-Forwarded-Proto and -Host name the origin of absolute URLs (request-origin.ts) */
    readonly trustedProxies: ReadonlySet<string> = new Set(),
  ) {}

  add<S extends RequestSchemas>(spec: RouteSpec<S>, guards: RouteGuard[], handler: RouteHandler<S>): void {
    const geo = spec.geojson === true
    const schemas: S = geo ? { ...spec.request, query: withFormat(spec.request.query) } : spec.request
    const responses: Record<string, unknown> = {}
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
        : { description: r.description }
    }
    if (geo) {
      const ok = responses['200'] as { content: Record<string, unknown> }
      ok.content[GEOJSON_TYPE] = { schema: FeatureCollectionSchema }
    }
    // an authenticated GET answering JSON is tagged (tiles keep their own ETag: tile-answer.ts)
    const authenticated = spec.authenticated !== false
    const tags =
      spec.method === 'get' &&
      authenticated &&
      (spec.responses[200]?.contentType ?? 'application/json') === 'application/json'
        ? this.tags
        : undefined
    if (tags && !responses['304'])
      responses['304'] = { description: 'Not modified: `If-None-Match` named the ETag of this answer.' }
    for (const [status, description] of Object.entries(STANDARD_ERRORS)) {
      if (
        spec.authenticated === false &&
        (status === '401' || status === '403' || status === '429' || status === '503')
      )
        continue
      const own = responses[status] as { description: string } | undefined
      if (!own) responses[status] = { description, content: { 'application/json': { schema: ErrorBodySchema } } }
      // a route's own 503 (its domain missing from the dataset) and the shared store's
      else if (status === '503') responses[status] = { ...own, description: `${own.description} Or ${description}` }
    }
    const request: Record<string, unknown> = {}
    if (schemas.params) request.params = schemas.params
    if (schemas.query) request.query = schemas.query
    if (schemas.body) request.body = { content: { 'application/json': { schema: schemas.body } }, required: true }
    this.app.openAPIRegistry.registerPath({
      method: spec.method,
      path: this.basePath + spec.path,
      tags: spec.tags,
      summary: spec.summary,
      description: spec.description,
      request: request as never,
      responses: responses as never,
      security: spec.authenticated === false ? [] : [{ ApiKey: [] }],
    })
    const honoPath = this.basePath + (spec.honoPath ?? spec.path.replace(/\{([^}]+)\}/g, ':$1'))
    // one handler per route: the door, guards, validation (synchronous without a body), the route
    const method = spec.method.toUpperCase()
    const run = (c: Context<AppEnv>): Answer => {
      for (const guard of guards) guard(c)
      const input = validateRequest(c, schemas)
      if (input instanceof Promise) return input.then((i) => handler(c, i))
      // the form before the tag, which names it (geojson.ts); the tag before the query, so a 304 skips it
      if (geo) {
        const form = negotiateGeoJson(c, (input.query as { format?: string }).format) ? 'geojson' : null
        if (tags === undefined) appendHeader(c, 'Vary', 'Accept')
        else return tags.check(c, method, form, VARY_KEY_ACCEPT) ?? handler(c, input)
      }
      const unchanged = tags === undefined ? null : tags.check(c, method)
      return unchanged ?? handler(c, input)
    }
    this.app.on(
      [method],
      [honoPath],
      this.door(run, authenticated, this.basePath + spec.path, spec.allowance ?? 'default'),
    )
  }
}
