/**
 * A domain's tile store: the vector tiles build-index makes once (build-index/tiles/), in one
 * SQLite file per domain laid out as MBTiles 1.3 (https://github.com/mapbox/mbtiles-spec), so any
 * MBTiles reader opens it: table `tiles` (zoom_level, tile_column, tile_row in the TMS scheme,
 * tile_data: the MVT tile gzip-compressed) and `metadata` (name, format `pbf`, minzoom, maxzoom,
 * bounds and `json` with the `vector_layers`). One column more than MBTiles has: `tile_hash`,
 * the first 8 bytes of the SHA-256 of the tile's uncompressed bytes, which names the content in
 * the tile's ETag without reading or decompressing it. Rows are in the order they were made
 * (block by block), found by the unique index on (zoom_level, tile_column, tile_row).
 *
 * A tile is stored for every address from `minzoom` to `maxzoom` whose tile holds a feature; a
 * missing one is an empty tile. The store holds every layer of the domain's tile set in the set's
 * order; an answer with fewer layers picks them from it (src/geo/mvt/select-layers.ts).
 *
 * Shared by the writer (build-index/write/tile-store-writer.ts) and the reader below.
 *
 * @module
 */
import type Database from 'better-sqlite3'

/**
 * The tables of a tile store. Kept byte for byte as first written (SQLite stores each
 * statement's text in `sqlite_master`): do not reformat. `tiles` is a rowid table, as MBTiles
 * has it, rather than one keyed by (z, x, y) `WITHOUT ROWID`: such a table keeps at most about
 * 1 KB of a row in its B-tree page (on 4 KB pages), so most tiles would spill into part-filled
 * overflow pages (measured on the sample dataset: the plot store 6.0 MiB for 3.2 MiB of tiles,
 * 3.9 MiB as a rowid table with the index).
 */
export const TILE_STORE_SCHEMA_SQL = `
    CREATE TABLE metadata (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL, tile_hash BLOB NOT NULL);
  `

/** The index of the tiles by address, created after the bulk load (MBTiles' `tile_index`). */
export const TILE_STORE_INDEX_SQL = `
    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
  `

/** Bytes of `tile_hash`: a 64-bit prefix of the SHA-256, 16 hex digits in the ETag. */
export const TILE_HASH_BYTES = 8

/** The TMS row of XYZ row `y` at zoom `z` (MBTiles numbers rows from the south); its own inverse. */
export function tmsRow(z: number, y: number): number {
  return 2 ** z - 1 - y
}

/** One stored tile: its gzip-compressed MVT bytes and the hash of the uncompressed bytes. */
export interface StoredTileRow {
  gzip: Uint8Array
  hash: Uint8Array
}

/** A tile store opened for reading (one prepared statement). */
export class TileStore {
  /** the zooms whose every tile is stored (a missing one is empty) */
  readonly minZoom: number
  readonly maxZoom: number
  private readonly get: Database.Statement<[number, number, number], [Buffer, Buffer]>

  constructor(db: Database.Database) {
    const meta = new Map(
      (db.prepare('SELECT name, value FROM metadata').raw().all() as [string, string][]).map(([k, v]) => [k, v]),
    )
    this.minZoom = Number(meta.get('minzoom'))
    this.maxZoom = Number(meta.get('maxzoom'))
    if (!Number.isInteger(this.minZoom) || !Number.isInteger(this.maxZoom))
      throw new Error('the tile store names no minzoom and maxzoom in its metadata')
    this.get = db
      .prepare('SELECT tile_data, tile_hash FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?')
      .raw(true) as Database.Statement<[number, number, number], [Buffer, Buffer]>
  }

  /** Whether the store holds every tile of zoom z. */
  covers(z: number): boolean {
    return z >= this.minZoom && z <= this.maxZoom
  }

  /** The stored tile z/x/y (XYZ), or null for an empty tile. */
  tile(z: number, x: number, y: number): StoredTileRow | null {
    const row = this.get.get(z, x, tmsRow(z, y))
    return row ? { gzip: row[0], hash: row[1] } : null
  }
}
