/**
 * The tiles of a pyramid, cut from one set of features: tile z/x/y and every tile under it down to
 * `maxZoom`, each encoded as encodeTile would encode the features a box search finds in it, so a
 * tile made here equals the tile made for it alone.
 *
 * A feature is in a tile when its box meets the tile's box grown by the tile buffer (edges
 * included, as Flatbush and KDBush searches find them). A child tile's grown box lies inside its
 * parent's, so each tile's features are found among its parent's: the features of the top tile
 * are searched once and passed down, each level filtering its parent's list. A tile in which no
 * feature is left ends the descent there: none of its children holds one either.
 *
 * @module
 */
import { tileBBox } from '../tiles.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileFeature, type TileLayer } from './encode.js'

/** One layer of the pyramid's tiles, in the order the tiles list them. */
export interface PyramidLayer {
  name: string
  /** the layer appears from this zoom on; in shallower tiles its features are only passed down */
  minZoom: number
  /** the features a tile keeps of those in it (given in feature order); default all */
  keep?: (inTile: PyramidFeature[]) => PyramidFeature[]
}

/** A feature with the box it is found by. */
export interface PyramidFeature {
  /** index of its layer in the layers given */
  layer: number
  minX: number
  minY: number
  maxX: number
  maxY: number
  /** the feature to encode; called for each tile that draws it (make it once and keep it) */
  feature(): TileFeature
}

/**
 * Calls `emit` with every tile of the pyramid under z/x/y (z/x/y included) down to `maxZoom` that
 * holds a feature after encoding, depth first. `features` in the order tiles list them (by id).
 */
export function cutPyramid(
  layers: readonly PyramidLayer[],
  features: PyramidFeature[],
  z: number,
  x: number,
  y: number,
  maxZoom: number,
  emit: (z: number, x: number, y: number, bytes: Uint8Array) => void,
): void {
  const box = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const inTile: PyramidFeature[] = []
  for (const f of features)
    if (!(box.maxX < f.minX || box.maxY < f.minY || box.minX > f.maxX || box.minY > f.maxY)) inTile.push(f)
  if (inTile.length === 0) return
  const bytes = encodeAt(layers, inTile, z, x, y)
  if (bytes.byteLength > 0) emit(z, x, y, bytes)
  if (z >= maxZoom) return
  for (let dy = 0; dy < 2; dy++)
    for (let dx = 0; dx < 2; dx++) cutPyramid(layers, inTile, z + 1, 2 * x + dx, 2 * y + dy, maxZoom, emit)
}

/** The tile of the features in it whose layer is shown at z (none: no bytes). */
function encodeAt(
  layers: readonly PyramidLayer[],
  inTile: PyramidFeature[],
  z: number,
  x: number,
  y: number,
): Uint8Array {
  let shown: PyramidFeature[][] | null = null
  for (const f of inTile) {
    if (z < layers[f.layer].minZoom) continue
    shown ??= layers.map(() => [])
    shown[f.layer].push(f)
  }
  if (shown === null) return new Uint8Array(0)
  const out: TileLayer[] = []
  for (let l = 0; l < layers.length; l++) {
    if (shown[l].length === 0) continue
    const kept = layers[l].keep?.(shown[l]) ?? shown[l]
    out.push({ name: layers[l].name, features: kept.map((f) => f.feature()) })
  }
  return encodeTile(out, z, x, y)
}
