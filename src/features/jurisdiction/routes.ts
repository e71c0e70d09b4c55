/**
 * The jurisdiction service's routes (docs/api.md "Encumbrances and jurisdiction (spec 002)"): South Africa only,
 * `jurisdiction` product. Each
 * endpoint family has its file under routes/; this index registers them in the order the
 * OpenAPI document lists the paths (and Hono matches them): keep it.
 */
import { requireCountry, requireProduct } from '../../auth/middleware.js'
import type { ApiRouter } from '../../http/openapi.js'
import { requireService, type Service } from '../../http/service-guard.js'
import type { JurisdictionQueries } from './queries.js'
import { registerAtRoute } from './routes/at.js'
import { registerBatchRoute } from './routes/batch.js'
import { registerBoundaryRoutes } from './routes/boundaries.js'
import type { JurisdictionRouteContext } from './routes/common.js'
import { registerCoverageRoute } from './routes/coverage.js'
import { registerHeatmapRoute, registerJurisdictionTileRoutes } from './routes/map.js'
import { registerParcelRoute } from './routes/parcel.js'
import { registerSearchRoute } from './routes/search.js'

export { batchAnswer } from './routes/batch.js'
export { HEATMAP_MAX_FEATURES, HEATMAP_MAX_SPAN } from './routes/map.js'
export { TILE_MIN_ZOOM } from './tiles.js'

export function registerJurisdictionRoutes(router: ApiRouter, queries: Service<JurisdictionQueries | null>): void {
  const ctx: JurisdictionRouteContext = {
    guards: [requireProduct('jurisdiction'), requireCountry('SOUTH_AFRICA')],
    service: requireService(
      queries,
      'JurisdictionDataUnavailable',
      'the boundary (jurisdiction) dataset is not installed on this deployment',
    ),
  }
  registerAtRoute(router, ctx)
  registerParcelRoute(router, ctx)
  registerBatchRoute(router, ctx)
  registerBoundaryRoutes(router, ctx)
  registerSearchRoute(router, ctx)
  registerCoverageRoute(router, ctx)
  registerHeatmapRoute(router, ctx)
  registerJurisdictionTileRoutes(router, ctx)
}
