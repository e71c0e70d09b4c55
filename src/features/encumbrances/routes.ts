/**
 * The encumbrance service's routes (docs/api.md "Encumbrances and jurisdiction (spec 002)"): South Africa only,
 * `encumbrance` product. One
 * file per endpoint family under routes/, registered here in the order of the OpenAPI paths
 * (which is also the order Hono matches them in: `/encumbrances/{encumbrance_uid}` comes last).
 *
 * @module
 */
import { requireCountry, requireProduct } from '../../auth/middleware.js'
import type { OgcCollection } from '../../http/ogc/collection.js'
import type { ApiRouter } from '../../http/openapi.js'
import { requireService, type Service } from '../../http/service-guard.js'
import { encumbranceCollection } from './ogc.js'
import type { EncumbranceQueries } from './queries.js'
import { registerAtRoute } from './routes/at.js'
import { registerBatchRoute } from './routes/batch.js'
import { registerCoverageRoute } from './routes/coverage.js'
import { registerDetailRoute } from './routes/detail.js'
import { registerHeatmapRoute } from './routes/heatmap.js'
import { registerIntersectRoute } from './routes/intersect.js'
import { registerParcelRoutes } from './routes/parcel.js'
import { registerSearchRoute } from './routes/search.js'
import { registerEncumbranceTileRoutes } from './routes/tiles.js'
import { registerWithinRoute } from './routes/within.js'

export function registerEncumbranceRoutes(router: ApiRouter, queries: Service<EncumbranceQueries | null>): void {
  const { guards, service } = encumbranceRoutesOf(queries)
  registerParcelRoutes(router, guards, service)
  registerAtRoute(router, guards, service)
  registerWithinRoute(router, guards, service)
  registerIntersectRoute(router, guards, service)
  registerSearchRoute(router, guards, service)
  registerBatchRoute(router, guards, service)
  registerCoverageRoute(router, guards, service)
  registerHeatmapRoute(router, guards, service)
  registerEncumbranceTileRoutes(router, guards, service)
  registerDetailRoute(router, guards, service)
}

/** The encumbrances as an OGC API - Features collection (ogc.ts), behind the same guards as the routes. */
export function encumbranceOgcCollection(queries: Service<EncumbranceQueries | null>): OgcCollection {
  const { guards, service } = encumbranceRoutesOf(queries)
  return encumbranceCollection(guards, service)
}

function encumbranceRoutesOf(queries: Service<EncumbranceQueries | null>) {
  return {
    guards: [requireProduct('encumbrance'), requireCountry('SOUTH_AFRICA')],
    service: requireService(
      queries,
      'EncumbranceDataUnavailable',
      'the encumbrance dataset is not installed on this deployment',
    ),
  }
}
