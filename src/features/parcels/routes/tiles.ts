/**
 * `GET /parcels/tiles/{z}/{x}/{y}.mvt`: vector tiles of the cadastre, one layer per parcel type,
 * and `GET /parcels/tiles.json`, their TileJSON (src/http/tile-routes.ts).
 *
 * @module
 */
import type { ApiRouter } from '../../../http/openapi.js'
import { registerTileRoutes } from '../../../http/tile-routes.js'
import { TileQuerySchema } from '../schemas.js'
import { PARCEL_TILE_MIN_ZOOM } from '../tiles.js'
import { TAG, type ParcelRoutes } from './shared.js'

export function registerParcelTileRoutes(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  registerTileRoutes(router, {
    path: '/parcels/tiles',
    operationIds: { tile: 'getParcelTile', tileJson: 'getParcelTileJson' },
    tags: TAG,
    summary: 'Vector tiles of the cadastre, one layer per parcel type',
    description:
      'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per parcel type ' +
      'named as the lower-case type (erf, farm_portion, holding, parent_farm, public_place, street), the ' +
      'records the default status filter shows only (no archived, withdrawn or historic record). Features ' +
      'carry the parcel id as their id and lpi, parcel_type (upper case, as elsewhere in the API), tag (the ' +
      'tag value, when the record has one), status (the work status: current, or proposed) and legal_status ' +
      '(R, S or P). Polygons keep their holes; exterior rings are clockwise in tile coordinates (y down). ' +
      '`layers`: comma list (default all); ',
    tileJsonSummary: 'TileJSON of the parcel tiles',
    tileJsonDescription: '`layers` as for the tiles: the template then asks for those layers.',
    minZoom: PARCEL_TILE_MIN_ZOOM,
    query: TileQuerySchema,
    guards,
    source: (c, query) => service(c).tiles(query.layers),
    canonical: (query) => ({ layers: query.layers.join(',') }),
  })
}
