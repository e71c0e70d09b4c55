/**
 * `/intersect`: the overlaps of the caller's route (lines) or area with the current records and
 * the current parcels, computed on the fly (docs/decisions.md "Encumbrances").
 *
 * @module
 */
import { FLAG_NOT_CURRENT, type EncumbranceClass, type Relationship } from '../../data/encumbrance-format.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { FLAG_HIDDEN, FLAG_LAYER_MASK } from '../../data/parcels-format.js'
import { cellsAlongLines, cellsOverPolygon } from '../../geo/cells.js'
import { segmentMeetsBox, type Lines } from '../../geo/lines.js'
import { lineLineOverlap, lineOverlap } from '../../geo/overlay/line-overlap.js'
import { polygonOverlap } from '../../geo/overlay/polygon-overlap.js'
import { PreparedLines, PreparedPolygon } from '../../geo/overlay/prepared.js'
import { NEAR_BOX_M } from '../../geo/overlay/tolerance.js'
import { round } from '../../geo/round.js'
import { recordById } from './lookups.js'
import { PARENT_FARM, type ParcelRef } from './parcels.js'
import { areaOf, lineOf, type EncumbranceRow, type Overlap } from './records.js'
import { stripOf } from './strip.js'
import type { EncumbranceStore } from './store.js'

/** /intersect stops listing after this many parcels or encumbrances and says so. */
export const INTERSECT_MAX_PARCELS = 10_000
export const INTERSECT_MAX_ENCUMBRANCES = 5_000
/**
 * Candidates gathered from the indexes before any geometry is read: past these the list is cut
 * and flagged truncated, so the work of one request is bounded whatever its shape (docs/api.md
 * "Bounded work").
 */
export const INTERSECT_MAX_PARCEL_CANDIDATES = 4 * INTERSECT_MAX_PARCELS
export const INTERSECT_MAX_ENCUMBRANCE_CANDIDATES = 4 * INTERSECT_MAX_ENCUMBRANCES
/**
 * The edges of the caller's area an overlay may handle, summed over the parcels and records it
 * is clipped with (each counts the area's edges within its box). Clipping costs about 35 µs per
 * such edge on the sample township (2 cores): the budget holds a request to about 1.5 s, where an
 * outline of thousands of vertices a metre apart over a township (a comb) took 8-30 s; a
 * 2 500 km² square over Johannesburg charges 137, a 1 500 km sliver 120 (docs/api.md "Bounded
 * work").
 */
export const INTERSECT_MAX_OVERLAY_EDGES = 40_000

