/**
 * The parcel cadastre's routes, one file per endpoint family under routes/, registered in the
 * order the OpenAPI document lists them and Hono matches them (`/parcels/{lpi}` last).
 */
import { requireCountry, requireProduct } from '../../auth/middleware.js'
import type { OgcCollection } from '../../http/ogc/collection.js'
import type { ApiRouter } from '../../http/openapi.js'
import { requireService, type Service } from '../../http/service-guard.js'
import { parcelCollection } from './ogc.js'
import type { ParcelQueries } from './queries.js'
import { registerAtRoute } from './routes/at.js'
import { registerBatchRoute } from './routes/batch.js'
import { registerCoverageRoute } from './routes/coverage.js'
import { registerGeometryRoute } from './routes/geometry.js'
import { registerByLpiRoute, registerBySourceKeyRoute } from './routes/lookup.js'
import { registerRelationRoutes } from './routes/relations.js'
import type { ParcelRoutes } from './routes/shared.js'
import { registerParcelTileRoutes } from './routes/tiles.js'
import { registerWithinRoute } from './routes/within.js'

/** The parcel cadastre service (docs/api.md "Parcel cadastre (spec 001)"): South Africa only, `parcels` product. */
export function registerParcelRoutes(router: ApiRouter, queries: Service<ParcelQueries | null>): void {
  const routes = parcelRoutesOf(queries)
  registerAtRoute(router, routes)
  registerWithinRoute(router, routes)
  registerCoverageRoute(router, routes)
  registerBatchRoute(router, routes)
  registerBySourceKeyRoute(router, routes)
  registerGeometryRoute(router, routes)
  registerRelationRoutes(router, routes)
  registerParcelTileRoutes(router, routes)
  registerByLpiRoute(router, routes)
}

/** The parcels as an OGC API - Features collection (ogc.ts), behind the same guards as the routes. */
export function parcelOgcCollection(queries: Service<ParcelQueries | null>): OgcCollection {
  return parcelCollection(parcelRoutesOf(queries))
}

function parcelRoutesOf(queries: Service<ParcelQueries | null>): ParcelRoutes {
  return {
    guards: [requireProduct('parcels'), requireCountry('SOUTH_AFRICA')],
    service: requireService(queries, 'ParcelDataUnavailable', 'the parcel dataset is not installed on this deployment'),
  }
}
