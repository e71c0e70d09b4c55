/**
 * A segment against a polygon is cut at its crossings with the polygon's edges and at the
 * projections of the polygon's vertices that lie within the tolerance of it; each piece is then
 * on the boundary (its midpoint within the tolerance), inside or outside:
 *
 *        outside     | boundary |  inside       crossings split exactly, so a line crossing
 *   o----------------x==========x--------o      an edge adds no boundary length; a run along
 *                    A          B               an edge is cut at the edge's vertices A, B
 *
 * The pieces are added up in a {@link Tally}: what was found (interior, exterior, boundary,
 * contact), the lengths, and for lines the pieces themselves.
 */
import { fastGeodesicM } from '../geodesic.js'
import { byNumber, locate, PART_END, PART_START, searchEdges, type EdgeSet, type Frame } from './edges.js'
import type { LineString } from './types.js'

/** Pieces shorter than this are the same contact point found twice, not length. */
const MIN_PIECE_M = 1e-4

const SNAP_HITS: number[] = []
let snapX = 0
let snapY = 0

/**
 * The nearest boundary vertex, else edge point, within the tolerance of (x, y), into snapX, snapY; false when none is
 * that near.
 */
function snapToBoundary(r: EdgeSet, x: number, y: number, fr: Frame): boolean {
  const { kx, ky } = fr
  const hits = searchEdges(r, x - fr.tx, y - fr.ty, x + fr.tx, y + fr.ty, SNAP_HITS)
  if (hits.length === 0) return false
  const c = r.c
  let best = fr.tol2
  let found = false
  for (const e of hits)
    for (let v = 4 * e; v < 4 * e + 4; v += 2) {
      const dx = (c[v] - x) * kx
      const dy = (c[v + 1] - y) * ky
      const d2 = dx * dx + dy * dy
      if (d2 <= best) {
        best = d2
        snapX = c[v]
        snapY = c[v + 1]
        found = true
      }
    }
  if (found) return true
  for (const e of hits) {
    const o = 4 * e
    const ux = (c[o + 2] - c[o]) * kx
    const uy = (c[o + 3] - c[o + 1]) * ky
    const wx = (x - c[o]) * kx
    const wy = (y - c[o + 1]) * ky
    const t = (wx * ux + wy * uy) / (ux * ux + uy * uy)
    if (t <= 0 || t >= 1) continue
    const ex = wx - t * ux
    const ey = wy - t * uy
    const d2 = ex * ex + ey * ey
    if (d2 <= best) {
      best = d2
      snapX = c[o] + t * (c[o + 2] - c[o])
      snapY = c[o + 1] + t * (c[o + 3] - c[o + 1])
      found = true
    }
  }
  return found
}

/** What the pieces of some segments were, relative to a polygon. */
export interface Tally {
  interior: boolean
  exterior: boolean
  boundary: boolean
  /** any point of contact with the boundary, length or not */
  contact: boolean
  interiorM: number
  boundaryM: number
  /** lines: pieces in the closed polygon, merged where they join; null when not wanted */
  pieces: LineString[] | null
  open: LineString | null
  /** polygons: boundary pieces as midpoint lon, lat and unit direction in metres; null when not wanted */
  samples: number[] | null
}

export function newTally(pieces: LineString[] | null, samples: number[] | null): Tally {
  return {
    interior: false,
    exterior: false,
    boundary: false,
    contact: false,
    interiorM: 0,
    boundaryM: 0,
    pieces,
    open: null,
    samples,
  }
}

const SEG_HITS: number[] = []
/** The last segment classified without an edge near it: where it ended, and whether inside (1) or outside (-1). */
const clearRun: { tally: Tally | null; x: number; y: number; where: number } = { tally: null, x: 0, y: 0, where: 0 }
const BREAKS: number[] = []

/**
 * Splits segment p-q against polygon `r` (see the module comment) and adds its pieces to `tally`.
 * `flags` says which ends are the ends of a line: those are moved onto the boundary when within
 * the tolerance, so a line stopping 1 cm short of or past a boundary measures nothing there.
 * Other vertices stay put: moving them would turn a segment running at a shallow angle to an
 * edge onto the other side of it over its whole length.
 */
