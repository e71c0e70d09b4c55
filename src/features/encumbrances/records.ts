/**
 * An encumbrance record: its row as the queries read it (the `encumbrance` table's columns, one
 * field table for the SQL column list and the row reader), its stored geometry, how it meets a
 * parcel or the caller's geometry, and its object form in the answers (the field order of docs/api.md "Encumbrances and
 * jurisdiction (spec 002)").
 *
 * @module
 */
import {
  LINE_CLASSES,
  polygonsAsLines,
  type EncumbranceClass,
  type Relationship,
} from '../../data/encumbrance-format.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import type { Lines } from '../../geo/lines.js'
import type { BBox } from '../../geo/polygon.js'
import { round } from '../../geo/round.js'

/** One row of `encumbrance`, as the queries use it. */
export interface EncumbranceRow {
  id: number
  uid: number
  cls: EncumbranceClass
  easeType: string
  easeTypeNormalised: string
  sgNumber: string | null
  province: string
  extentSqm: number | null
  lengthM: number | null
  widthM: number | null
  dateStamp: string | null
  recordStatus: string | null
  bbox: BBox
  geom: Buffer
  areaGeom: Buffer | null
}

/** Stored geometry: an area's polygons or a line's lines. */
export type StoredGeometry = { mp: MultiPolygon } | { lines: Lines }

/** A record with its decoded geometry. */
export interface Drawn {
  row: EncumbranceRow
  geometry: StoredGeometry
}

/** How one encumbrance meets a parcel or the caller's geometry. */
export interface Overlap {
  relationship: Relationship
  overlapSqm?: number | null
  overlapM?: number
  pct?: number
  /** The clipped piece when the relationship is `crosses` (areas: polygons; lines: lines). */
  clip?: { mp: MultiPolygon } | { lines: Lines }
}

/**
 * The field table of a row: each column of `encumbrance` a statement selects, in order, with the
 * {@link EncumbranceRow} field it fills (the four box columns fill `bbox`). COLUMNS is made from
 * it; {@link toRow} reads in its order (records.test.ts holds the two together).
 */
export const ROW_COLUMNS = [
  ['id', 'id'],
  ['uid', 'uid'],
  ['class', 'cls'],
  ['ease_type', 'easeType'],
  ['ease_type_normalised', 'easeTypeNormalised'],
  ['sg_number', 'sgNumber'],
  ['province', 'province'],
  ['extent_sqm', 'extentSqm'],
  ['length_m', 'lengthM'],
  ['width_m', 'widthM'],
  ['date_stamp', 'dateStamp'],
  ['record_status', 'recordStatus'],
  ['min_x', 'bbox.minX'],
  ['min_y', 'bbox.minY'],
  ['max_x', 'bbox.maxX'],
  ['max_y', 'bbox.maxY'],
  ['geom', 'geom'],
  ['area_geom', 'areaGeom'],
] as const

/** The column list of every statement that reads whole rows (see {@link toRow}). */
export const COLUMNS = ROW_COLUMNS.map(([column]) => column).join(', ')

/**
 * A record from the raw array of a statement selecting COLUMNS from column `k` on: statements run
 * with `.raw(true)`, since better-sqlite3 builds a row object property by property, a third of
 * an encumbrance row's read (its 18 columns: 7.2 µs as an object against 5.4 µs as an array and
 * this literal, national scale).
 */
export function toRow(a: unknown[], k = 0): EncumbranceRow {
  return {
    id: a[k] as number,
    uid: a[k + 1] as number,
    cls: a[k + 2] as EncumbranceClass,
    easeType: a[k + 3] as string,
    easeTypeNormalised: a[k + 4] as string,
    sgNumber: a[k + 5] as string | null,
    province: a[k + 6] as string,
    extentSqm: a[k + 7] as number | null,
    lengthM: a[k + 8] as number | null,
    widthM: a[k + 9] as number | null,
    dateStamp: a[k + 10] as string | null,
    recordStatus: a[k + 11] as string | null,
    bbox: {
      minX: a[k + 12] as number,
      minY: a[k + 13] as number,
      maxX: a[k + 14] as number,
      maxY: a[k + 15] as number,
    },
    geom: a[k + 16] as Buffer,
    areaGeom: a[k + 17] as Buffer | null,
  }
}

/** The record's surveyed lines, or null for an area. */
export function lineOf(r: EncumbranceRow): Lines | null {
  return LINE_CLASSES.has(r.cls) ? polygonsAsLines(decodeGeometry(r.geom)) : null
}

/** The record's polygons, or null for a line. */
export function areaOf(r: EncumbranceRow): MultiPolygon | null {
  return LINE_CLASSES.has(r.cls) ? null : decodeGeometry(r.geom)
}

/** The record's stored geometry: its surveyed lines, or its polygons. */
export function geometryOf(r: EncumbranceRow): StoredGeometry {
  const lines = lineOf(r)
  return lines ? { lines } : { mp: areaOf(r)! }
}

// ---- the object form of a record in the answers

export const UNDIMENSIONED_NOTE =
  'An undimensioned servitude line has no surveyed width, so no overlapping area can be computed; overlap_m gives ' +
  'its length inside.'

const r7 = (v: number) => round(v, 7)

/** GeoJSON of stored geometry: Polygon or MultiPolygon for areas, LineString or MultiLineString for lines. */
export function geoJsonOf(g: StoredGeometry): { type: string; coordinates: unknown } {
  if ('lines' in g) {
    const lines = g.lines.map((l) => l.map(([x, y]) => [r7(x), r7(y)]))
    return lines.length === 1
      ? { type: 'LineString', coordinates: lines[0] }
      : { type: 'MultiLineString', coordinates: lines }
  }
  const polys = g.mp.map((p) => p.map((r) => r.map(([x, y]) => [r7(x), r7(y)])))
  return polys.length === 1 ? { type: 'Polygon', coordinates: polys[0] } : { type: 'MultiPolygon', coordinates: polys }
}

/**
 * An encumbrance record in the spec's field order; absent fields omitted, never null (except overlap_sqm on an
 * undimensioned line).
 */
export function recordOf(
  r: EncumbranceRow,
  extra: { overlap?: Overlap; distanceM?: number; geometry?: StoredGeometry } = {},
): Record<string, unknown> {
  const o: Record<string, unknown> = {
    encumbrance_uid: r.uid,
    encumbrance_class: r.cls,
    ease_type_normalised: r.easeTypeNormalised,
    ease_type: r.easeType,
  }
  if (r.sgNumber) o.sg_number = r.sgNumber
  o.province = r.province
  if (r.extentSqm !== null) o.extent_sqm = r.extentSqm
  if (r.lengthM !== null) o.length_m = r.lengthM
  if (r.widthM !== null) o.width_m = r.widthM
  if (r.dateStamp) o.date_stamp = r.dateStamp
  if (r.recordStatus) o.record_status = r.recordStatus
  const ov = extra.overlap
  if (ov) {
    o.relationship = ov.relationship
    if (ov.overlapSqm !== undefined) o.overlap_sqm = ov.overlapSqm
    if (ov.pct !== undefined) o.overlap_pct_of_parcel = ov.pct
    if (ov.overlapM !== undefined) o.overlap_m = ov.overlapM
    if (ov.overlapSqm === null) o.note = UNDIMENSIONED_NOTE
  }
  if (extra.distanceM !== undefined) o.distance_m = round(extra.distanceM, 2)
  if (extra.geometry) o.geometry = geoJsonOf(extra.geometry)
  return o
}
