/**
 * `GET /parcels/tiles/{z}/{x}/{y}.mvt`: vector tiles of the cadastre, one layer per parcel type
 * (tileAnswer: ETag, 304, 204 when empty), and `GET /parcels/tiles.json`, their TileJSON.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { tileAnswer, TILE_RESPONSES, tileRulesText } from '../../../http/tile-answer.js'
import { parseTileParams, TileParamsSchema } from '../../../http/tile-params.js'
import { TILEJSON_RESPONSES, TILEJSON_TEXT, tileJsonAnswer } from '../../../http/tilejson.js'
import type { ParcelQueries } from '../queries.js'
import { TileQuerySchema } from '../schemas.js'
import { PARCEL_TILE_MIN_ZOOM, parcelTileSet } from '../tiles.js'
import { TAG, type ParcelRoutes } from './shared.js'

/** The tile of the layers asked for; its ETag names the dataset version and the layers. */
function parcelTile(
  c: Context<AppEnv>,
  s: ParcelQueries,
  params: z.output<typeof TileParamsSchema>,
  query: z.output<typeof TileQuerySchema>,
): Response {
  const { z, x, y } = parseTileParams(params)
  return tileAnswer(c, `"${s.version}:${query.layers.join(',')}"`, () => s.tile(z, x, y, query.layers))
}

export function registerTileRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/tiles/{z}/{x}/{y}.mvt',
      honoPath: '/parcels/tiles/:z/:x/:y{[^/]+\\.mvt}',
      tags: TAG,
      summary: 'Vector tiles of the cadastre, one layer per parcel type',
      description:
        'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per parcel type ' +
        'named as the lower-case type (erf, farm_portion, holding, parent_farm, public_place, street), the ' +
        'records the default status filter shows only (no archived, withdrawn or historic record). Features ' +
        'carry the parcel id as their id and lpi, parcel_type (upper case, as elsewhere in the API), tag (the ' +
        'tag value, when the record has one), status (the work status: current, or proposed) and legal_status ' +
        '(R, S or P). Polygons keep their holes; exterior rings are clockwise in tile coordinates (y down). ' +
        `\`layers\`: comma list (default all); ${tileRulesText(PARCEL_TILE_MIN_ZOOM)}`,
      request: { params: TileParamsSchema, query: TileQuerySchema },
      responses: TILE_RESPONSES,
    },
    guards,
    (c, { params, query }) => parcelTile(c, service(c), params, query),
  )
}

export function registerTileJsonRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/tiles.json',
      tags: TAG,
      summary: 'TileJSON of the parcel tiles',
      description: `${TILEJSON_TEXT} \`layers\` as for the tiles: the template then asks for those layers.`,
      request: { query: TileQuerySchema },
      responses: TILEJSON_RESPONSES,
    },
    guards,
    (c, { query }) => {
      const s = service(c)
      const set = parcelTileSet(query.layers, s.extent(), s.version, s.asOf)
      return tileJsonAnswer(c, router, set, { layers: query.layers.join(',') })
    },
  )
}
