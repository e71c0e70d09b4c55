/**
 * `GET /plots/tiles/{z}/{x}/{y}.mvt`: the plots and erven as point tiles, one layer per country,
 * and `GET /plots/tiles.json`, their TileJSON (src/http/tile-routes.ts). Both serve the key's
 * countries and towns only, as every plot answer does.
 *
 * @module
 */
import { citiesAllowed } from '../../../auth/middleware.js'
import type { ApiKeyRecord } from '../../../auth/types.js'
import { ApiError } from '../../../http/errors.js'
import type { RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import type { Service } from '../../../http/service-guard.js'
import { registerTileRoutes } from '../../../http/tile-routes.js'
import type { CityScope, PlotQueries } from '../queries.js'
import { TAG } from './shared.js'
import { TileQuerySchema } from '../schemas.js'
import type { CountryEnum } from '../store.js'
import {
  LAYER_COUNTRY,
  PLOT_TILE_LAYERS,
  PLOT_TILE_MAX_FEATURES,
  PLOT_TILES_MIN_ZOOM,
  type PlotLayer,
} from '../tiles.js'

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

export function registerPlotTileRoutes(router: ApiRouter, guards: RouteGuard[], service: Service<PlotQueries>): void {
  registerTileRoutes(router, {
    path: '/plots/tiles',
    operationIds: { tile: 'getPlotTile', tileJson: 'getPlotTileJson' },
    tags: TAG,
    summary: 'Plots and erven as point vector tiles',
    description:
      'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one point layer per country: ' +
      '`plot` (Botswana plots) and `erf` (South African erven), of the countries and towns the key covers. ' +
      'A layer of a country the key does not cover is left out; when none is left, 403 CountryNotPermitted. ' +
      'Features carry the plot id as their id and plot_number, city, and district (Botswana) or province ' +
      `(South Africa). At most ${PLOT_TILE_MAX_FEATURES} points per layer in a tile: past that, an even sample ` +
      '(every k-th point in source order). `layers`: comma list (default both); ',
    tileJsonSummary: 'TileJSON of the plot tiles',
    tileJsonDescription:
      '`layers` as for the tiles: the template then asks for those layers. ' +
      'The layers and bounds are those of the countries the key covers (none: 403 CountryNotPermitted).',
    minZoom: Object.fromEntries(PLOT_TILE_LAYERS.map((l) => [l, PLOT_TILES_MIN_ZOOM])),
    query: TileQuerySchema,
    guards,
    source: (c, query) => {
      const s = service(c)
      const key = c.get('apiKey')
      const layers = layersInScope(key, query.layers)
      const { countries, scope, text } = scopeOf(key)
      return s.tiles(layers, countries, scope, text)
    },
    canonical: (query) => ({ layers: query.layers.join(',') }),
  })
}
