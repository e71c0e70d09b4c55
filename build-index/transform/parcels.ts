/**
 * Cadastre rows to stored parcels: required fields checked, geometry normalised and repaired
 * (DECISIONS.md "Ingest"): unclosed rings closed, duplicate consecutive vertices dropped, winding
 * set to RFC 7946, self-intersections resolved keeping all covered area (a union, as PostGIS
 * ST_MakeValid does, via polyclip-ts). A ring with fewer than 3 distinct positions is rejected.
 */
import { union } from 'polyclip-ts'
import { LPI_PATTERN, isHidden, type ParcelType } from '../../src/data/parcels-format.js'
import { type MultiPolygon, type Polygon, type Ring } from '../../src/data/geometry-blob.js'
import { PROVINCES, type ProvinceCode } from '../../src/data/provinces.js'
import { bboxOf, multiPolygonAreaSqm, ringSelfIntersects, ringSignedArea2 } from '../../src/geo/polygon.js'
import type { SourceGeometry, SourceProperties } from '../sources/read-layer.js'

export interface ParcelRecord {
  type: ParcelType
  province: ProvinceCode
  lpi: string
  sourceKey: string | null
  parcelNumber: number | null
  portion: number | null
  tagValue: string | null
  majorRegion: string | null
  majorCode: string | null
  minorRegion: string | null
  minorCode: string | null
  lstatus: string
  wstatus: string | null
  extentSqm: number
  labelLon: number
  labelLat: number
  dateStamp: string | null
  hidden: boolean
  geometry: MultiPolygon
}

export type ParcelResult = { ok: true; rec: ParcelRecord; repaired: boolean } | { ok: false; reason: string }

const text = (v: unknown): string | null => {
  if (v === null || v === undefined) return null
  const s = String(v).trim()
  return s === '' ? null : s
}
const int = (v: unknown): number | null => {
  const s = text(v)
  if (s === null || !/^-?\d+(\.0+)?$/.test(s)) return null
  return Number.parseInt(s, 10)
}
const round7 = (v: number) => Math.round(v * 1e7) / 1e7

/** YYYYMMDD or YYYY-MM-DD to YYYY-MM-DD; anything else null. */
export function normaliseDate(v: unknown): string | null {
  const s = text(v)
  if (!s) return null
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(s)
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null
}

/** Closes, dedupes and orients one ring; null when fewer than 3 distinct positions remain. */
function cleanRing(raw: [number, number][], exterior: boolean, note: () => void, countWinding = true): Ring | null {
  const pts: Ring = []
  for (const [x0, y0] of raw) {
    const x = round7(x0)
    const y = round7(y0)
    const last = pts[pts.length - 1]
    if (last && last[0] === x && last[1] === y) {
      note()
      continue
    }
    pts.push([x, y])
  }
  if (pts.length && (pts[0][0] !== pts[pts.length - 1][0] || pts[0][1] !== pts[pts.length - 1][1])) {
    if (raw.length && (raw[0][0] !== raw[raw.length - 1][0] || raw[0][1] !== raw[raw.length - 1][1])) note()
    pts.push([pts[0][0], pts[0][1]])
  }
  const distinct = new Set(pts.slice(0, -1).map(([x, y]) => `${x},${y}`)).size
  if (distinct < 3) return null
  const ccw = ringSignedArea2(pts) > 0
  if (ccw !== exterior) {
    if (countWinding) note()
    pts.reverse()
  }
  return pts
}

