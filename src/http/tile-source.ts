/**
 * One interface for every vector tile set, as Martin has one `Source` for its tile sources: a
 * source answers a tile by its address and describes its tiles for TileJSON (the layers, each
 * with its fields and the zoom it appears from, the deepest zoom that adds detail, the bounds).
 * A feature makes a source for one request's parameters (the layers asked for, the key's scope,
 * a date) and tile-routes.ts serves it, so the four tile sets share their routes, their answer
 * (tile-answer.ts) and their documentation.
 *
 * @module
 */
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

/** What a source gives for one tile address. */
export type Tile = LiveTile

/** The tiles of one tile set for one request's parameters. */
export interface TileSource {
  /** The TileJSON description: name, layers (fields, min zooms), `maxzoom`, bounds, version. */
  tileSet(): TileSet
  /** The tile z/x/y (a valid address: tile-params.ts checked it). */
  tile(z: number, x: number, y: number): Tile
}
