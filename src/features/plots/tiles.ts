/**
 * Vector tiles of the plot points: one layer per plot layer of the dataset, `plot` (Botswana
 * plots) and `erf` (South African erven), from PLOT_TILES_MIN_ZOOM on, as Mapbox Vector Tile
 * bytes (src/geo/mvt/encode.ts), and their TileJSON description. A box query on each country's
 * KDBush index; at most PLOT_TILE_MAX_FEATURES points per layer.
 *
 * @module
 */
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileFeature, type TileLayer } from '../../geo/mvt/encode.js'
import { tileBBox } from '../../geo/tiles.js'
import type { TileSet } from '../../http/tilejson.js'
import type { CountryEnum, CountryLayer } from './store.js'

/** The tile layers, each the plots of one country. */
export const PLOT_TILE_LAYERS = ['plot', 'erf'] as const
export type PlotLayer = (typeof PLOT_TILE_LAYERS)[number]
export const LAYER_COUNTRY: Record<PlotLayer, CountryEnum> = { plot: 'BOTSWANA', erf: 'SOUTH_AFRICA' }

/**
 * Both layers appear from this zoom: a z14 tile is about 2.2 km across, a township's worth of
 * points (up to about 12 000 erven in the densest South African townships, a few thousand plots
 * in Gaborone).
 */
export const PLOT_TILES_MIN_ZOOM = 14
/** Clients over-zoom beyond this (src/http/tilejson.ts): a point is then within about 0.15 m. */
export const PLOT_TILES_MAX_ZOOM = 16
/**
 * At most this many points per layer in one tile (about 300 KB): past it, the tile keeps an even
 * sample (every k-th point in source order), so a client zooming in gets them all.
 */
export const PLOT_TILE_MAX_FEATURES = 12_000

/** The points of `layers` in tile z/x/y, of the layers given (in scope), each with its filter. */
export function plotTileBytes(
  z: number,
  x: number,
  y: number,
  layers: readonly { name: PlotLayer; l: CountryLayer; accept?: (i: number) => boolean }[],
): Uint8Array {
  if (z < PLOT_TILES_MIN_ZOOM) return new Uint8Array(0)
  const box = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const out: TileLayer[] = []
  for (const { name, l, accept } of layers) {
    const items = l.index.kd.range(box.minX, box.minY, box.maxX, box.maxY)
    let hits: number[] = []
    // an empty layer's index holds one unreachable point (plots-format.ts): item numbers past the size
    for (const i of items) if (i < l.index.size && (accept === undefined || accept(i))) hits.push(i)
    hits.sort((a, b) => a - b)
    if (hits.length > PLOT_TILE_MAX_FEATURES) {
      const step = hits.length / PLOT_TILE_MAX_FEATURES
      hits = Array.from({ length: PLOT_TILE_MAX_FEATURES }, (_, k) => hits[Math.floor(k * step)])
    }
    const features: TileFeature[] = []
    const region = l.country === 'BOTSWANA' ? 'district' : 'province'
    for (const i of hits) {
      const city = l.cities.get(l.cityOf[i])
      const properties: TileFeature['properties'] = { plot_number: l.numberAt(i) }
      if (city) {
        properties.city = city.name
        if (city.region) properties[region] = city.region
      }
      features.push({ id: l.idOffset + i + 1, geometry: [[l.index.lon(i), l.index.lat(i)]], properties })
    }
    if (features.length) out.push({ name, features })
  }
  return out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
}

/** The box of a layer's points (west, south, east, north), or null when it has none. */
export function pointsExtent(l: CountryLayer): [number, number, number, number] | null {
  if (l.index.size === 0) return null
  let w = Infinity
  let s = Infinity
  let e = -Infinity
  let n = -Infinity
  for (let i = 0; i < l.index.size; i++) {
    const lon = l.index.lon(i)
    const lat = l.index.lat(i)
    if (lon < w) w = lon
    if (lon > e) e = lon
    if (lat < s) s = lat
    if (lat > n) n = lat
  }
  return [w, s, e, n]
}

const FIELDS: Record<PlotLayer, Record<string, string>> = {
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

/** The TileJSON description of the plot tiles of `layers` (src/http/tilejson.ts). */
export function plotTileSet(
  layers: readonly PlotLayer[],
  bounds: [number, number, number, number] | null,
  version: string,
  asOf: string | undefined,
): TileSet {
  return {
    name: 'Plots and erven',
    description: 'Botswana plots (layer plot) and South African erven (layer erf) as points, one layer per country.',
    path: '/plots/tiles',
    maxzoom: PLOT_TILES_MAX_ZOOM,
    layers: layers.map((name) => ({
      id: name,
      description: name === 'plot' ? 'Botswana plots' : 'South African erven',
      fields: FIELDS[name],
      minzoom: PLOT_TILES_MIN_ZOOM,
    })),
    bounds,
    dataset_version: version,
    ...(asOf ? { as_of: asOf } : {}),
  }
}
