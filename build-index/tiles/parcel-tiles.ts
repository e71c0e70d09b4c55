/**
 * The parcel domain's tile store (src/data/parcel-tiles.ts, tile-store.ts): every parcel tile from
 * the first layer's zoom to PARCEL_TILES_MAX_ZOOM, made from the parcel files just written (the
 * same SQLite rows, Flatbush boxes and flags the server reads), so a stored tile is the tile the
 * server would make.
 *
 * @module
 */
import Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import {
  PARCEL_TILE_FIELDS,
  PARCEL_TILE_LAYERS,
  PARCEL_TILE_MIN_ZOOM,
  PARCEL_TILE_ROW_SQL,
  PARCEL_TILES_FILE,
  PARCEL_TILES_MAX_ZOOM,
  parcelTileFeature,
  type ParcelTileRow,
} from '../../src/data/parcel-tiles.js'
import { FLAG_HIDDEN, FLAG_LAYER_MASK, PARCEL_FILES } from '../../src/data/parcels-format.js'
import type { TileFeature } from '../../src/geo/mvt/encode.js'
import type { PyramidFeature } from '../../src/geo/mvt/pyramid.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { blockBox, buildTileStore, readShared } from './build-tile-store.js'
import type { BlockSource } from './cut-block.js'

/** What a parcel BlockSource reads: the parcel SQLite file, and the index and flags in shared memory. */
export interface ParcelTileData {
  sqlite: string
  index: SharedArrayBuffer
  flags: SharedArrayBuffer
}

/** A parcel found in a block, with its row; its feature made on first use, then kept for the block. */
class ParcelFeature implements PyramidFeature {
  private made: TileFeature | null = null
  row: ParcelTileRow | null = null

  constructor(
    readonly i: number,
    readonly layer: number,
    readonly minX: number,
    readonly minY: number,
    readonly maxX: number,
    readonly maxY: number,
  ) {}

  feature(): TileFeature {
    if (this.made === null) {
      this.made = parcelTileFeature(this.i + 1, this.layer, this.row!)
      this.row = null
    }
    return this.made
  }
}

/** The parcels the default status filter shows, by block, with their index boxes (tile layer = layer code). */
export function parcelBlockSource(d: ParcelTileData): BlockSource {
  const db = new Database(d.sqlite, { readonly: true, fileMustExist: true })
  db.pragma('mmap_size = 2147483647')
  const st = db.prepare(PARCEL_TILE_ROW_SQL).raw(true)
  const index = Flatbush.from(d.index as unknown as ArrayBuffer)
  const flags = new Uint8Array(d.flags)
  return {
    layers: PARCEL_TILE_LAYERS.map((name) => ({ name, minZoom: PARCEL_TILE_MIN_ZOOM[name] })),
    features(bx, by) {
      const b = blockBox(bx, by)
      const out: ParcelFeature[] = []
      index.search(b.minX, b.minY, b.maxX, b.maxY, (i, x0, y0, x1, y1) => {
        const fl = flags[i]
        if ((fl & FLAG_HIDDEN) === 0) out.push(new ParcelFeature(i, fl & FLAG_LAYER_MASK, x0, y0, x1, y1))
        return false
      })
      out.sort((p, q) => p.i - q.i)
      // the rows in id order, in one pass over the table (decoded when a tile first draws them)
      for (const f of out) f.row = st.get(f.i + 1) as ParcelTileRow
      return out
    },
    close: () => db.close(),
  }
}

/** Builds `parcels/tiles.mbtiles` from the parcel files written into `ds`. */
export async function buildParcelTiles(ds: DatasetWriter, log: (line: string) => void): Promise<void> {
  const data: ParcelTileData = {
    sqlite: ds.pathOf(PARCEL_FILES.sqlite),
    index: readShared(ds.pathOf(PARCEL_FILES.flatbush)),
    flags: readShared(ds.pathOf(PARCEL_FILES.flags)),
  }
  const index = Flatbush.from(data.index as unknown as ArrayBuffer)
  const flags = new Uint8Array(data.flags)
  const visible = (i: number) => (flags[i] & FLAG_HIDDEN) === 0
  await buildTileStore(
    ds,
    {
      domain: 'parcels',
      file: PARCEL_TILES_FILE,
      name: 'Parcel cadastre',
      description:
        'The South African cadastre, one layer per parcel type, the records the default status filter shows.',
      layers: PARCEL_TILE_LAYERS.map((id) => ({ id, fields: PARCEL_TILE_FIELDS, minzoom: PARCEL_TILE_MIN_ZOOM[id] })),
      minZoom: Math.min(...Object.values(PARCEL_TILE_MIN_ZOOM)),
      maxZoom: PARCEL_TILES_MAX_ZOOM,
      bounds: [index.minX, index.minY, index.maxX, index.maxY],
      data,
      source: () => parcelBlockSource(data),
      hasFeature(bx, by) {
        const b = blockBox(bx, by)
        return index.collides(b.minX, b.minY, b.maxX, b.maxY, visible)
      },
      features: index.numItems,
    },
    log,
  )
}
