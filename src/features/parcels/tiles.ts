/**
 * Vector tiles of the cadastre: one layer per parcel type (named as the lower-case type, the
 * layer's file name in PARCEL_LAYERS), each from its own zoom on, records the default status
 * filter shows only, as Mapbox Vector Tile bytes (src/geo/mvt/encode.ts).
 *
 * @module
 */
import { FLAG_HIDDEN, FLAG_LAYER_MASK, PARCEL_LAYERS, WORK_STATUS, type ParcelType } from '../../data/parcels-format.js'
import { decodeGeometry } from '../../data/geometry-blob.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileFeature, type TileLayer } from '../../geo/mvt/encode.js'
import { tileBBox } from '../../geo/tiles.js'
import type { TileSource } from '../../http/tile-source.js'
import { boundsOf, type TileSet, type VectorLayer } from '../../http/tilejson.js'
import type { ParcelStore } from './store.js'

/** A tile layer: the lower-case parcel type (`erf`, `farm_portion`, …). */
export type ParcelLayer = (typeof PARCEL_LAYERS)[number]['file']
export const PARCEL_TILE_LAYERS: ParcelLayer[] = PARCEL_LAYERS.map((l) => l.file)

/**
 * Tile scale gates: the lowest zoom at which a layer carries features, chosen so that a tile stays
 * within a few hundred KB at national density (measured on the national synthetic dataset, whose
 * densest 0.01° cell holds about 2 700 erven; docs/api.md "Parcel tiles"): over the three densest
 * townships, a z14 tile of erven is 390 to 600 KB and a z15 tile 150 to 220 KB, so erven start at
 * z15. Streets and public places, far fewer, make under 40 KB per z14 tile there. Holdings are a few KB per tile at z12, farm portions
 * under 50 KB at z11, parent farms under 30 KB at z10.
 */
export const PARCEL_TILE_MIN_ZOOM: Record<ParcelLayer, number> = {
  parent_farm: 10,
  farm_portion: 11,
  holding: 12,
  erf: 15,
  public_place: 14,
  street: 14,
}

/** Clients over-zoom beyond this (src/http/tilejson.ts): a vertex is then within about 0.15 m. */
export const PARCEL_TILES_MAX_ZOOM = 16

/** The properties of every parcel feature, as TileJSON lists them (parcelTileBytes writes them). */
const PARCEL_FIELDS: Record<string, string> = {
  lpi: 'String: the 21-character SG key (LPI)',
  parcel_type: 'String: ERF, FARM_PORTION, HOLDING, PARENT_FARM, PUBLIC_PLACE or STREET',
  tag: 'String: the tag value (erf number, portion/farm number or farm name); absent when the record has none',
  status: 'String: the work status, current or proposed (a blank work status counts as current)',
  legal_status: 'String: the legal status code, R (registered), S (surveyed) or P (proposed)',
}

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
        fields: PARCEL_FIELDS,
        minzoom: PARCEL_TILE_MIN_ZOOM[l],
      }),
    ),
    bounds: extent,
    dataset_version: version,
    as_of: asOf,
  }
}

/** The `status` property: the work status as a word; a blank work status counts as current. */
const STATUS: Record<string, string> = Object.fromEntries(
  Object.entries(WORK_STATUS).map(([code, label]) => [code, label.toLowerCase()]),
)

/** The row a tile feature is made of: `SELECT lpi, tag_value, lstatus, wstatus, geom`, raw. */
type TileRow = [string, string | null, string, string | null, Buffer]

/** The tile's bytes, or none when no feature falls in it. */
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
    const id = i + 1
    const code = flags[i] & FLAG_LAYER_MASK
    const [lpi, tag, lstatus, wstatus, geom] = s.st.tile.get(id) as TileRow
    const properties: TileFeature['properties'] = {
      lpi,
      parcel_type: PARCEL_LAYERS[code].type satisfies ParcelType,
      status: (wstatus && STATUS[wstatus]) || 'current',
      legal_status: lstatus,
    }
    if (tag) properties.tag = tag
    byLayer[code].push({ id, geometry: decodeGeometry(geom), properties })
  }
  const out: TileLayer[] = []
  for (const code of codes)
    if (byLayer[code].length) out.push({ name: PARCEL_LAYERS[code].file, features: byLayer[code] })
  return out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
}

/** The parcel tiles of `layers` (in the order asked); the ETag names the dataset version and the layers. */
export function parcelTiles(s: ParcelStore, layers: readonly ParcelLayer[]): TileSource {
  const etag = `"${s.version}:${layers.join(',')}"`
  return {
    tileSet: () => parcelTileSet(layers, boundsOf([s.index]), s.version, s.asOf),
    tile: (z, x, y) => ({ etag, encode: () => parcelTileBytes(s, z, x, y, layers) }),
  }
}
