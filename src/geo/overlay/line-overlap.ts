/**
 * How lines relate to a polygon (length inside and along its boundary, the pieces inside) and
 * to other lines (shared length). See classify.ts for how a segment is cut against a polygon and
 * tolerance.ts for the tolerances.
 */
import { fastGeodesicM } from '../geodesic.js'
import type { MultiPolygon } from '../polygon.js'
import { classifySegment, newTally } from './classify.js'
import { buildEdges, frameAt, PART_END, PART_START, searchEdges, segDist2, type Frame } from './edges.js'
import { PreparedLines } from './prepared.js'
import { EDGE_TOL_M } from './tolerance.js'
import type { MultiLineString, Relationship } from './types.js'

export interface LineOverlap {
  relationship: Relationship
  /**
   * Length in metres inside the polygon's interior; length lying along its boundary is NOT included (see boundaryM).
   */
  overlapM: number
  /** Length in metres lying along the boundary (within {@link EDGE_TOL_M}). */
  boundaryM: number
  /** The parts of the line in the closed polygon (interior and along the boundary); point contacts are left out. */
  geometry: MultiLineString
}

const LINE_HITS: number[] = []

/**
 * How lines relate to polygon `b`: null when disjoint; 'touches' when they meet only its boundary
 * (overlapM 0, boundaryM the length along it, 0 for point contact); 'within' when all of the line
 * is in the closed polygon and some of it in the interior; else 'crosses'. overlapM counts the
 * interior only: length lying along the boundary is in boundaryM, not in overlapM (add the two for
 * the length in the closed polygon). A prepared line is only searched where it meets b's box.
 */
export function lineOverlap(a: MultiLineString | PreparedLines, b: MultiPolygon): LineOverlap | null {
  const lines = a instanceof PreparedLines ? a.edges : buildEdges(a, false, false)
  const region = buildEdges(b.flat(), true, false)
  if (lines.n === 0 || region.n === 0) return null
  const fr = frameAt(region.bbox)
  const box = region.bbox
  const hits = searchEdges(lines, box.minX - fr.tx, box.minY - fr.ty, box.maxX + fr.tx, box.maxY + fr.ty, LINE_HITS)
  if (hits.length === 0) return null
  const tally = newTally([], null)
  // segments away from the polygon's box lie outside it
  if (hits.length < lines.n) tally.exterior = true
  const c = lines.c
  for (const i of hits)
    classifySegment(c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3], lines.flags[i], region, fr, tally)
  let relationship: Relationship
  if (tally.interior) relationship = tally.exterior ? 'crosses' : 'within'
  else if (tally.contact || tally.boundary) relationship = 'touches'
  else return null
  return { relationship, overlapM: tally.interiorM, boundaryM: tally.boundaryM, geometry: tally.pieces! }
}

let ovLo = 0
let ovHi = 0
let ovLenM = 0

/**
 * True when p and q both lie within the tolerance of the line through a-b; their overlap with a-b is then [ovLo, ovHi]
 * in a-b's parameter.
 */
function alongLine(
  px: number,
  py: number,
  qx: number,
  qy: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  fr: Frame,
): boolean {
  const ux = (bx - ax) * fr.kx
  const uy = (by - ay) * fr.ky
  const l2 = ux * ux + uy * uy
  const wpx = (px - ax) * fr.kx
  const wpy = (py - ay) * fr.ky
  const wqx = (qx - ax) * fr.kx
  const wqy = (qy - ay) * fr.ky
  const cp = ux * wpy - uy * wpx
  const cq = ux * wqy - uy * wqx
  if (cp * cp > fr.tol2 * l2 || cq * cq > fr.tol2 * l2) return false
  const tp = (wpx * ux + wpy * uy) / l2
  const tq = (wqx * ux + wqy * uy) / l2
  ovLo = Math.max(0, Math.min(tp, tq))
  ovHi = Math.min(1, Math.max(tp, tq))
  ovLenM = Math.sqrt(l2)
  return true
}

let sharedM = 0

/**
 * 1 when (x, y) is within the tolerance of an end point of either line (flags say which segment ends are line ends),
 * else 2.
 */
function endContact(
  x: number,
  y: number,
  s: Float64Array,
  so: number,
  sFlags: number,
  e: Float64Array,
  eo: number,
  eFlags: number,
  fr: Frame,
): 1 | 2 {
  const near = (vx: number, vy: number) => ((x - vx) * fr.kx) ** 2 + ((y - vy) * fr.ky) ** 2 <= fr.tol2
  if ((sFlags & PART_START && near(s[so], s[so + 1])) || (sFlags & PART_END && near(s[so + 2], s[so + 3]))) return 1
  if ((eFlags & PART_START && near(e[eo], e[eo + 1])) || (eFlags & PART_END && near(e[eo + 2], e[eo + 3]))) return 1
  return 2
}

