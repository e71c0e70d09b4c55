/**
 * Some layers of an encoded MVT tile, without decoding their features: a tile is a list of layer
 * messages (vector_tile.proto field 3) and nothing else, each encoded on its own (encode.ts), so
 * the bytes of the layers asked for, in the order asked, are the tile encodeTile would make of
 * those layers alone. Read with pbf's reader, as @mapbox/vector-tile reads tiles.
 */
import { PbfReader } from 'pbf'

const LAYER_FIELD = 3
const NAME_FIELD = 1
const BYTES = 2

/** The layers of `tile`: name and byte range (tag included), in tile order. */
export function tileLayers(tile: Uint8Array): { name: string; start: number; end: number }[] {
  const pbf = new PbfReader(tile)
  const out: { name: string; start: number; end: number }[] = []
  while (pbf.pos < pbf.length) {
    const start = pbf.pos
    const val = pbf.readVarint()
    if (val >>> 3 !== LAYER_FIELD || (val & 7) !== BYTES) {
      pbf.skip(val)
      continue
    }
    const end = pbf.readVarint() + pbf.pos
    let name = ''
    while (pbf.pos < end) {
      const f = pbf.readVarint()
      if (f >>> 3 === NAME_FIELD && (f & 7) === BYTES) {
        name = pbf.readString()
        break
      }
      pbf.skip(f)
    }
    pbf.pos = end
    out.push({ name, start, end })
  }
  return out
}

/**
 * The tile of the layers of `tile` named in `names`, in that order (a name the tile lacks is left
 * out): no bytes when none is there, `tile` itself when it holds exactly those layers in that order.
 */
export function selectLayers(tile: Uint8Array, names: readonly string[]): Uint8Array {
  const layers = tileLayers(tile)
  const picked = []
  for (const name of names) {
    const l = layers.find((x) => x.name === name)
    if (l) picked.push(l)
  }
  if (picked.length === layers.length && picked.every((l, i) => l === layers[i])) return tile
  let size = 0
  for (const l of picked) size += l.end - l.start
  const out = new Uint8Array(size)
  let at = 0
  for (const l of picked) {
    out.set(tile.subarray(l.start, l.end), at)
    at += l.end - l.start
  }
  return out
}
