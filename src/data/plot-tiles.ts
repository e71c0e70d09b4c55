/**
 * What a plot tile holds, shared by the tiles build-index stores (build-index/tiles/) and those
 * the server makes when asked (src/features/plots/tiles.ts), so both make the same bytes: one
 * point layer per country (`plot`: Botswana, `erf`: South Africa, in that order), from
 * PLOT_TILES_MIN_ZOOM on, at most PLOT_TILE_MAX_FEATURES points per layer, and the feature made
 * of a point. The store itself: `plots/tiles.mbtiles` (tile-store.ts), zooms
 * PLOT_TILES_MIN_ZOOM to PLOT_TILES_MAX_ZOOM, every point of both countries.
 *
 * @module
 */
import type { TileFeature } from '../geo/mvt/encode.js'

/** The tile store of the plot domain (tile-store.ts). */
export const PLOT_TILES_FILE = 'plots/tiles.mbtiles'

/** The tile layers, each the plots of one country, in the order a tile lists them. */
export const PLOT_TILE_LAYERS = ['plot', 'erf'] as const
export type PlotLayer = (typeof PLOT_TILE_LAYERS)[number]
export const LAYER_COUNTRY = { plot: 'BOTSWANA', erf: 'SOUTH_AFRICA' } as const satisfies Record<
  PlotLayer,
  'BOTSWANA' | 'SOUTH_AFRICA'
>

/**
 * Both layers appear from this zoom: a z14 tile is about 2.2 km across, a township's worth of
 * points (up to about 12 000 erven in the densest South African townships, a few thousand plots
 * in Gaborone).
 */
export const PLOT_TILES_MIN_ZOOM = 14
/**
 * Clients over-zoom beyond this (src/http/tilejson.ts): a point is then within about 0.15 m. The
 * tile store holds every zoom up to it; deeper tiles are made when asked.
 */
export const PLOT_TILES_MAX_ZOOM = 16
/**
 * At most this many points per layer in one tile (about 300 KB): past it, the tile keeps an even
 * sample (every k-th point in source order), so a client zooming in gets them all.
 */
export const PLOT_TILE_MAX_FEATURES = 12_000

/** The properties of each layer's features, as TileJSON (and the store's metadata) lists them. */
export const PLOT_TILE_FIELDS: Record<PlotLayer, Record<string, string>> = {
  plot: {
    plot_number: 'String: the plot number (also GET /plots/{plot_number}); feature id = plot id',
    city: 'String: the town (upper case)',
    district: 'String: the district; absent when the town has none',
  },
  erf: {
    plot_number: 'String: the erf number (also GET /plots/{plot_number}); feature id = plot id',
    city: 'String: the township (upper case; names recur across provinces)',
    province: 'String: the province; absent when the township has none',
  },
}

/** The points a tile keeps of those of one layer in it (in source order): all, or an even sample. */
export function keptPoints<T>(hits: T[]): T[] {
  if (hits.length <= PLOT_TILE_MAX_FEATURES) return hits
  const step = hits.length / PLOT_TILE_MAX_FEATURES
  return Array.from({ length: PLOT_TILE_MAX_FEATURES }, (_, k) => hits[Math.floor(k * step)])
}

/** What a tile feature is read from: one country's plot layer as the plot service opens it (src/features/plots/store.ts). */
export interface PlotTilePoints {
  country: 'BOTSWANA' | 'SOUTH_AFRICA'
  index: { lon(i: number): number; lat(i: number): number }
  cityOf: Uint32Array
  cities: ReadonlyMap<number, { name: string; region: string }>
  idOffset: number
  numberAt(i: number): string
}

/** The tile feature of item `i` of a layer: its point, number, town and district or province. */
export function plotTileFeature(l: PlotTilePoints, i: number): TileFeature {
  const city = l.cities.get(l.cityOf[i])
  const properties: TileFeature['properties'] = { plot_number: l.numberAt(i) }
  if (city) {
    properties.city = city.name
    if (city.region) properties[l.country === 'BOTSWANA' ? 'district' : 'province'] = city.region
  }
  return { id: l.idOffset + i + 1, geometry: [[l.index.lon(i), l.index.lat(i)]], properties }
}
