/**
 * Cadastre rows to stored parcels: required fields checked, geometry normalised and repaired
 * (docs/decisions.md "Ingest"; the rules in polygon-geometry.ts), a label point where the source
 * gives none.
 */
import { LPI_PATTERN, isHidden, type ParcelType } from '../../src/data/parcels-format.js'
import type { MultiPolygon } from '../../src/data/geometry-blob.js'
import { PROVINCES, type ProvinceCode } from '../../src/data/provinces.js'
import { labelPoint } from '../../src/geo/label-point.js'
import { distanceToPointM, multiPolygonAreaSqm } from '../../src/geo/polygon.js'
import type { SourceGeometry, SourceProperties } from '../sources/read-layer.js'
import { normaliseDate } from './dates.js'
import { outsideCountry } from '../../src/geo/country-extent.js'
import { normalisePolygonGeometry } from './polygon-geometry.js'
import { blankReason } from './required.js'
import { round } from '../../src/geo/round.js'

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
  /** the geometry's geodesic area, m² (extentSqm is the source's geom_area when it gives one) */
  geodesicSqm: number
  /** extentSqm came from the source's geom_area */
  areaFromSource: boolean
  labelLon: number
  labelLat: number
  dateStamp: string | null
  hidden: boolean
  geometry: MultiPolygon
}

export type ParcelResult =
  | {
      ok: true
      rec: ParcelRecord
      repaired: boolean
      reoriented: boolean
      /** the source's label point (tag_x, tag_y) lay outside the parcel and was replaced */
      labelReplaced: boolean
    }
  | { ok: false; reason: string }

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
const round7 = (v: number) => round(v, 7)

/** A point inside the polygon for a label when the source gives none (docs/decisions.md "Label points"). */
/** How far outside its parcel a source label point may lie and still be served (the 2 cm rule). */
export const LABEL_INSIDE_M = 0.02

function labelOf(mp: MultiPolygon): [number, number] {
  const [x, y] = labelPoint(mp)
  return [round7(x), round7(y)]
}

/** One cadastre row of layer `type` in province `province` (from the folder name). */
export function normaliseParcel(
  props: SourceProperties,
  geometry: SourceGeometry | null,
  type: ParcelType,
  province: ProvinceCode,
): ParcelResult {
  const lpi = text(props.id)?.toUpperCase() ?? null
  const lstatus = text(props.lstatus)?.toUpperCase() ?? null
  if (!lpi || !lstatus)
    return {
      ok: false,
      reason: blankReason([
        ['id (LPI)', lpi],
        ['lstatus', lstatus],
      ]),
    }
  if (lpi.length !== 21 || !LPI_PATTERN.test(lpi))
    return { ok: false, reason: `id "${lpi.slice(0, 40)}" is not a 21-character LPI` }
  if (!/^[RSPAW]$/.test(lstatus))
    return { ok: false, reason: `lstatus "${lstatus.slice(0, 10)}" is not R, S, P, A or W` }
  let wstatus = text(props.wstatus)?.toUpperCase() ?? null
  if (wstatus !== null && !/^[CPH]$/.test(wstatus)) wstatus = null
  const g = normalisePolygonGeometry(geometry)
  if (!g.ok) return g
  const outside = outsideCountry(geometry!.coordinates, 'SOUTH_AFRICA')
  if (outside) return { ok: false, reason: outside }
  const tagX = Number(props.tag_x)
  const tagY = Number(props.tag_y)
  const hasTag =
    text(props.tag_x) !== null &&
    text(props.tag_y) !== null &&
    Number.isFinite(tagX) &&
    Number.isFinite(tagY) &&
    Math.abs(tagX) <= 180 &&
    Math.abs(tagY) <= 90
  // the source's label point only where it lies in the parcel (within 2 cm of it): real exports
  // put some in a neighbour, or in another erf standing in this one's hole (docs/decisions.md
  // "Label points")
  const tagged: [number, number] | null = hasTag ? [round7(tagX), round7(tagY)] : null
  const tagInside = tagged !== null && distanceToPointM(g.mp, tagged[0], tagged[1]) <= LABEL_INSIDE_M
  const [labelLon, labelLat] = tagInside ? tagged! : labelOf(g.mp)
  const geomArea = Number(props.geom_area)
  const geodesicSqm = multiPolygonAreaSqm(g.mp)
  const areaFromSource = text(props.geom_area) !== null && Number.isFinite(geomArea) && geomArea > 0
  const extentSqm = areaFromSource ? geomArea : geodesicSqm
  const sourceKey = text(props.prcl_key)?.toUpperCase() ?? null
  return {
    ok: true,
    repaired: g.repaired,
    reoriented: g.reoriented,
    labelReplaced: tagged !== null && !tagInside,
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
      extentSqm: round(extentSqm, 2),
      geodesicSqm: round(geodesicSqm, 2),
      areaFromSource,
      labelLon,
      labelLat,
      dateStamp: normaliseDate(props.date_stamp),
      hidden: isHidden(lstatus, wstatus),
      geometry: g.mp,
    },
  }
}

export const provinceName = (code: ProvinceCode): string => PROVINCES[code]
