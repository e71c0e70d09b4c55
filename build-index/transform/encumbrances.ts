/**
 * One encumbrance source row (docs/source-formats.md "Encumbrances") to the record the build stores:
 * fields checked and normalised, the raw `ease_type` kept as given and mapped to the spec's
 * vocabulary, geometry checked for the class's kind (areas Polygon/MultiPolygon, lines
 * LineString/MultiLineString).
 *
 * @module
 */
import {
  LINE_CLASSES,
  RECORD_STATUSES,
  normaliseEaseType,
  type EaseType,
  type EncumbranceClass,
  type RecordStatus,
} from '../../src/data/encumbrance-format.js'
import type { MultiPolygon } from '../../src/geo/polygon.js'
import { provinceCode, type ProvinceCode } from '../../src/data/provinces.js'
import type { SourceGeometry, SourceProperties } from '../sources/read-layer.js'
import { normaliseDate } from './dates.js'
import { outsideCountry } from '../../src/geo/country-extent.js'
import { normalisePolygonGeometry } from './polygon-geometry.js'
import { round } from '../../src/geo/round.js'

export type Lines = [number, number][][]

export interface EncumbranceRecord {
  uid: number
  cls: EncumbranceClass
  /** Raw value as the source gives it (trailing padding removed), "" when blank. */
  easeType: string
  easeTypeNormalised: EaseType
  /** False for a non-blank raw value the spec's table does not list (mapped to `other`). */
  listed: boolean
  sgNumber: string | null
  province: ProvinceCode
  /** Source `geom_area` (areas only). */
  geomArea: number | null
  /** Lines only: a dimensioned servitude line's width. */
  widthM: number | null
  dateStamp: string | null
  status: RecordStatus | null
  /** Areas: the polygons; lines: null. */
  mp: MultiPolygon | null
  /** Lines: the lines; areas: null. */
  lines: Lines | null
}

export type EncumbranceResult =
  | { ok: true; rec: EncumbranceRecord; repaired: boolean; reoriented: boolean }
  | { ok: false; reason: string }

const text = (v: unknown): string | null => {
  if (v === null || v === undefined) return null
  const s = String(v).trim()
  return s === '' ? null : s
}
const round7 = (v: number) => round(v, 7)

/** A positive finite number, null when blank; `undefined` when present but not a positive number. */
function positive(v: unknown): number | null | undefined {
  const s = text(v)
  if (s === null) return null
  const n = Number(s)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

/**
 * A LineString or MultiLineString rounded to the stored 7 decimals, consecutive duplicates
 * dropped (a repair); a line with fewer than 2 distinct positions is rejected, a degenerate part
 * of a multi-line dropped (a repair).
 */
export function normaliseLineGeometry(
  geometry: SourceGeometry | null,
): { ok: true; lines: Lines; repaired: boolean } | { ok: false; reason: string } {
  if (!geometry) return { ok: false, reason: 'geometry is missing' }
  let parts: [number, number][][]
  if (geometry.type === 'LineString') parts = [geometry.coordinates]
  else if (geometry.type === 'MultiLineString') parts = geometry.coordinates
  else return { ok: false, reason: `geometry is ${geometry.type}, expected LineString or MultiLineString` }
  let repaired = false
  const lines: Lines = []
  for (const part of parts) {
    const pts: [number, number][] = []
    for (const [x0, y0] of part) {
      const x = round7(x0)
      const y = round7(y0)
      const last = pts[pts.length - 1]
      if (last && last[0] === x && last[1] === y) {
        repaired = true
        continue
      }
      pts.push([x, y])
    }
    if (pts.length < 2) {
      repaired = true
      continue
    }
    lines.push(pts)
  }
  if (!lines.length) return { ok: false, reason: 'a line has fewer than 2 distinct positions' }
  return { ok: true, lines, repaired }
}

/** One row of class `cls` from the province folder `folderProvince`. */
export function normaliseEncumbrance(
  props: SourceProperties,
  geometry: SourceGeometry | null,
  cls: EncumbranceClass,
  folderProvince: ProvinceCode,
): EncumbranceResult {
  const uidText = text(props.uid)
  if (uidText === null) return { ok: false, reason: 'uid is blank' }
  if (!/^\d{1,15}(\.0+)?$/.test(uidText) || Number.parseInt(uidText, 10) < 1)
    return { ok: false, reason: `uid "${uidText.slice(0, 20)}" is not a positive integer` }
  const uid = Number.parseInt(uidText, 10)

  let province = folderProvince
  const provText = text(props.province)
  if (provText !== null) {
    const p = provinceCode(provText)
    if (!p) return { ok: false, reason: `province "${provText.slice(0, 30)}" is not a South African province` }
    province = p
  }

  const statusText = text(props.status)?.toUpperCase() ?? null
  if (statusText !== null && !(RECORD_STATUSES as readonly string[]).includes(statusText)) {
    return { ok: false, reason: `status "${statusText.slice(0, 20)}" is not blank, ${RECORD_STATUSES.join(', ')}` }
  }

  const raw = props.ease_type === null || props.ease_type === undefined ? '' : String(props.ease_type)
  const { word, listed } = normaliseEaseType(raw, cls)

  const isLine = LINE_CLASSES.has(cls)
  const width = isLine ? positive(props.width_m) : null
  if (width === undefined)
    return { ok: false, reason: `width_m "${String(props.width_m).slice(0, 20)}" is not a positive number` }
  const area = isLine ? null : positive(props.geom_area)

  let mp: MultiPolygon | null = null
  let lines: Lines | null = null
  let repaired = false
  let reoriented = false
  if (isLine) {
    const g = normaliseLineGeometry(geometry)
    if (!g.ok) return g
    lines = g.lines
    repaired = g.repaired
  } else {
    const g = normalisePolygonGeometry(geometry)
    if (!g.ok) return g
    mp = g.mp
    repaired = g.repaired
    reoriented = g.reoriented
  }
  const outside = outsideCountry(geometry!.coordinates, 'SOUTH_AFRICA')
  if (outside) return { ok: false, reason: outside }
  return {
    ok: true,
    repaired,
    reoriented,
    rec: {
      uid,
      cls,
      easeType: raw,
      easeTypeNormalised: word,
      listed,
      sgNumber: text(props.sg_no) ?? text(props.sg_number),
      province,
      // a present but unusable geom_area is not worth a reject: the computed area stands in
      geomArea: area ?? null,
      widthM: width,
      dateStamp: normaliseDate(props.date_stamp),
      status: statusText as RecordStatus | null,
      mp,
      lines,
    },
  }
}
