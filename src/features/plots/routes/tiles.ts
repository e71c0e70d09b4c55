/**
 * `GET /plots/tiles/{z}/{x}/{y}.mvt`: the plots and erven as point tiles, one layer per country
 * (tileAnswer: ETag, 304, 204 when empty), and `GET /plots/tiles.json`, their TileJSON. Both
 * serve the key's countries and towns only, as every plot answer does.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import { citiesAllowed } from '../../../auth/middleware.js'
import type { ApiKeyRecord } from '../../../auth/types.js'
import { ApiError } from '../../../http/errors.js'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import type { Service } from '../../../http/service-guard.js'
import { tileAnswer, TILE_RESPONSES, tileRulesText } from '../../../http/tile-answer.js'
import { parseTileParams, TileParamsSchema } from '../../../http/tile-params.js'
import { TILEJSON_RESPONSES, TILEJSON_TEXT, tileJsonAnswer } from '../../../http/tilejson.js'
import type { CityScope, PlotQueries } from '../queries.js'
import { TileQuerySchema } from '../schemas.js'
import type { CountryEnum } from '../store.js'
import {
  LAYER_COUNTRY,
  PLOT_TILE_LAYERS,
  PLOT_TILE_MAX_FEATURES,
  PLOT_TILES_MIN_ZOOM,
  plotTileSet,
  type PlotLayer,
} from '../tiles.js'

const TAG = ['Plots and coordinates']

/** The key's countries, its towns per country, and the same as text for the ETag. */
function scopeOf(key: ApiKeyRecord): { countries: CountryEnum[]; scope: CityScope; text: string } {
  const countries = [...key.countries].sort()
  const scope: CityScope = {}
  const parts: string[] = []
  for (const c of countries) {
    const towns = citiesAllowed(key, c)
    scope[c] = towns
    parts.push(towns ? `${c}=${[...towns].sort().join('|')}` : c)
  }
  return { countries, scope, text: parts.join(';') }
}

/** The layers asked for whose country the key covers; none: 403 CountryNotPermitted, as a `country` the key lacks. */
function layersInScope(key: ApiKeyRecord, layers: readonly PlotLayer[]): PlotLayer[] {
  const kept = layers.filter((l) => key.countries.includes(LAYER_COUNTRY[l]))
  if (kept.length === 0)
    throw new ApiError(
      'CountryNotPermitted',
      `API key ${key.id} does not cover ${layers.map((l) => LAYER_COUNTRY[l]).join(', ')} (it covers ${key.countries.join(', ')})`,
    )
  return kept
}

/** The tile of the layers asked for; its ETag names the dataset version, the layers and the key's scope. */
function plotTile(
  c: Context<AppEnv>,
  s: PlotQueries,
  params: z.output<typeof TileParamsSchema>,
  query: z.output<typeof TileQuerySchema>,
): Response {
  const { z, x, y } = parseTileParams(params)
  const key = c.get('apiKey')
  const layers = layersInScope(key, query.layers)
  const { countries, scope, text } = scopeOf(key)
  const etag = `"${s.version}:${layers.join(',')}:${encodeURIComponent(text)}"`
  return tileAnswer(c, etag, () => s.tile(z, x, y, layers, countries, scope))
}

export function registerPlotTileRoutes(router: ApiRouter, guards: RouteGuard[], service: Service<PlotQueries>): void {
  router.add(
    {
      method: 'get',
      path: '/plots/tiles/{z}/{x}/{y}.mvt',
      honoPath: '/plots/tiles/:z/:x/:y{[^/]+\\.mvt}',
      tags: TAG,
      summary: 'Plots and erven as point vector tiles',
      description:
        'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one point layer per country: ' +
        '`plot` (Botswana plots) and `erf` (South African erven), of the countries and towns the key covers. ' +
        'A layer of a country the key does not cover is left out; when none is left, 403 CountryNotPermitted. ' +
        'Features carry the plot id as their id and plot_number, city, and district (Botswana) or province ' +
        `(South Africa). At most ${PLOT_TILE_MAX_FEATURES} points per layer in a tile: past that, an even sample ` +
        `(every k-th point in source order). \`layers\`: comma list (default both); ` +
        tileRulesText(Object.fromEntries(PLOT_TILE_LAYERS.map((l) => [l, PLOT_TILES_MIN_ZOOM]))),
      request: { params: TileParamsSchema, query: TileQuerySchema },
      responses: TILE_RESPONSES,
    },
    guards,
    (c, { params, query }) => plotTile(c, service(c), params, query),
  )
  router.add(
    {
      method: 'get',
      path: '/plots/tiles.json',
      tags: TAG,
      summary: 'TileJSON of the plot tiles',
      description:
        `${TILEJSON_TEXT} \`layers\` as for the tiles: the template then asks for those layers. ` +
        'The layers and bounds are those of the countries the key covers (none: 403 CountryNotPermitted).',
      request: { query: TileQuerySchema },
      responses: TILEJSON_RESPONSES,
    },
    guards,
    (c, { query }) => {
      const s = service(c)
      const key = c.get('apiKey')
      const layers = layersInScope(key, query.layers)
      const set = plotTileSet(layers, s.extent(layers.map((l) => LAYER_COUNTRY[l])), s.version, s.asOf)
      return tileJsonAnswer(c, router, set, { layers: query.layers.join(',') })
    },
  )
}