/**
 * Contact of segment p-q (of line a, at s[so]) with segment a-b (of line b, at e[eo]): 0 none,
 * 1 only at an end point of either line, 2 elsewhere; a collinear overlap longer than the
 * tolerance is 2 and leaves its length in sharedM.
 */
function segmentContact(
  s: Float64Array,
  so: number,
  sFlags: number,
  e: Float64Array,
  eo: number,
  eFlags: number,
  fr: Frame,
): 0 | 1 | 2 {
  sharedM = 0
  const px = s[so]
  const py = s[so + 1]
  const qx = s[so + 2]
  const qy = s[so + 3]
  const ax = e[eo]
  const ay = e[eo + 1]
  const bx = e[eo + 2]
  const by = e[eo + 3]
  // collinear within the tolerance, measured along whichever segment the other lies on
  const onE = alongLine(px, py, qx, qy, ax, ay, bx, by, fr)
  if (onE || alongLine(ax, ay, bx, by, px, py, qx, qy, fr)) {
    const gapM = (ovHi - ovLo) * ovLenM
    if (gapM < -EDGE_TOL_M) return 0
    const x0 = onE ? ax : px
    const y0 = onE ? ay : py
    const dx = onE ? bx - ax : qx - px
    const dy = onE ? by - ay : qy - py
    if (gapM > EDGE_TOL_M) {
      sharedM = fastGeodesicM(x0 + dx * ovLo, y0 + dy * ovLo, x0 + dx * ovHi, y0 + dy * ovHi)
      return 2
    }
    // end to end: one contact point
    const t = (ovLo + ovHi) / 2
    return endContact(x0 + dx * t, y0 + dy * t, s, so, sFlags, e, eo, eFlags, fr)
  }
  const d0 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
  const d1 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
  const f0 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
  const f1 = (qx - px) * (by - py) - (qy - py) * (bx - px)
  if (((d0 > 0 && d1 < 0) || (d0 < 0 && d1 > 0)) && ((f0 > 0 && f1 < 0) || (f0 < 0 && f1 > 0))) {
    const t = d0 / (d0 - d1)
    return endContact(px + (qx - px) * t, py + (qy - py) * t, s, so, sFlags, e, eo, eFlags, fr)
  }
  // no crossing: the closest approach is at an end of one of them
  const { kx, ky, tol2 } = fr
  let result: 0 | 1 | 2 = 0
  if (segDist2(px, py, ax, ay, bx, by, kx, ky) <= tol2) result = endContact(px, py, s, so, sFlags, e, eo, eFlags, fr)
  if (result < 2 && segDist2(qx, qy, ax, ay, bx, by, kx, ky) <= tol2)
    result = endContact(qx, qy, s, so, sFlags, e, eo, eFlags, fr)
  if (result < 2 && segDist2(ax, ay, px, py, qx, qy, kx, ky) <= tol2)
    result = endContact(ax, ay, s, so, sFlags, e, eo, eFlags, fr)
  if (result < 2 && segDist2(bx, by, px, py, qx, qy, kx, ky) <= tol2)
    result = endContact(bx, by, s, so, sFlags, e, eo, eFlags, fr)
  return result
}

const PAIR_HITS: number[] = []

/**
 * Line against line: null when disjoint; 'touches' when they meet only at end points of either
 * (within {@link EDGE_TOL_M}); else 'crosses', with overlapM the collinear shared length in metres.
 */
export function lineLineOverlap(
  a: MultiLineString | PreparedLines,
  b: MultiLineString,
): { relationship: Relationship; overlapM: number } | null {
  const ea = a instanceof PreparedLines ? a.edges : buildEdges(a, false, false)
  const eb = buildEdges(b, false, false)
  if (ea.n === 0 || eb.n === 0) return null
  const fr = frameAt(eb.bbox)
  let contact = false
  let crosses = false
  let overlapM = 0
  const cb = eb.c
  for (let j = 0, o = 0; j < eb.n; j++, o += 4) {
    const hits = searchEdges(
      ea,
      Math.min(cb[o], cb[o + 2]) - fr.tx,
      Math.min(cb[o + 1], cb[o + 3]) - fr.ty,
      Math.max(cb[o], cb[o + 2]) + fr.tx,
      Math.max(cb[o + 1], cb[o + 3]) + fr.ty,
      PAIR_HITS,
    )
    for (const i of hits) {
      const r = segmentContact(ea.c, 4 * i, ea.flags[i], cb, o, eb.flags[j], fr)
      if (r === 0) continue
      contact = true
      if (r === 2) crosses = true
      overlapM += sharedM
    }
  }
  if (!contact) return null
  return crosses ? { relationship: 'crosses', overlapM } : { relationship: 'touches', overlapM: 0 }
}
