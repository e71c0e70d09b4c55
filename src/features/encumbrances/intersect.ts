/**
 * `/intersect`: the overlaps of the caller's route (lines) or area with the current records and
 * the current parcels, computed on the fly (docs/decisions.md "Encumbrances").
 *
 * @module
 */
import { FLAG_NOT_CURRENT, type EncumbranceClass, type Relationship } from '../../data/encumbrance-format.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { FLAG_HIDDEN, FLAG_LAYER_MASK } from '../../data/parcels-format.js'
import type { Lines } from '../../geo/lines.js'
import { lineLineOverlap, lineOverlap } from '../../geo/overlay/line-overlap.js'
import { polygonOverlap } from '../../geo/overlay/polygon-overlap.js'
import { PreparedLines, PreparedPolygon } from '../../geo/overlay/prepared.js'
import { round } from '../../geo/round.js'
import {
  areaReach,
  Candidates,
  INTERSECT_MAX_ENCUMBRANCE_CANDIDATES,
  INTERSECT_MAX_ENCUMBRANCES,
  INTERSECT_MAX_PARCEL_CANDIDATES,
  INTERSECT_MAX_PARCELS,
  routeReach,
} from './candidates.js'
import { recordById } from './lookups.js'
import { PARENT_FARM, type ParcelRef } from './parcels.js'
import { areaOf, lineOf, type EncumbranceRow, type Overlap } from './records.js'
import { stripOf } from './strip.js'
import type { EncumbranceStore } from './store.js'

/** A parcel the caller's geometry enters: route length or area inside it. */
export interface ParcelEntered {
  parcel: ParcelRef
  overlapM?: number
  overlapSqm?: number
}

export interface IntersectResult {
  encumbrances: { row: EncumbranceRow; overlap: Overlap }[]
  parcels: ParcelEntered[]
  encTruncated: boolean
  parcelsTruncated: boolean
  lengthM: number | null
  areaSqm: number | null
  parcelsAvailable: boolean
}

const round2 = (v: number) => round(v, 2)

/**
 * /intersect for a route (lines) or an area: the current encumbrances it meets, relationship
 * of each to the caller's geometry, and the current parcels except parent farms whose interior
 * it enters (docs/decisions.md "Encumbrances").
 */
export function intersect(
  s: EncumbranceStore,
  geometry: { lines: Lines } | { mp: MultiPolygon },
  classes: readonly EncumbranceClass[],
): IntersectResult {
  const isRoute = 'lines' in geometry
  const prepLines = isRoute ? new PreparedLines(geometry.lines) : null
  const prepArea = isRoute ? null : new PreparedPolygon(geometry.mp)
  // a route reaches the candidates whose box one of its pieces meets, an area those whose box it
  // comes near, charging its overlay work as they are found (candidates.ts)
  const reach = isRoute ? routeReach(geometry.lines) : areaReach(prepArea!)
  const flags = s.flags
  const current = (id: number) => !(flags[id - 1] & FLAG_NOT_CURRENT)
  const enc = new Candidates(INTERSECT_MAX_ENCUMBRANCE_CANDIDATES)
  for (const { cls, index, ids } of s.indexes)
    if (classes.includes(cls)) enc.gather(index, reach, (i) => ids[i], current)
  const encumbrances: { row: EncumbranceRow; overlap: Overlap }[] = []
  let encTruncated = enc.capped
  for (const id of enc.sorted()) {
    const r = recordById(s, id)
    const o = prepLines ? routeMeets(prepLines, r, stripOf(s, r)) : areaMeets(prepArea!, r, stripOf(s, r))
    if (!o) continue
    if (encumbrances.length === INTERSECT_MAX_ENCUMBRANCES) {
      encTruncated = true
      break
    }
    encumbrances.push({ row: r, overlap: o })
  }

  const parcels: ParcelEntered[] = []
  let parcelsTruncated = false
  const ps = s.parcels
  if (ps) {
    const parcelFlags = ps.flags
    const listed = (i: number) => !(parcelFlags[i] & FLAG_HIDDEN) && (parcelFlags[i] & FLAG_LAYER_MASK) !== PARENT_FARM
    const cands = new Candidates(INTERSECT_MAX_PARCEL_CANDIDATES)
    cands.gather(ps.index, reach, (i) => i, listed)
    parcelsTruncated = cands.capped
    for (const i of cands.sorted()) {
      const mp = ps.geometry(i + 1)
      let item: ParcelEntered | null = null
      if (prepLines) {
        const o = lineOverlap(prepLines, mp)
        if (o && o.relationship !== 'touches' && o.overlapM > 0)
          item = { parcel: ps.ref(i + 1), overlapM: round2(o.overlapM) }
      } else {
        const o = polygonOverlap(prepArea!, mp)
        if (o && o.relationship !== 'touches' && o.overlapSqm > 0)
          item = { parcel: ps.ref(i + 1), overlapSqm: round2(o.overlapSqm) }
      }
      if (!item) continue
      if (parcels.length === INTERSECT_MAX_PARCELS) {
        parcelsTruncated = true
        break
      }
      parcels.push(item)
    }
  }
  return {
    encumbrances,
    parcels,
    encTruncated,
    parcelsTruncated,
    lengthM: prepLines?.lengthM ?? null,
    areaSqm: prepArea?.areaSqm ?? null,
    parcelsAvailable: ps !== null,
  }
}