/** Thrown when an area would need more overlay work than INTERSECT_MAX_OVERLAY_EDGES. */
export class OverlayTooComplex extends Error {
  constructor(readonly edges: number) {
    super(
      `the area's outline meets the parcels and records under it ${edges} times; at most ${INTERSECT_MAX_OVERLAY_EDGES}`,
    )
  }
}

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
  const boxes = isRoute ? cellsAlongLines(geometry.lines) : cellsOverPolygon(geometry.mp)
  const flags = s.flags

  // the overlay work an area will need, charged as candidates are found (routes are measured
  // along their lines, in time linear in the vertices near each parcel)
  let overlayEdges = 0
  const charge = (x0: number, y0: number, x1: number, y1: number) => {
    overlayEdges += prepArea!.edgesInBox(x0, y0, x1, y1)
    if (overlayEdges > INTERSECT_MAX_OVERLAY_EDGES) throw new OverlayTooComplex(overlayEdges)
    return true
  }
  const encIds = new Set<number>()
  let encCapped = false
  const encRoom = () => encIds.size < INTERSECT_MAX_ENCUMBRANCE_CANDIDATES || !(encCapped = true)
  if (isRoute) {
    // as for parcels below: only records whose box meets a piece of the route are read
    const pieces = routePieces(geometry.lines)
    for (const { cls, index, ids } of s.indexes) {
      if (!classes.includes(cls)) continue
      for (const [ax, ay, bx, by] of pieces) {
        const hit = (i: number, x0: number, y0: number, x1: number, y1: number) =>
          !(flags[ids[i] - 1] & FLAG_NOT_CURRENT) &&
          segmentMeetsBox(ax, ay, bx, by, { minX: x0, minY: y0, maxX: x1, maxY: y1 }) &&
          (encIds.has(ids[i]) || encRoom())
        for (const i of index.search(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by), hit))
          encIds.add(ids[i])
      }
    }
  } else {
    // and for an area, only records whose box it comes near (the cells along its edges hold
    // many that it does not reach)
    for (const { cls, index, ids } of s.indexes) {
      if (!classes.includes(cls)) continue
      const near = (i: number, x0: number, y0: number, x1: number, y1: number) =>
        !encIds.has(ids[i]) &&
        !(flags[ids[i] - 1] & FLAG_NOT_CURRENT) &&
        prepArea!.nearBox(x0, y0, x1, y1, NEAR_BOX_M) &&
        encRoom() &&
        charge(x0, y0, x1, y1)
      for (const b of boxes) for (const i of index.search(b.minX, b.minY, b.maxX, b.maxY, near)) encIds.add(ids[i])
    }
  }
  const encumbrances: { row: EncumbranceRow; overlap: Overlap }[] = []
  let encTruncated = encCapped
  for (const id of [...encIds].sort((a, b) => a - b)) {
    const r = recordById(s, id)
    const o = isRoute ? routeMeets(prepLines!, r, stripOf(s, r)) : areaMeets(prepArea!, geometry.mp, r, stripOf(s, r))
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
    const parcelIndex = ps.index
    const parcelFlags = ps.flags
    const ok = (i: number) => !(parcelFlags[i] & FLAG_HIDDEN) && (parcelFlags[i] & FLAG_LAYER_MASK) !== PARENT_FARM
    // a route's candidates are the parcels whose box meets one of its pieces (not every parcel
    // of the 500 m cells it passes: in a township that is ten times as many geometry reads)
    const cands = new Set<number>()
    let capped = false
    const room = () => cands.size < INTERSECT_MAX_PARCEL_CANDIDATES || !(capped = true)
    if (isRoute) {
      for (const [ax, ay, bx, by] of routePieces(geometry.lines)) {
        const hit = (i: number, x0: number, y0: number, x1: number, y1: number) =>
          ok(i) &&
          segmentMeetsBox(ax, ay, bx, by, { minX: x0, minY: y0, maxX: x1, maxY: y1 }) &&
          (cands.has(i) || room())
        for (const i of parcelIndex.search(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by), hit))
          cands.add(i)
      }
    } else {
      const near = (i: number, x0: number, y0: number, x1: number, y1: number) =>
        !cands.has(i) && ok(i) && prepArea!.nearBox(x0, y0, x1, y1, NEAR_BOX_M) && room() && charge(x0, y0, x1, y1)
      for (const b of boxes) for (const i of parcelIndex.search(b.minX, b.minY, b.maxX, b.maxY, near)) cands.add(i)
    }
    parcelsTruncated = capped
    for (const i of [...cands].sort((a, b) => a - b)) {
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
function areaMeets(
  area: PreparedPolygon,
  mp: MultiPolygon,
  r: EncumbranceRow,
  strip: MultiPolygon | null,
): Overlap | null {
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

/** Longest piece of a route searched with one box, degrees (about 250 m: a longer diagonal's box holds too much). */
const ROUTE_PIECE_DEG = 0.0025

/** The route cut into pieces of at most ROUTE_PIECE_DEG, as [ax, ay, bx, by]. */
function routePieces(lines: Lines): [number, number, number, number][] {
  const out: [number, number, number, number][] = []
  for (const l of lines)
    for (let i = 0; i + 1 < l.length; i++) {
      const [ax, ay] = l[i]
      const [bx, by] = l[i + 1]
      const k = Math.max(1, Math.ceil(Math.max(Math.abs(bx - ax), Math.abs(by - ay)) / ROUTE_PIECE_DEG))
      for (let j = 0; j < k; j++)
        out.push([
          ax + ((bx - ax) * j) / k,
          ay + ((by - ay) * j) / k,
          ax + ((bx - ax) * (j + 1)) / k,
          ay + ((by - ay) * (j + 1)) / k,
        ])
    }
  return out
}
