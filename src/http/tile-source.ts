/**
 * One interface for every vector tile set, as Martin has one `Source` for its tile sources: a
 * source answers a tile by its address and describes its tiles for TileJSON (the layers, each
 * with its fields and the zoom it appears from, the deepest zoom that adds detail, the bounds).
 * A feature makes a source for one request's parameters (the layers asked for, the key's scope,
 * a date) and tile-routes.ts serves it, so the four tile sets share their routes, their answer
 * (tile-answer.ts) and their documentation. A source's tile is made when asked (LiveTile) or was
 * made by build-index (StoredTile, the parcel and plot tiles up to their deepest zoom).
 *
 * @module
 */
import type { StoredTileRow } from '../data/tile-store.js'
import type { TileSet } from './tilejson.js'

/**
 * A tile made when asked: `etag` names its content (strong, quoted) without making it, so a
 * request naming it answers 304 before `encode` runs; `encode` gives the MVT bytes, none when no
 * feature falls in the tile.
 */
export interface LiveTile {
  readonly etag: string
  encode(): Uint8Array
}

/**
 * A tile made at build time (src/data/tile-store.ts): its gzip-compressed bytes, sent as they are
 * to a client that accepts gzip; `etag` names its content (the stored hash).
 */
export interface StoredTile {
  readonly etag: string
  /** the stored tile (gzip-compressed MVT), or null: an empty tile */
  readonly gzip: Uint8Array | null
  /** the layers to send, in this order, when not all the stored tile holds; null: the tile as stored */
  readonly layers: readonly string[] | null
}

/** What a source gives for one tile address. */
export type Tile = LiveTile | StoredTile

/** The ETag of every empty stored tile: it names the content, and all are alike. */
export const EMPTY_TILE_ETAG = '"empty"'

/**
 * The stored tile `row` (null: empty) for a request asking for `asked` of the layers the store
 * holds, `all` in their order: the tile as stored when it asks for all in that order, else those
 * layers picked from it. The ETag is the stored hash, with the layers when some are picked.
 */
export function storedTile(row: StoredTileRow | null, asked: readonly string[], all: readonly string[]): StoredTile {
  const whole = asked.length === all.length && asked.every((l, i) => l === all[i])
  if (row === null) return { etag: EMPTY_TILE_ETAG, gzip: null, layers: null }
  const hash = Buffer.from(row.hash.buffer, row.hash.byteOffset, row.hash.byteLength).toString('hex')
  return whole
    ? { etag: `"${hash}"`, gzip: row.gzip, layers: null }
    : { etag: `"${hash}:${asked.join(',')}"`, gzip: row.gzip, layers: asked }
}

/** The tiles of one tile set for one request's parameters. */
export interface TileSource {
  /** The TileJSON description: name, layers (fields, min zooms), `maxzoom`, bounds, version. */
  tileSet(): TileSet
  /** The tile z/x/y (a valid address: tile-params.ts checked it). */
  tile(z: number, x: number, y: number): Tile
}
