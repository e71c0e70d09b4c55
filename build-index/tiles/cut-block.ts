/**
 * One block of a tile store's build: the tile at BLOCK_ZOOM and every tile under it down to the
 * store's deepest zoom (src/geo/mvt/pyramid.ts), from the features a domain finds in it, each tile
 * gzip-compressed and hashed (src/data/tile-store.ts), packed in flat arrays so a worker thread
 * hands them over without copying.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { cutPyramid, type PyramidFeature, type PyramidLayer } from '../../src/geo/mvt/pyramid.js'
import { TILE_HASH_BYTES } from '../../src/data/tile-store.js'

/**
 * The zoom of a block: a z10 tile is about 35 km across in South Africa, a city's worth of
 * parcels (the densest hold a few hundred thousand), whose features are read once for every tile
 * under it. No tile set stores a zoom below it.
 */
export const BLOCK_ZOOM = 10

/**
 * gzip level of the stored tiles. Measured on the sample dataset's tiles (CPU time, node:zlib):
 * the parcel tiles are 0.6 % larger than at level 6 and 0.8 % than at 9, the plot tiles the
 * same, for 40 % less time than level 6 on the plot tiles and 15-25 % less than level 9 on the
 * parcel tiles, whose cost is mostly a tile's fixed ~50 µs (the stream's set-up, the same at
 * every level).
 */
export const TILE_GZIP_LEVEL = 4

/** What a domain gives the build of its tile store: its layers and, per block, the features in it. */
export interface BlockSource {
  layers: PyramidLayer[]
  /** the features whose box meets block bx/by (the BLOCK_ZOOM tile grown by the tile buffer), in id order */
  features(bx: number, by: number): PyramidFeature[]
  close(): void
}

/** The tiles of one block, flat: tile k is z/x/y `zxy[3k..3k+2]`, its data `data[ends[k-1]..ends[k]]`. */
export interface BlockTiles {
  chunk: number
  count: number
  zxy: Uint32Array
  ends: Uint32Array
  data: Uint8Array
  hashes: Uint8Array
  /** bytes of the tiles before compression */
  raw: number
}

/** The tiles of block bx/by down to `maxZoom`, compressed and hashed. */
export function cutBlock(source: BlockSource, bx: number, by: number, maxZoom: number, chunk: number): BlockTiles {
  const zxy: number[] = []
  const parts: Buffer[] = []
  const hashes: Buffer[] = []
  let raw = 0
  cutPyramid(source.layers, source.features(bx, by), BLOCK_ZOOM, bx, by, maxZoom, (z, x, y, bytes) => {
    zxy.push(z, x, y)
    parts.push(gzipSync(bytes, { level: TILE_GZIP_LEVEL }))
    hashes.push(createHash('sha256').update(bytes).digest().subarray(0, TILE_HASH_BYTES))
    raw += bytes.byteLength
  })
  const ends = new Uint32Array(parts.length)
  let at = 0
  for (let k = 0; k < parts.length; k++) ends[k] = at += parts[k].byteLength
  return {
    chunk,
    count: parts.length,
    zxy: Uint32Array.from(zxy),
    ends,
    data: new Uint8Array(Buffer.concat(parts)),
    hashes: new Uint8Array(Buffer.concat(hashes)),
    raw,
  }
}

/** The buffers of a block's tiles, to transfer rather than copy. */
export function transferOf(t: BlockTiles): ArrayBuffer[] {
  return [t.zxy.buffer, t.ends.buffer, t.data.buffer, t.hashes.buffer] as ArrayBuffer[]
}
