import type { Context } from 'hono'
import { type OpenAPIHono, z } from '@hono/zod-openapi'
import type { AllowanceName } from '../rate-limit/middleware.js'
import type { AppEnv, RouteGuard } from './env.js'
import { ERROR_STATUS, type ErrorCode } from './errors.js'
import { MAX_BODY_BYTES } from './body-limit.js'
import type { AnswerTags } from './etag.js'
import type { Answer, Answerer } from './front-door.js'
import { FeatureCollectionSchema, FormatParam, GEOJSON_TYPE, negotiateGeoJson } from './geojson.js'
import { HEADER_COMPONENTS, OWN_HEADER_COMPONENTS, responseHeaders } from './openapi-headers.js'
import { AliasPlan, withAliasDocs } from './param-aliases.js'
import { appendHeader } from './reply.js'
import { MVT_CONTENT_TYPE } from './tile-answer.js'
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
  /** several media types, each with its schema (instead of `schema` and `contentType`) */
  contentTypes?: Record<string, z.ZodType>
  /** headers beyond the rule's (openapi-headers.ts OWN_HEADER_COMPONENTS), by name */
  headers?: readonly string[]
}

/**
 * A group of operations in the document: one per service. The document lists each tag once, with
 * its description, in the order routes first name it; generated clients make one class of it.
 */
export interface ApiTag {
  name: string
  description: string
}

/** An operationId: camelCase, letters and digits, a verb first (`getParcelAt`). */
const OPERATION_ID = /^[a-z]+[A-Z][A-Za-z0-9]*$/

/** One endpoint: its OpenAPI description and the zod schemas that validate it are the same objects. */
export interface RouteSpec<S extends RequestSchemas> {
  method: 'get' | 'post' | 'delete'
  /** OpenAPI path relative to the API root, e.g. `/plots/{plot_number}`. */
  path: string
  /** Hono path when it differs from the OpenAPI one (regex params). */
  honoPath?: string
  /**
   * The operation's name in generated clients: camelCase, unique, and stable (renaming one
   * renames a method of every client generated since), e.g. `getParcelAt`.
   */
  operationId: string
  /** The service the operation belongs to (one tag). */
  tags: readonly ApiTag[]
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
   * A paged list (its query takes `cursor`) answered as GeoJSON carries `numberReturned` and
   * `links` to its pages.
   */
  geojson?: boolean
  /**
   * true: an authenticated JSON GET whose answer changes while the build does not (a bulk job's
   * status): no ETag, no 304 (its answers say `Cache-Control: no-store` themselves).
   */
  untagged?: boolean
  /**
   * A body the route reads itself as a stream (a bulk job's upload), documented with these media
   * types, capped at `maxBytes` by the route (413) rather than by the 2 MB limit of JSON bodies.
   */
  rawBody?: { description: string; content: Record<string, z.ZodType>; maxBytes: number }
  /**
   * true: answered, but left out of the document. Only for a URL kept for old clients whose path
   * the document cannot hold beside another (docs/api.md "OpenAPI document").
   */
  hidden?: boolean
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

/** A query that takes a `cursor` is a paged list. */
function isPaged(query: z.ZodType | undefined): boolean {
  const shape = (query as unknown as { shape?: Record<string, unknown> } | undefined)?.shape
  return shape !== undefined && 'cursor' in shape
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
  /** the route reads and caps its body itself (RouteSpec.rawBody) */
  ownBody: boolean,
) => (c: Context<AppEnv>) => Answer

/** A registered operation, as a bulk job runs it (src/jobs): its path, checks and schemas. */
export interface RegisteredOperation {
  operationId: string
  method: 'get' | 'post' | 'delete'
  /** OpenAPI path relative to the API root, e.g. `/parcels/{lpi}` */
  path: string
  guards: readonly RouteGuard[]
  schemas: RequestSchemas
  aliases: AliasPlan | null
  /** the schema of its 200 JSON answer, when it has one (a job's CSV columns come from it) */
  answer: z.ZodType | undefined
}

/**
 * The API root: registers each route in the OpenAPI registry and mounts it on Hono as one
 * handler (the door, then one validator over path, query and body, then the route). Features
 * receive an `ApiRouter` and call `add`.
 */
export class ApiRouter {
  private readonly tagList = new Map<string, ApiTag>()
  private readonly operationIds = new Set<string>()
  private readonly operations = new Map<string, RegisteredOperation>()

  constructor(
    readonly app: OpenAPIHono<AppEnv>,
    readonly basePath: string,
    private readonly door: RouteDoor,
    /** ETag, caching and 304 of the authenticated JSON GETs (src/http/etag.ts); absent: none */
    private readonly tags?: AnswerTags,
    /** TRUSTED_PROXIES: whose X-Forwarded-Proto and -Host name the origin of absolute URLs (request-origin.ts) */
    readonly trustedProxies: ReadonlySet<string> = new Set(),
  ) {
    for (const [name, header] of Object.entries({ ...HEADER_COMPONENTS, ...OWN_HEADER_COMPONENTS }))
      app.openAPIRegistry.registerComponent('headers', name, header)
  }

  /** The operation registered under `operationId`, or undefined. */
  operation(operationId: string): RegisteredOperation | undefined {
    return this.operations.get(operationId)
  }

  /** The tags the documented routes name, each once, for the document's top-level `tags`. */
  documentTags(): ApiTag[] {
    return [...this.tagList.values()]
  }