/** Normalises a Polygon or MultiPolygon; `repaired` says whether anything was changed. */
export function normalisePolygonGeometry(
  geometry: SourceGeometry | null,
  /** False for sources whose format fixes the other winding (shapefiles and the Board's TopoJSON store exteriors clockwise). */
  countWinding = true,
): { ok: true; mp: MultiPolygon; repaired: boolean } | { ok: false; reason: string } {
  if (!geometry) return { ok: false, reason: 'geometry is missing' }
  let polys: [number, number][][][]
  if (geometry.type === 'Polygon') polys = [geometry.coordinates]
  else if (geometry.type === 'MultiPolygon') polys = geometry.coordinates
  else return { ok: false, reason: `geometry is ${geometry.type}, expected Polygon or MultiPolygon` }
  let repaired = false
  const note = () => (repaired = true)
  const mp: MultiPolygon = []
  for (const poly of polys) {
    const out: Polygon = []
    for (let i = 0; i < poly.length; i++) {
      const ring = cleanRing(poly[i], i === 0, note, countWinding)
      if (!ring) {
        if (i === 0) return { ok: false, reason: 'a ring has fewer than 3 distinct positions' }
        note() // a degenerate hole is dropped
        continue
      }
      out.push(ring)
    }
    mp.push(out)
  }
  if (mp.some((poly) => poly.some((ring) => ringSelfIntersects(ring)))) {
    // union of the geometry with itself resolves crossings and keeps every covered area
    const fixed = union(mp.map((poly) => poly.map((ring) => ring.map(([x, y]) => [x, y] as [number, number]))))
    if (fixed.length === 0) return { ok: false, reason: 'self-intersecting geometry encloses no area' }
    const cleaned: MultiPolygon = []
    for (const poly of fixed) {
      const out: Polygon = []
      poly.forEach((ring, i) => {
        const r = cleanRing(ring, i === 0, () => {})
        if (r) out.push(r)
      })
      if (out.length) cleaned.push(out)
    }
    return { ok: true, mp: cleaned, repaired: true }
  }
  return { ok: true, mp, repaired }
}

/** A point inside the polygon for a label when the source gives none: the centre of its box if inside, else a vertex. */
function labelOf(mp: MultiPolygon): [number, number] {
  const b = bboxOf(mp)
  return [round7((b.minX + b.maxX) / 2), round7((b.minY + b.maxY) / 2)]
}

/** One cadastre row of layer `type` in province `province` (from the folder name). */
export function normaliseParcel(props: SourceProperties, geometry: SourceGeometry | null, type: ParcelType, province: ProvinceCode): ParcelResult {
  const lpi = text(props.id)?.toUpperCase() ?? null
  if (!lpi) return { ok: false, reason: 'id (LPI) is blank' }
  if (lpi.length !== 21 || !LPI_PATTERN.test(lpi)) return { ok: false, reason: `id "${lpi.slice(0, 40)}" is not a 21-character LPI` }
  const lstatus = text(props.lstatus)?.toUpperCase() ?? null
  if (!lstatus) return { ok: false, reason: 'lstatus is blank' }
  if (!/^[RSPAW]$/.test(lstatus)) return { ok: false, reason: `lstatus "${lstatus.slice(0, 10)}" is not R, S, P, A or W` }
  let wstatus = text(props.wstatus)?.toUpperCase() ?? null
  if (wstatus !== null && !/^[CPH]$/.test(wstatus)) wstatus = null
  const g = normalisePolygonGeometry(geometry)
  if (!g.ok) return g
  const tagX = Number(props.tag_x)
  const tagY = Number(props.tag_y)
  const hasTag = text(props.tag_x) !== null && text(props.tag_y) !== null && Number.isFinite(tagX) && Number.isFinite(tagY) && Math.abs(tagX) <= 180 && Math.abs(tagY) <= 90
  const [labelLon, labelLat] = hasTag ? [round7(tagX), round7(tagY)] : labelOf(g.mp)
  const geomArea = Number(props.geom_area)
  const extentSqm = text(props.geom_area) !== null && Number.isFinite(geomArea) && geomArea > 0 ? geomArea : multiPolygonAreaSqm(g.mp)
  const sourceKey = text(props.prcl_key)?.toUpperCase() ?? null
  return {
    ok: true,
    repaired: g.repaired,
    rec: {
      type,
      province,
      lpi,
      sourceKey: sourceKey && sourceKey.length === 26 ? sourceKey : null,
      parcelNumber: int(props.parcel_no),
      portion: int(props.portion),
      tagValue: text(props.tag_value),
      majorRegion: text(props.maj_region),
      majorCode: text(props.maj_code),
      minorRegion: text(props.min_region),
      minorCode: text(props.min_code),
      lstatus,
      wstatus,
      extentSqm: Math.round(extentSqm * 100) / 100,
      labelLon,
      labelLat,
      dateStamp: normaliseDate(props.date_stamp),
      hidden: isHidden(lstatus, wstatus),
      geometry: g.mp,
    },
  }
}

export const provinceName = (code: ProvinceCode): string => PROVINCES[code]