export function classifySegment(
  px: number,
  py: number,
  qx: number,
  qy: number,
  flags: number,
  r: EdgeSet,
  fr: Frame,
  tally: Tally,
): void {
  const { kx, ky, tol2 } = fr
  // no edge within the tolerance of the segment: nothing snaps or cuts it, it is one piece wholly
  // inside or outside, and so is the next segment of the line if that is clear too (one point
  // test for a run of them: a long route across a large area would otherwise test every segment)
  if (
    searchEdges(
      r,
      Math.min(px, qx) - fr.tx,
      Math.min(py, qy) - fr.ty,
      Math.max(px, qx) + fr.tx,
      Math.max(py, qy) + fr.ty,
      SEG_HITS,
    ).length === 0
  ) {
    const lenM0 = Math.sqrt(((qx - px) * kx) ** 2 + ((qy - py) * ky) ** 2)
    if (lenM0 < MIN_PIECE_M) return
    const where =
      clearRun.tally === tally && clearRun.x === px && clearRun.y === py
        ? clearRun.where
        : locate(r, (px + qx) / 2, (py + qy) / 2, fr)
    clearRun.tally = tally
    clearRun.x = qx
    clearRun.y = qy
    clearRun.where = where
    if (where < 0) {
      tally.exterior = true
      tally.open = null
      return
    }
    tally.interior = true
    if (!tally.pieces) return
    tally.interiorM += fastGeodesicM(px, py, qx, qy)
    const open = tally.open
    if (open && open[open.length - 1][0] === px && open[open.length - 1][1] === py) open.push([qx, qy])
    else {
      tally.open = [
        [px, py],
        [qx, qy],
      ]
      tally.pieces.push(tally.open)
    }
    return
  }
  clearRun.tally = null
  if (snapToBoundary(r, px, py, fr)) {
    tally.contact = true
    if (flags & PART_START) {
      px = snapX
      py = snapY
    }
  }
  if (snapToBoundary(r, qx, qy, fr)) {
    tally.contact = true
    if (flags & PART_END) {
      qx = snapX
      qy = snapY
    }
  }
  const dx = (qx - px) * kx
  const dy = (qy - py) * ky
  const len2 = dx * dx + dy * dy
  const lenM = Math.sqrt(len2)
  if (lenM < MIN_PIECE_M) return
  BREAKS.length = 0
  BREAKS.push(0, 1)
  const c = r.c
  for (const e of searchEdges(
    r,
    Math.min(px, qx) - fr.tx,
    Math.min(py, qy) - fr.ty,
    Math.max(px, qx) + fr.tx,
    Math.max(py, qy) + fr.ty,
    SEG_HITS,
  )) {
    const o = 4 * e
    const ax = c[o]
    const ay = c[o + 1]
    const bx = c[o + 2]
    const by = c[o + 3]
    // boundary vertices near the segment cut it, so a run along an edge starts and ends there
    for (let v = o; v < o + 4; v += 2) {
      const wx = (c[v] - px) * kx
      const wy = (c[v + 1] - py) * ky
      const t = (wx * dx + wy * dy) / len2
      if (t <= 0 || t >= 1) continue
      const ex = wx - t * dx
      const ey = wy - t * dy
      if (ex * ex + ey * ey <= tol2) {
        BREAKS.push(t)
        tally.contact = true
      }
    }
    // a proper crossing cuts it exactly there (signs of cross products: the scaling does not matter)
    const d0 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    const d1 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
    if ((d0 > 0 && d1 < 0) || (d0 < 0 && d1 > 0)) {
      const f0 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
      const f1 = (qx - px) * (by - py) - (qy - py) * (bx - px)
      if ((f0 > 0 && f1 < 0) || (f0 < 0 && f1 > 0)) {
        BREAKS.push(d0 / (d0 - d1))
        tally.contact = true
      }
    }
  }
  if (BREAKS.length > 2) BREAKS.sort(byNumber)
  // merge cuts closer than MIN_PIECE_M, keeping 0 and 1
  let m = 1
  for (let i = 1; i < BREAKS.length; i++) if ((BREAKS[i] - BREAKS[m - 1]) * lenM >= MIN_PIECE_M) BREAKS[m++] = BREAKS[i]
  BREAKS[m - 1] = 1
  for (let i = 0; i + 1 < m; i++) {
    const t0 = BREAKS[i]
    const t1 = BREAKS[i + 1]
    const tm = (t0 + t1) / 2
    const mx = px + (qx - px) * tm
    const my = py + (qy - py) * tm
    const where = locate(r, mx, my, fr)
    if (where < 0) {
      tally.exterior = true
      tally.open = null
      continue
    }
    if (where === 0) {
      tally.boundary = true
      tally.samples?.push(mx, my, dx / lenM, dy / lenM)
    } else tally.interior = true
    if (!tally.pieces) continue
    const x0 = t0 === 0 ? px : px + (qx - px) * t0
    const y0 = t0 === 0 ? py : py + (qy - py) * t0
    const x1 = t1 === 1 ? qx : px + (qx - px) * t1
    const y1 = t1 === 1 ? qy : py + (qy - py) * t1
    const pieceM = fastGeodesicM(x0, y0, x1, y1)
    if (where === 0) tally.boundaryM += pieceM
    else tally.interiorM += pieceM
    const open = tally.open
    if (open && open[open.length - 1][0] === x0 && open[open.length - 1][1] === y0) open.push([x1, y1])
    else {
      tally.open = [
        [x0, y0],
        [x1, y1],
      ]
      tally.pieces.push(tally.open)
    }
  }
}
