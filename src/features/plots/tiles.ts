/**
 * Vector tiles of the plot points: one layer per plot layer of the dataset, `plot` (Botswana
 * plots) and `erf` (South African erven), what they hold as src/data/plot-tiles.ts says, as
 * Mapbox Vector Tile bytes (src/geo/mvt/encode.ts), and their TileJSON description. Made when
 * asked: a box query on each country's KDBush index, at most PLOT_TILE_MAX_FEATURES points per
 * layer (queries.ts serves the stored tiles where the dataset has them).
 *
 * @module
 */
import {
  keptPoints,
  PLOT_TILE_FIELDS,
  plotTileFeature,
  PLOT_TILES_MAX_ZOOM,
  PLOT_TILES_MIN_ZOOM,
  type PlotLayer,
} from '../../data/plot-tiles.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileFeature, type TileLayer } from '../../geo/mvt/encode.js'
import { tileBBox } from '../../geo/tiles.js'
import type { TileSet } from '../../http/tilejson.js'
import type { CountryLayer } from './store.js'

export {
  LAYER_COUNTRY,
  PLOT_TILE_LAYERS,
  PLOT_TILE_MAX_FEATURES,
  PLOT_TILES_MAX_ZOOM,
  PLOT_TILES_MIN_ZOOM,
  type PlotLayer,
} from '../../data/plot-tiles.js'

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
    const hits: number[] = []
    // an empty layer's index holds one unreachable point (plots-format.ts): item numbers past the size
    for (const i of items) if (i < l.index.size && (accept === undefined || accept(i))) hits.push(i)
    hits.sort((a, b) => a - b)
    const features: TileFeature[] = keptPoints(hits).map((i) => plotTileFeature(l, i))
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
      fields: PLOT_TILE_FIELDS[name],
      minzoom: PLOT_TILES_MIN_ZOOM,
    })),
    bounds,
    dataset_version: version,
    ...(asOf ? { as_of: asOf } : {}),
  }
}