/**
 * An encumbrance against a route: relationship of the encumbrance to the route, length along it.
 * A dimensioned line is its strip: `overlap_m` is the length of the route inside the strip.
 */
function routeMeets(route: PreparedLines, r: EncumbranceRow, strip: MultiPolygon | null): Overlap | null {
  const lines = strip ? null : lineOf(r)
  if (lines) {
    const o = lineLineOverlap(route, lines)
    if (!o) return null
    return { relationship: o.relationship, overlapM: round2(o.overlapM), overlapSqm: null }
  }
  const o = lineOverlap(route, strip ?? areaOf(r)!)
  if (!o) return null
  // lineOverlap tells how the route lies in the area; the answer is the area's relation to the route
  const rel: Relationship = o.relationship === 'within' ? 'contains' : o.relationship
  return { relationship: rel, overlapM: round2(o.relationship === 'touches' ? o.boundaryM : o.overlapM) }
}

/**
 * An encumbrance against an area: relationship of the encumbrance to the area, overlap in m²
 * (and, for lines, m of the line inside the area). A dimensioned line is judged and measured by
 * its strip; an undimensioned one by the line, with `overlap_sqm` null.
 */
function areaMeets(area: PreparedPolygon, r: EncumbranceRow, strip: MultiPolygon | null): Overlap | null {
  const mp = area.geometry
  const lines = lineOf(r)
  if (lines && !strip) {
    const o = lineOverlap(lines, mp)
    if (!o) return null
    if (o.relationship === 'touches') return { relationship: 'touches', overlapSqm: 0, overlapM: round2(o.boundaryM) }
    return { relationship: o.relationship, overlapSqm: null, overlapM: round2(o.overlapM) }
  }
  const o = polygonOverlap(area, strip ?? decodeGeometry(r.geom))
  if (!o) return null
  // polygonOverlap(a, b) tells how the caller's area a lies to the record b; the answer is b's relation to a
  if (o.relationship === 'within' || o.relationship === 'contains')
    o.relationship = o.relationship === 'within' ? 'contains' : 'within'
  const out: Overlap = {
    relationship: o.relationship,
    overlapSqm: o.relationship === 'touches' ? 0 : round2(o.overlapSqm),
  }
  if (lines) out.overlapM = round2(lengthInside(lines, mp))
  return out
}

/** Length in metres of the lines inside the polygon, or along its boundary when none is inside. */
export function lengthInside(lines: Lines, mp: MultiPolygon): number {
  const o = lineOverlap(lines, mp)
  if (!o) return 0
  return o.relationship === 'touches' ? o.boundaryM : o.overlapM
}
