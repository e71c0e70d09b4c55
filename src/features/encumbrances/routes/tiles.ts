/**
 * `GET /encumbrances/tiles/{z}/{x}/{y}.mvt`: vector tiles keyed by class (tileAnswer: ETag,
 * 304, 204 when empty), and `GET /encumbrances/tiles.json`, their TileJSON.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { tileAnswer, TILE_RESPONSES, tileRulesText } from '../../../http/tile-answer.js'
import { parseTileParams, TileParamsSchema } from '../../../http/tile-params.js'
import { TILEJSON_RESPONSES, TILEJSON_TEXT, tileJsonAnswer } from '../../../http/tilejson.js'
import type { EncumbranceQueries } from '../queries.js'
import { TileQuerySchema } from '../schemas.js'
import { encumbranceTileSet, TILE_MIN_ZOOM } from '../tiles.js'
import { TAG, type EncumbranceService } from './shared.js'

/** The tile of the classes asked for; its ETag names the dataset version and the classes. */
export function answerTile(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  params: z.output<typeof TileParamsSchema>,
  query: z.output<typeof TileQuerySchema>,
): Response {
  const { z, x, y } = parseTileParams(params)
  return tileAnswer(c, `"${s.version}:${query.classes.join(',')}"`, () => s.tile(z, x, y, query.classes))
}

export function registerTileRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/tiles/{z}/{x}/{y}.mvt',
      honoPath: '/encumbrances/tiles/:z/:x/:y{[^/]+\\.mvt}',
      tags: TAG,
      summary: 'Vector tiles keyed by class',
      description:
        'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per encumbrance ' +
        'class named as the class, current records only, features carrying encumbrance_uid, ' +
        'ease_type_normalised, ease_type and sg_number. ' +
        `\`classes\`: comma list (default all); ${tileRulesText(TILE_MIN_ZOOM)}`,
      request: { params: TileParamsSchema, query: TileQuerySchema },
      responses: TILE_RESPONSES,
    },
    guards,
    (c, { params, query }) => answerTile(c, service(c), params, query),
  )
}

export function registerTileJsonRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/tiles.json',
      tags: TAG,
      summary: 'TileJSON of the encumbrance tiles',
      description: `${TILEJSON_TEXT} \`classes\` as for the tiles: the template then asks for those classes.`,
      request: { query: TileQuerySchema },
      responses: TILEJSON_RESPONSES,
    },
    guards,
    (c, { query }) => {
      const s = service(c)
      const set = encumbranceTileSet(query.classes, s.extent(), s.version, s.asOf)
      return tileJsonAnswer(c, router, set, { classes: query.classes.join(',') })
    },
  )
}
