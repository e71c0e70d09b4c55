/**
 * The plot domain's tile store (src/data/plot-tiles.ts, tile-store.ts): every point tile of both
 * countries from PLOT_TILES_MIN_ZOOM to PLOT_TILES_MAX_ZOOM, made from the plot files just written
 * (the KDBush indexes, city ids, number tables and towns the server reads), so a stored tile is
 * the tile the server would make for a key that sees every town.
 *
 * @module
 */
import Database from 'better-sqlite3'
import {
  keptPoints,
  LAYER_COUNTRY,
  PLOT_TILE_LAYERS,
  PLOT_TILE_FIELDS,
  PLOT_TILES_FILE,
  PLOT_TILES_MAX_ZOOM,
  PLOT_TILES_MIN_ZOOM,
  plotTileFeature,
  type PlotTilePoints,
} from '../../src/data/plot-tiles.js'
import type { LayerStats } from '../../src/data/manifest.js'
import { decodeStrings, PLOT_COUNTRY_ENUM, PLOT_FILES, type PlotCountry } from '../../src/data/plots-format.js'
import type { TileFeature } from '../../src/geo/mvt/encode.js'
import type { PyramidFeature } from '../../src/geo/mvt/pyramid.js'
import { PointIndex } from '../../src/geo/point-index.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { blockBox, buildTileStore, readShared } from './build-tile-store.js'
import type { BlockSource } from './cut-block.js'

/** One country's plot files, as a plot BlockSource reads them (the arrays in shared memory). */
export interface PlotLayerData {
  country: PlotCountry
  rows: number
  idOffset: number
  sqlite: string
  kdbush: SharedArrayBuffer
  cityIds: SharedArrayBuffer
  numbers: SharedArrayBuffer
}

/** Per tile layer (PLOT_TILE_LAYERS order), its country's files, or null when the dataset has none. */
export type PlotTileData = (PlotLayerData | null)[]

/** A layer's files opened as the plot service opens them (src/features/plots/store.ts). */
function openPoints(d: PlotLayerData): PlotTilePoints & { index: PointIndex; rows: number } {
  const db = new Database(d.sqlite, { readonly: true, fileMustExist: true })
  const cities = new Map<number, { name: string; region: string }>()
  try {
    for (const [id, name, region] of db.prepare('SELECT id, name, region FROM city').raw().all() as [
      number,
      string,
      string,
    ][])
      cities.set(id, { name, region })
  } finally {
    db.close()
  }
  const index = PointIndex.from(d.kdbush as unknown as ArrayBuffer, d.rows)
  const numbers = decodeStrings(d.numbers as unknown as ArrayBuffer)
  return {
    country: PLOT_COUNTRY_ENUM[d.country],
    index,
    rows: d.rows,
    cityOf: new Uint32Array(d.cityIds),
    cities,
    idOffset: d.idOffset,
    numberAt: numbers.get,
  }
}

/** A point found in a block; its feature made on first use, then kept for the block. */
class PointFeature implements PyramidFeature {
  private made: TileFeature | null = null

  constructor(
    readonly i: number,
    readonly layer: number,
    readonly minX: number,
    readonly minY: number,
    private readonly points: PlotTilePoints,
  ) {}

  get maxX(): number {
    return this.minX
  }

  get maxY(): number {
    return this.minY
  }

  feature(): TileFeature {
    this.made ??= plotTileFeature(this.points, this.i)
    return this.made
  }
}

/** The points of both layers, by block; each tile keeps at most PLOT_TILE_MAX_FEATURES per layer. */
export function plotBlockSource(data: PlotTileData): BlockSource {
  const layers = data.map((d) => (d ? openPoints(d) : null))
  return {
    layers: PLOT_TILE_LAYERS.map((name) => ({ name, minZoom: PLOT_TILES_MIN_ZOOM, keep: keptPoints })),
    features(bx, by) {
      const b = blockBox(bx, by)
      const out: PointFeature[] = []
      layers.forEach((l, layer) => {
        if (!l) return
        // an empty layer's index holds one unreachable point (plots-format.ts): item numbers past the size
        const ids = l.index.kd.range(b.minX, b.minY, b.maxX, b.maxY).filter((i) => i < l.rows)
        ids.sort((p, q) => p - q)
        for (const i of ids) out.push(new PointFeature(i, layer, l.index.lon(i), l.index.lat(i), l))
      })
      return out
    },
    close: () => {},
  }
}

/** Builds `plots/tiles.mbtiles` from the plot files written into `ds`; `layers`: the domain's manifest entry's. */
export async function buildPlotTiles(
  ds: DatasetWriter,
  layers: Record<string, LayerStats>,
  log: (line: string) => void,
): Promise<void> {
  const data: PlotTileData = PLOT_TILE_LAYERS.map((name) => {
    const country = (Object.keys(PLOT_COUNTRY_ENUM) as PlotCountry[]).find(
      (k) => PLOT_COUNTRY_ENUM[k] === LAYER_COUNTRY[name],
    )!
    const s = layers[country]
    if (!s || s.rows === 0) return null
    const files = PLOT_FILES[country]
    return {
      country,
      rows: s.rows,
      idOffset: Number(s.meta?.id_offset ?? 0),
      sqlite: ds.pathOf(files.sqlite),
      kdbush: readShared(ds.pathOf(files.kdbush)),
      cityIds: readShared(ds.pathOf(files.cityIds)),
      numbers: readShared(ds.pathOf(files.numbers)),
    }
  })
  const indexes = data.map((d) =>
    d ? { kd: PointIndex.from(d.kdbush as unknown as ArrayBuffer, d.rows), rows: d.rows } : null,
  )
  let bounds: [number, number, number, number] | null = null
  for (const l of indexes) {
    if (!l) continue
    const c = l.kd.kd.coords
    for (let j = 0; j < l.rows; j++) {
      const x = c[2 * j]
      const y = c[2 * j + 1]
      bounds = bounds
        ? [Math.min(bounds[0], x), Math.min(bounds[1], y), Math.max(bounds[2], x), Math.max(bounds[3], y)]
        : [x, y, x, y]
    }
  }
  if (!bounds) return
  await buildTileStore(
    ds,
    {
      domain: 'plots',
      file: PLOT_TILES_FILE,
      name: 'Plots and erven',
      description: 'Botswana plots (layer plot) and South African erven (layer erf) as points, one layer per country.',
      layers: PLOT_TILE_LAYERS.map((id) => ({ id, fields: PLOT_TILE_FIELDS[id], minzoom: PLOT_TILES_MIN_ZOOM })),
      minZoom: PLOT_TILES_MIN_ZOOM,
      maxZoom: PLOT_TILES_MAX_ZOOM,
      bounds,
      data,
      source: () => plotBlockSource(data),
      hasFeature(bx, by) {
        const b = blockBox(bx, by)
        return indexes.some((l) => l?.kd.kd.range(b.minX, b.minY, b.maxX, b.maxY).some((i) => i < l.rows))
      },
      features: indexes.reduce((n, l) => n + (l?.rows ?? 0), 0),
    },
    log,
  )
}
