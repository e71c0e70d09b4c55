import type { Context } from 'hono'
import type { ApiKeyRecord } from '../auth/types.js'
import type { DatasetSnapshot } from '../data/open-dataset.js'

/** Context variables set by the front door and the key check (see app.ts); read them with `c.get(...)`. */
export interface AppEnv {
  Variables: {
    /** Echoed or generated request id; also in `X-Request-Id` and every error body. */
    requestId: string
    /** The verified key, set on /api/v1 routes before any route runs. */
    apiKey: ApiKeyRecord
    /** Response headers gathered for this request (see reply.ts). */
    headers: Record<string, string>
    /** The error code of an error answer (errors.ts), for the access log. */
    errorCode: string
    /** Body bytes of the answer (reply.ts), for the access log. */
    bodyBytes: number
    /**
     * The build this request is served from, pinned by the front door for its whole life (see
     * DatasetHandle): its services (`Services` of src/services.ts) and its name.
     */
    snapshot: DatasetSnapshot<unknown>
    /** Set (true) when the answer is GeoJSON rather than JSON (src/http/geojson.ts). */
    geojson: boolean
    /**
     * Set on a paged list answered as GeoJSON: the trusted proxies whose forwarded headers name
     * the origin of its `links` (geojson.ts, request-origin.ts).
     */
    geojsonPaging: ReadonlySet<string>
    /**
     * Set when the query used another spelling of a parameter (param-aliases.ts): the URL under
     * canonical names, which the ETag is made from (etag.ts).
     */
    tagUrl: string
  }
}

/**
 * A synchronous check a route runs before validating its input (product, country): it throws
 * the ApiError to answer. Checks rather than middleware: each middleware link costs a closure
 * and a promise per request.
 */
export type RouteGuard = (c: Context<AppEnv>) => void