  /** Checks the route's operationId and tags, and records them (a mistake stops the start). */
  private name<S extends RequestSchemas>(spec: RouteSpec<S>): void {
    if (!OPERATION_ID.test(spec.operationId))
      throw new Error(`operationId ${spec.operationId} of ${spec.path} is not camelCase`)
    if (this.operationIds.has(spec.operationId)) throw new Error(`operationId ${spec.operationId} is used twice`)
    this.operationIds.add(spec.operationId)
    if (spec.hidden) return
    for (const tag of spec.tags) {
      const known = this.tagList.get(tag.name)
      if (known === undefined) this.tagList.set(tag.name, tag)
      else if (known.description !== tag.description) throw new Error(`tag ${tag.name} has two descriptions`)
    }
  }

  add<S extends RequestSchemas>(spec: RouteSpec<S>, guards: RouteGuard[], handler: RouteHandler<S>): void {
    this.name(spec)
    const geo = spec.geojson === true
    const schemas: S = geo ? { ...spec.request, query: withFormat(spec.request.query) } : spec.request
    // the other spellings of its parameters the route accepts (param-aliases.ts)
    const aliases = AliasPlan.of(schemas.query)
    this.operations.set(spec.operationId, {
      operationId: spec.operationId,
      method: spec.method,
      path: spec.path,
      guards,
      schemas,
      aliases,
      answer: spec.responses[200]?.schema,
    })
    // a paged list (it takes a cursor) answered as GeoJSON carries links to its pages (geojson.ts)
    const paging = geo && isPaged(schemas.query) ? this.trustedProxies : undefined
    const responses: Record<string, unknown> = {}
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = r.contentTypes
        ? {
            description: r.description,
            content: Object.fromEntries(Object.entries(r.contentTypes).map(([t, schema]) => [t, { schema }])),
          }
        : r.schema
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
      spec.untagged !== true &&
      (spec.responses[200]?.contentType ?? 'application/json') === 'application/json'
        ? this.tags
        : undefined
    if (tags && !responses['304'])
      responses['304'] = { description: 'Not modified: `If-None-Match` named the ETag of this answer.' }
    // every body is limited (app.ts): the 413 of each operation that takes one
    if (spec.rawBody && !responses['413'])
      responses['413'] = {
        description: `PayloadTooLarge: the body is larger than ${spec.rawBody.maxBytes} bytes; the connection is closed.`,
        content: { 'application/json': { schema: ErrorBodySchema } },
      }
    if (schemas.body && !responses['413'])
      responses['413'] = {
        description: `PayloadTooLarge: the body is larger than ${MAX_BODY_BYTES} bytes; the connection is closed.`,
        content: { 'application/json': { schema: ErrorBodySchema } },
      }
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
    // the headers of each answer, by the rule of openapi-headers.ts: a tagged route's 200 and
    // 304 carry the ETag, a tile route's (its own, tile-answer.ts) its 204 too
    const tile = spec.responses[200]?.contentType === MVT_CONTENT_TYPE
    const etagStatuses = new Set(tile ? ['200', '204', '304'] : tags ? ['200', '304'] : [])
    for (const [status, r] of Object.entries(responses) as [string, { content?: object }][]) {
      const types = Object.keys(r.content ?? {})
      const own = spec.responses[Number(status)]?.headers
      responses[status] = { ...r, headers: responseHeaders({ authenticated, etagStatuses }, status, types, own) }
    }
    if (!spec.hidden) this.register(spec, schemas, responses, aliases)
    const honoPath = this.basePath + (spec.honoPath ?? spec.path.replace(/\{([^}]+)\}/g, ':$1'))
    // one handler per route: the door, guards, validation (synchronous without a body), the route
    const method = spec.method.toUpperCase()
    const run = (c: Context<AppEnv>): Answer => {
      for (const guard of guards) guard(c)
      const input = validateRequest(c, schemas, aliases)
      if (input instanceof Promise) return input.then((i) => handler(c, i))
      // the form before the tag, which names it (geojson.ts); the tag before the query, so a 304 skips it
      if (geo) {
        const form = negotiateGeoJson(c, (input.query as { format?: string }).format, paging) ? 'geojson' : null
        if (tags === undefined) appendHeader(c, 'Vary', 'Accept')
        else return tags.check(c, method, form, VARY_KEY_ACCEPT) ?? handler(c, input)
      }
      const unchanged = tags === undefined ? null : tags.check(c, method)
      return unchanged ?? handler(c, input)
    }
    this.app.on(
      [method],
      [honoPath],
      this.door(run, authenticated, this.basePath + spec.path, spec.allowance ?? 'default', spec.rawBody !== undefined),
    )
  }

  /** Puts the route into the OpenAPI registry. */
  private register<S extends RequestSchemas>(
    spec: RouteSpec<S>,
    schemas: RequestSchemas,
    responses: Record<string, unknown>,
    aliases: AliasPlan | null,
  ): void {
    const request: Record<string, unknown> = {}
    if (schemas.params) request.params = schemas.params
    if (schemas.query) request.query = aliases ? withAliasDocs(schemas.query, aliases) : schemas.query
    if (schemas.body) request.body = { content: { 'application/json': { schema: schemas.body } }, required: true }
    if (spec.rawBody)
      request.body = {
        description: spec.rawBody.description,
        content: Object.fromEntries(Object.entries(spec.rawBody.content).map(([t, schema]) => [t, { schema }])),
        required: true,
      }
    this.app.openAPIRegistry.registerPath({
      method: spec.method,
      path: this.basePath + spec.path,
      operationId: spec.operationId,
      tags: spec.tags.map((t) => t.name),
      summary: spec.summary,
      description: spec.description,
      request: request as never,
      responses: responses as never,
      security: spec.authenticated === false ? [] : [{ ApiKey: [] }],
    })
  }
}
