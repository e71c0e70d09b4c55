/**
 * What a parcel tile holds, shared by the tiles build-index stores (build-index/tiles/) and those
 * the server makes when asked (src/features/parcels/tiles.ts), so both make the same bytes: the
 * layers (one per parcel type, named as the lower-case type, in PARCEL_LAYERS order), the zoom
 * each appears from, the row a feature is read from and the feature made of it. The store itself:
 * `parcels/tiles.mbtiles` (tile-store.ts), zooms PARCEL_TILE_MIN_ZOOM.parent_farm to
 * PARCEL_TILES_MAX_ZOOM.
 *
 * @module
 */
import { decodeGeometry } from './geometry-blob.js'
import { PARCEL_LAYERS, WORK_STATUS, type ParcelType } from './parcels-format.js'
import type { TileFeature } from '../geo/mvt/encode.js'

/** The tile store of the parcel domain (tile-store.ts). */
export const PARCEL_TILES_FILE = 'parcels/tiles.mbtiles'

/** A tile layer: the lower-case parcel type (`erf`, `farm_portion`, …). */
export type ParcelLayer = (typeof PARCEL_LAYERS)[number]['file']
/** Every layer, in the order a tile lists them (a layer's index is its parcel layer code). */
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

/**
 * Clients over-zoom beyond this (src/http/tilejson.ts): a vertex is then within about 0.15 m. The
 * tile store holds every zoom up to it; deeper tiles are made when asked.
 */
export const PARCEL_TILES_MAX_ZOOM = 16

/** The properties of every parcel feature, as TileJSON (and the store's metadata) lists them. */
export const PARCEL_TILE_FIELDS: Record<string, string> = {
  lpi: 'String: the 21-character SG key (LPI)',
  parcel_type: 'String: ERF, FARM_PORTION, HOLDING, PARENT_FARM, PUBLIC_PLACE or STREET',
  tag: 'String: the tag value (erf number, portion/farm number or farm name); absent when the record has none',
  status: 'String: the work status, current or proposed (a blank work status counts as current)',
  legal_status: 'String: the legal status code, R (registered), S (surveyed) or P (proposed)',
}

/** The `status` property: the work status as a word; a blank work status counts as current. */
const STATUS: Record<string, string> = Object.fromEntries(
  Object.entries(WORK_STATUS).map(([code, label]) => [code, label.toLowerCase()]),
)

/** The row a tile feature is made of, by parcel id, raw: `lpi, tag_value, lstatus, wstatus, geom`. */
export const PARCEL_TILE_ROW_SQL = 'SELECT lpi, tag_value, lstatus, wstatus, geom FROM parcel WHERE id = ?'
export type ParcelTileRow = [string, string | null, string, string | null, Buffer]

/** The tile feature of parcel `id` (layer `code`) from its row. */
export function parcelTileFeature(id: number, code: number, row: ParcelTileRow): TileFeature {
  const [lpi, tag, lstatus, wstatus, geom] = row
  const properties: TileFeature['properties'] = {
    lpi,
    parcel_type: PARCEL_LAYERS[code].type satisfies ParcelType,
    status: (wstatus && STATUS[wstatus]) || 'current',
    legal_status: lstatus,
  }
  if (tag) properties.tag = tag
  return { id, geometry: decodeGeometry(geom), properties }
}
