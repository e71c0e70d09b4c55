/**
 * `GET /encumbrances/tiles/{z}/{x}/{y}.mvt`: vector tiles keyed by class, and
 * `GET /encumbrances/tiles.json`, their TileJSON (src/http/tile-routes.ts).
 *
 * @module
 */
import type { RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { registerTileRoutes } from '../../../http/tile-routes.js'
import { TileQuerySchema } from '../schemas.js'
import { TILE_MIN_ZOOM } from '../tiles.js'
import { TAG, type EncumbranceService } from './shared.js'

export function registerEncumbranceTileRoutes(
  router: ApiRouter,
  guards: RouteGuard[],
  service: EncumbranceService,
): void {
  registerTileRoutes(router, {
    path: '/encumbrances/tiles',
    operationIds: { tile: 'getEncumbranceTile', tileJson: 'getEncumbranceTileJson' },
    tags: TAG,
    summary: 'Vector tiles keyed by class',
    description:
      'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per encumbrance ' +
      'class named as the class, current records only, features carrying encumbrance_uid, ' +
      'ease_type_normalised, ease_type and sg_number. `classes`: comma list (default all); ',
    tileJsonSummary: 'TileJSON of the encumbrance tiles',
    tileJsonDescription: '`classes` as for the tiles: the template then asks for those classes.',
    minZoom: TILE_MIN_ZOOM,
    query: TileQuerySchema,
    guards,
    source: (c, query) => service(c).tiles(query.classes),
    canonical: (query) => ({ classes: query.classes.join(',') }),
  })
}
