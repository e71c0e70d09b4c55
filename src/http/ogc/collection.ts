/**
 * A collection of the OGC API - Features facade (docs/api.md "OGC API - Features (GDAL, QGIS)"):
 * what a feature hands the facade so that its records can be read as OGC features. The facade
 * (routes.ts) owns the protocol (paths, documents, links, `limit`, `bbox`, errors); a collection
 * owns its records: its query and paging, its cursor, its Features and their ids. Each feature
 * builds its collection from its own routes' guards and query functions (features never import
 * each other), and src/app.ts hands the collections to the facade.
 *
 * @module
 */
import type { Context } from 'hono'
import type { BBox } from '../../geo/polygon.js'
import type { AppEnv, RouteGuard } from '../env.js'
import type { ApiError, ErrorCode } from '../errors.js'
import type { Feature } from '../geojson.js'

/** What a page of items is asked for: the box (null: everywhere), the page size, the cursor of `next`. */
export interface ItemsRequest {
  bbox: BBox | null
  limit: number
  cursor: string | undefined
}

/** A page of a collection's features, in the collection's order. */
export interface ItemsPage {
  features: Feature[]
  /** the cursor of the next page, or null on the last */
  next: string | null
  /** every feature the request matches, on all pages, when known exactly and cheaply */
  matched?: number
}

export interface OgcCollection {
  /** the collection's id in its paths (`parcels`) */
  readonly id: string
  readonly title: string
  readonly description: string
  /** the checks of the feature's own routes (product, country): a key they refuse does not see the collection */
  readonly guards: readonly RouteGuard[]
  /**
   * West, south, east, north of the collection's data in the request's build, or null when it
   * holds none. Throws the feature's 503 when the build lacks its domain.
   */
  extent(c: Context<AppEnv>): [number, number, number, number] | null
  /** A page of features; throws a ValidationError naming `cursor` for a cursor it did not issue. */
  items(c: Context<AppEnv>, request: ItemsRequest): ItemsPage
  /** The feature whose `id` is `id` (as text from the path), or null when there is none. */
  item(c: Context<AppEnv>, id: string): Feature | null
  /** The 404 of an id that names no feature (the feature's own code: `ParcelNotFound`…). */
  notFound(id: string): ApiError
  /** The codes of that 404 and of the 503 when the build lacks the domain, for the OpenAPI document. */
  readonly codes: { readonly notFound: ErrorCode; readonly unavailable: ErrorCode }
}
