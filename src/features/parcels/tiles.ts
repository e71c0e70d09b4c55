/**
 * Vector tiles of the cadastre: one layer per parcel type (named as the lower-case type, the
 * layer's file name in PARCEL_LAYERS), each from its own zoom on, records the default status
 * filter shows only, as Mapbox Vector Tile bytes (src/geo/mvt/encode.ts); what a tile holds is
 * src/data/parcel-tiles.ts's, shared with the tiles build-index stores. The tile source serves
 * the stored tiles (src/data/tile-store.ts) for the zooms the store holds, and makes the others
 * when asked (deeper than PARCEL_TILES_MAX_ZOOM, or a dataset built without a store).
 *
 * @module
 */
import {
  PARCEL_TILE_FIELDS,
  PARCEL_TILE_LAYERS,
  PARCEL_TILE_MIN_ZOOM,
  PARCEL_TILES_MAX_ZOOM,
  parcelTileFeature,
  type ParcelLayer,
  type ParcelTileRow,
} from '../../data/parcel-tiles.js'
import { FLAG_HIDDEN, FLAG_LAYER_MASK, PARCEL_LAYERS } from '../../data/parcels-format.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileFeature, type TileLayer } from '../../geo/mvt/encode.js'
import { tileBBox } from '../../geo/tiles.js'
import { storedTile, type TileSource } from '../../http/tile-source.js'
import { boundsOf, type TileSet, type VectorLayer } from '../../http/tilejson.js'
import type { ParcelStore } from './store.js'

export {
  PARCEL_TILE_LAYERS,
  PARCEL_TILE_MIN_ZOOM,
  PARCEL_TILES_MAX_ZOOM,
  type ParcelLayer,
} from '../../data/parcel-tiles.js'

/** The TileJSON description of the parcel tiles of `layers` (src/http/tilejson.ts). */
export function parcelTileSet(
  layers: readonly ParcelLayer[],
  extent: [number, number, number, number] | null,
  version: string,
  asOf: string,
): TileSet {
  return {
    name: 'Parcel cadastre',
    description:
      'The South African cadastre, one layer per parcel type, the records the default status filter shows; ' +
      'feature id = parcel id.',
    path: '/parcels/tiles',
    maxzoom: PARCEL_TILES_MAX_ZOOM,
    layers: layers.map(
      (l): VectorLayer => ({
        id: l,
        description: `${PARCEL_LAYERS[PARCEL_TILE_LAYERS.indexOf(l)].type} parcels`,
        fields: PARCEL_TILE_FIELDS,
        minzoom: PARCEL_TILE_MIN_ZOOM[l],
      }),
    ),
    bounds: extent,
    dataset_version: version,
    as_of: asOf,
  }
}

/** The tile's bytes made now, or none when no feature falls in it. */
export function parcelTileBytes(
  s: ParcelStore,
  z: number,
  x: number,
  y: number,
  layers: readonly ParcelLayer[],
): Uint8Array {
  // the layer codes (index into PARCEL_LAYERS) shown at this zoom, in the order asked
  const codes: number[] = []
  for (const l of layers) if (z >= PARCEL_TILE_MIN_ZOOM[l]) codes.push(PARCEL_TILE_LAYERS.indexOf(l))
  if (codes.length === 0) return new Uint8Array(0)
  let wanted = 0
  for (const code of codes) wanted |= 1 << code
  const flags = s.flags
  const box = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const hits = s.index.search(box.minX, box.minY, box.maxX, box.maxY, (i) => {
    const fl = flags[i]
    return (fl & FLAG_HIDDEN) === 0 && (wanted & (1 << (fl & FLAG_LAYER_MASK))) !== 0
  })
  if (hits.length === 0) return new Uint8Array(0)
  // by id: the same tile always lists its features in the same order
  hits.sort((a, b) => a - b)
  const byLayer: TileFeature[][] = PARCEL_LAYERS.map(() => [])
  for (const i of hits) {
    const code = flags[i] & FLAG_LAYER_MASK
    byLayer[code].push(parcelTileFeature(i + 1, code, s.st.tile.get(i + 1) as ParcelTileRow))
  }
  const out: TileLayer[] = []
  for (const code of codes)
    if (byLayer[code].length) out.push({ name: PARCEL_LAYERS[code].file, features: byLayer[code] })
  return out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
}

/**
 * The parcel tiles of `layers` (in the order asked): stored ones where the dataset's store holds
 * the zoom (ETag from their content), else made when asked (ETag from the dataset version and the
 * layers).
 */
export function parcelTiles(s: ParcelStore, layers: readonly ParcelLayer[]): TileSource {
  const etag = `"${s.version}:${layers.join(',')}"`
  const store = s.tiles
  return {
    tileSet: () => parcelTileSet(layers, boundsOf([s.index]), s.version, s.asOf),
    tile: (z, x, y) =>
      store?.covers(z)
        ? storedTile(store.tile(z, x, y), layers, PARCEL_TILE_LAYERS)
        : { etag, encode: () => parcelTileBytes(s, z, x, y, layers) },
  }
}
