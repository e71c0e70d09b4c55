/**
 * How an encumbrance (polygon or line) or a user's route or area relates to a parcel: the
 * relationship, the overlapping area or length, and the clipped geometry. Pure functions on
 * [lon, lat] degrees, as the rest of `geo/`.
 *
 * Measures (DECISIONS.md "Geometry and numbers"): lengths are WGS84 geodesic distances summed
 * per segment; areas are computed on the authalic sphere (the sphere with the ellipsoid's area,
 * reached through the authalic latitude, so area is preserved exactly) with great-circle edges.
 * That agrees with GeographicLib's ellipsoidal polygon area to 3e-7 from 100 m² to 2 500 km²
 * (below 100 m² GeographicLib's own ~1e-4 m² error dominates; a local plane agrees to 2e-7). A
 * ring with an edge longer than {@link LONG_EDGE_M} goes to GeographicLib itself, because a long
 * geodesic and its authalic great circle drift apart (3e-4 of a thin 150 km triangle).
 *
 * Tolerance policy. Parcels and encumbrances come from different surveys, rounded to 1e-7°
 * (about 1 cm), so shared edges match exactly or to about a centimetre. A point of a line or of
 * a polygon boundary within {@link EDGE_TOL_M} (2 cm) of the other polygon's boundary counts as
 * lying on it; the end points of a line within that distance are moved onto the boundary.
 * Without this, a strip whose edge runs 1 cm inside its neighbour would "cross" it with a
 * 0.3 m² sliver and a servitude along a boundary would be split into 1 cm stubs. Overlaps left
 * after clipping are dropped as slivers when smaller than {@link MIN_OVERLAP_SQM} or
 * {@link REL_OVERLAP} of the smaller polygon (whichever is larger), or when thinner than the
 * tolerance (2 · area / perimeter ≤ {@link EDGE_TOL_M}).
 *
 * A segment against a polygon is cut at its crossings with the polygon's edges and at the
 * projections of the polygon's vertices that lie within the tolerance of it; each piece is then
 * on the boundary (its midpoint within the tolerance), inside or outside:
 *
 *        outside     | boundary |  inside       crossings split exactly, so a line crossing
 *   o----------------x==========x--------o      an edge adds no boundary length; a run along
 *                    A          B               an edge is cut at the edge's vertices A, B
 *
 * Polygon against polygon runs that on both boundaries: a's boundary never outside b and b's
 * never inside a means a lies within b, and so on; only real crossings are clipped (exactly with
 * Sutherland–Hodgman when either side is convex, else with a general clipper (clip.ts), ~100× slower).
 * Multipolygons are read with the even-odd rule, so their parts must not overlap (as valid input).
 */
import Flatbush from 'flatbush'
import geographiclib from 'geographiclib-geodesic'
import { intersect, unite } from './clip.js'
import { fastGeodesicM, metresPerDegree } from './geodesic.js'
import { segmentMeetsBox } from './lines.js'
import { locatePoint, ON_EDGE_DEG, ringSignedArea2, type BBox, type MultiPolygon, type Polygon, type Ring } from './polygon.js'

const { Geodesic } = geographiclib

export type LineString = [number, number][]
export type MultiLineString = LineString[]
export type Relationship = 'crosses' | 'within' | 'contains' | 'touches'

/** Distance in metres within which a position counts as lying on a boundary (coordinates are rounded to 1e-7°, ~1 cm). */
export const EDGE_TOL_M = 0.02
/**
 * Margin for {@link PreparedPolygon.nearBox} and {@link PreparedLines.nearBox} when passing over
 * geometries by their box before comparing them: well beyond {@link EDGE_TOL_M} and the 1e-7°
 * (~1 cm) rounding of stored coordinates, so nothing that could meet is passed over.
 */
export const NEAR_BOX_M = 0.1
/** Overlaps below this many square metres are not overlaps (0.01 m² = 10 cm × 10 cm)… */
export const MIN_OVERLAP_SQM = 0.01
/** …nor those below this fraction of the smaller polygon's area. */
export const REL_OVERLAP = 1e-6
/** A ring with an edge longer than this is measured with GeographicLib rather than on the authalic sphere. */
export const LONG_EDGE_M = 10_000

/** Pieces shorter than this are the same contact point found twice, not length. */
const MIN_PIECE_M = 1e-4
/** Subjects with more edges than this are cut to the parcel's box before clipping. */
const BOX_CLIP_MIN_EDGES = 64
/** Largest angle of one chord of a round join (sagitta 0.12 % of the half-width). */
const JOIN_STEP_RAD = Math.PI / 32
/** Places listed per self-intersecting ring or line before "in further places". */
const MAX_PLACES = 3

const PART_START = 1
const PART_END = 2
const RAD = Math.PI / 180

// ---------------------------------------------------------------------------------------------
// measures

/** Geodesic length in metres (WGS84), summed per segment. */
export function lineLengthM(ml: MultiLineString): number {
  let total = 0
  for (const line of ml) for (let i = 0; i + 1 < line.length; i++) total += fastGeodesicM(line[i][0], line[i][1], line[i + 1][0], line[i + 1][1])
  return total
}

// WGS84 and its authalic sphere (authalic latitude β: sin β = q(φ) / q(90°), Snyder, Map Projections: A Working Manual, 1987)
const WGS_A = 6378137
const WGS_E2 = (1 / 298.257223563) * (2 - 1 / 298.257223563)
const WGS_E = Math.sqrt(WGS_E2)
const QP = 1 + ((1 - WGS_E2) * Math.atanh(WGS_E)) / WGS_E
const AUTHALIC_R2 = (WGS_A * WGS_A * QP) / 2

/** tan(β/2) of the authalic latitude β of a geodetic latitude in degrees. */
function authalicHalfTan(lat: number): number {
  const s = Math.sin(lat * RAD)
  const q = (1 - WGS_E2) * (s / (1 - WGS_E2 * s * s) + Math.atanh(WGS_E * s) / WGS_E)
  const sinB = q / QP
  return sinB / (1 + Math.sqrt(Math.max(0, 1 - sinB * sinB)))
}

function geographicLibRingSqm(ring: Ring): number {
  const p = Geodesic.WGS84.Polygon(false)
  const n = ring.length - (ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1] ? 1 : 0)
  for (let i = 0; i < n; i++) p.AddPoint(ring[i][1], ring[i][0])
  return Math.abs(p.Compute(false, true).area ?? 0)
}

/** Unsigned area of one ring (closed or not) in m². */
function ringAreaSqm(ring: Ring): number {
  const n = ring.length
  if (n < 3) return 0
  const k = metresPerDegree(ring[0][1])
  let sum = 0
  let t1 = authalicHalfTan(ring[0][1])
  for (let i = 0; i < n; i++) {
    const p = ring[i]
    const q = ring[i + 1 === n ? 0 : i + 1]
    const dx = (q[0] - p[0]) * k.lon
    const dy = (q[1] - p[1]) * k.lat
    if (dx * dx + dy * dy > LONG_EDGE_M * LONG_EDGE_M) return geographicLibRingSqm(ring)
    // signed area between the great-circle edge and the equator: tan(E/2) = tan(Δλ/2)(t1 + t2)/(1 + t1 t2)
    const t2 = authalicHalfTan(q[1])
    sum += 2 * Math.atan2(Math.tan(((q[0] - p[0]) * RAD) / 2) * (t1 + t2), 1 + t1 * t2)
    t1 = t2
  }
  return Math.abs(sum) * AUTHALIC_R2
}

/**
 * Area in m² on the WGS84 ellipsoid: shells minus holes, whatever their winding. Authalic sphere
 * with great-circle edges (within 3e-7 of GeographicLib from 100 m² to 2 500 km², within 1e-4 m²
 * below), GeographicLib for rings with edges over {@link LONG_EDGE_M}.
 */
export function areaSqm(mp: MultiPolygon): number {
  let total = 0
  for (const poly of mp) for (let r = 0; r < poly.length; r++) total += (r === 0 ? 1 : -1) * ringAreaSqm(poly[r])
  return total
}

// ---------------------------------------------------------------------------------------------
// edge sets: segments flattened into one array, optionally indexed

/** Segments of lines or rings, zero-length ones dropped; `index` is a Flatbush over them when prepared. */
interface EdgeSet {
  /** x0, y0, x1, y1 of segment i at 4i (degrees). */
  c: Float64Array
  /** PART_START / PART_END: the segment begins or ends its line (lines only). */
  flags: Uint8Array
  n: number
  bbox: BBox
  index: Flatbush | null
}

function buildEdges(chains: [number, number][][], close: boolean, indexed: boolean): EdgeSet {
  let cap = 0
  for (const ch of chains) cap += ch.length
  const c = new Float64Array(4 * cap)
  const flags = new Uint8Array(cap)
  let n = 0
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (const ch of chains) {
    const m = ch.length
    if (m < 2) continue
    // an unclosed ring is read as closed
    const open = close && (ch[0][0] !== ch[m - 1][0] || ch[0][1] !== ch[m - 1][1])
    const first = n
    for (let i = 0, last = open ? m : m - 1; i < last; i++) {
      const p = ch[i]
      const q = ch[i + 1 === m ? 0 : i + 1]
      if (p[0] === q[0] && p[1] === q[1]) continue
      const o = 4 * n
      c[o] = p[0]
      c[o + 1] = p[1]
      c[o + 2] = q[0]
      c[o + 3] = q[1]
      if (Math.min(p[0], q[0]) < minX) minX = Math.min(p[0], q[0])
      if (Math.min(p[1], q[1]) < minY) minY = Math.min(p[1], q[1])
      if (Math.max(p[0], q[0]) > maxX) maxX = Math.max(p[0], q[0])
      if (Math.max(p[1], q[1]) > maxY) maxY = Math.max(p[1], q[1])
      n++
    }
    if (n > first) {
      flags[first] |= PART_START
      flags[n - 1] |= PART_END
    }
  }
  let index: Flatbush | null = null
  if (indexed && n > 0) {
    index = new Flatbush(n)
    for (let i = 0, o = 0; i < n; i++, o += 4) index.add(Math.min(c[o], c[o + 2]), Math.min(c[o + 1], c[o + 3]), Math.max(c[o], c[o + 2]), Math.max(c[o + 1], c[o + 3]))
    index.finish()
  }
  return { c, flags, n, bbox: { minX, minY, maxX, maxY }, index }
}

const byNumber = (p: number, q: number) => p - q

/** Segments whose box meets the given box, in ascending order (so plain and prepared inputs sum alike). */
function searchEdges(e: EdgeSet, minX: number, minY: number, maxX: number, maxY: number, scratch: number[]): number[] {
  if (e.index) return e.index.search(minX, minY, maxX, maxY).sort(byNumber)
  scratch.length = 0
  const c = e.c
  for (let i = 0, o = 0; i < e.n; i++, o += 4) {
    if ((c[o] < minX && c[o + 2] < minX) || (c[o] > maxX && c[o + 2] > maxX) || (c[o + 1] < minY && c[o + 3] < minY) || (c[o + 1] > maxY && c[o + 3] > maxY)) continue
    scratch.push(i)
  }
  return scratch
}

/** Metres per degree at the subject's latitude and the tolerance in degrees on each axis. */
interface Frame {
  kx: number
  ky: number
  tx: number
  ty: number
  tol2: number
}

function frameAt(box: BBox): Frame {
  const k = metresPerDegree((box.minY + box.maxY) / 2)
  return { kx: k.lon, ky: k.lat, tx: EDGE_TOL_M / k.lon, ty: EDGE_TOL_M / k.lat, tol2: EDGE_TOL_M * EDGE_TOL_M }
}

/** Squared distance in m² from (px, py) to segment a-b, all in degrees. */
function segDist2(px: number, py: number, ax: number, ay: number, bx: number, by: number, kx: number, ky: number): number {
  const ux = (bx - ax) * kx
  const uy = (by - ay) * ky
  const wx = (px - ax) * kx
  const wy = (py - ay) * ky
  const l2 = ux * ux + uy * uy
  let t = l2 > 0 ? (wx * ux + wy * uy) / l2 : 0
  t = t < 0 ? 0 : t > 1 ? 1 : t
  const ex = wx - t * ux
  const ey = wy - t * uy
  return ex * ex + ey * ey
}

/** -1 outside, 0 within the tolerance of the boundary, 1 inside (even-odd over all rings). */
function locate(r: EdgeSet, x: number, y: number, fr: Frame): -1 | 0 | 1 {
  const c = r.c
  // prepared: only edges near the point or crossing the ray to its east can matter
  const hits = r.index ? r.index.search(x - fr.tx, y - fr.ty, r.bbox.maxX, y + fr.ty) : null
  const m = hits ? hits.length : r.n
  let inside = false
  for (let k = 0; k < m; k++) {
    const o = 4 * (hits ? hits[k] : k)
    const ax = c[o]
    const ay = c[o + 1]
    const bx = c[o + 2]
    const by = c[o + 3]
    if (
      x >= Math.min(ax, bx) - fr.tx &&
      x <= Math.max(ax, bx) + fr.tx &&
      y >= Math.min(ay, by) - fr.ty &&
      y <= Math.max(ay, by) + fr.ty &&
      segDist2(x, y, ax, ay, bx, by, fr.kx, fr.ky) <= fr.tol2
    )
      return 0
    if (ay > y !== by > y && x < ax + ((y - ay) * (bx - ax)) / (by - ay)) inside = !inside
  }
  return inside ? 1 : -1
}

const SNAP_HITS: number[] = []
let snapX = 0
let snapY = 0

/** The nearest boundary vertex, else edge point, within the tolerance of (x, y), into snapX, snapY; false when none is that near. */
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
interface Tally {
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

function newTally(pieces: LineString[] | null, samples: number[] | null): Tally {
  return { interior: false, exterior: false, boundary: false, contact: false, interiorM: 0, boundaryM: 0, pieces, open: null, samples }
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
function classifySegment(px: number, py: number, qx: number, qy: number, flags: number, r: EdgeSet, fr: Frame, tally: Tally): void {
  const { kx, ky, tol2 } = fr
  // no edge within the tolerance of the segment: nothing snaps or cuts it, it is one piece wholly
  // inside or outside, and so is the next segment of the line if that is clear too (one point
  // test for a run of them: a long route across a large area would otherwise test every segment)
  if (searchEdges(r, Math.min(px, qx) - fr.tx, Math.min(py, qy) - fr.ty, Math.max(px, qx) + fr.tx, Math.max(py, qy) + fr.ty, SEG_HITS).length === 0) {
    const lenM0 = Math.sqrt(((qx - px) * kx) ** 2 + ((qy - py) * ky) ** 2)
    if (lenM0 < MIN_PIECE_M) return
    const where = clearRun.tally === tally && clearRun.x === px && clearRun.y === py ? clearRun.where : locate(r, (px + qx) / 2, (py + qy) / 2, fr)
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
  for (const e of searchEdges(r, Math.min(px, qx) - fr.tx, Math.min(py, qy) - fr.ty, Math.max(px, qx) + fr.tx, Math.max(py, qy) + fr.ty, SEG_HITS)) {
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

// ---------------------------------------------------------------------------------------------
// prepared geometries

const NEAR_HITS: number[] = []

/**
 * Whether edges `e` (of lines, or of polygons when `area`) come within `marginM` metres of the
 * box: an edge meets the box grown by the margin, or, for polygons, the box lies inside them. A
 * cheap, conservative test before reading and comparing a whole geometry that has that box.
 */
function edgesNearBox(e: EdgeSet, area: boolean, minX: number, minY: number, maxX: number, maxY: number, marginM: number): boolean {
  if (e.n === 0) return false
  const k = metresPerDegree((minY + maxY) / 2)
  const box = { minX: minX - marginM / k.lon, minY: minY - marginM / k.lat, maxX: maxX + marginM / k.lon, maxY: maxY + marginM / k.lat }
  if (e.bbox.minX > box.maxX || e.bbox.maxX < box.minX || e.bbox.minY > box.maxY || e.bbox.maxY < box.minY) return false
  const c = e.c
  for (const i of searchEdges(e, box.minX, box.minY, box.maxX, box.maxY, NEAR_HITS)) if (segmentMeetsBox(c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3], box)) return true
  if (!area) return false
  // no edge near: the box is wholly inside or wholly outside, as its centre is
  return locate(e, (minX + maxX) / 2, (minY + maxY) / 2, frameAt(box)) > 0
}

/**
 * A multiline prepared for many tests: its segments flattened and indexed (Flatbush), so a
 * parcel costs a box search plus the few route segments near it. Zero-length segments are dropped.
 */
export class PreparedLines {
  readonly bbox: BBox
  readonly lengthM: number
  /** @internal */
  readonly edges: EdgeSet
  constructor(readonly geometry: MultiLineString) {
    this.edges = buildEdges(geometry, false, true)
    this.bbox = this.edges.bbox
    this.lengthM = lineLengthM(geometry)
  }

  /** Whether the lines come within `marginM` metres of the box (see edgesNearBox). */
  nearBox(minX: number, minY: number, maxX: number, maxY: number, marginM: number): boolean {
    return edgesNearBox(this.edges, false, minX, minY, maxX, maxY, marginM)
  }
}

/** A (large) polygon prepared for many tests: its edges indexed (Flatbush), so point location and edge search cost O(√n). */
export class PreparedPolygon {
  readonly bbox: BBox
  readonly areaSqm: number
  /** @internal */
  readonly edges: EdgeSet
  constructor(readonly geometry: MultiPolygon) {
    this.edges = buildEdges(geometry.flat(), true, true)
    this.bbox = this.edges.bbox
    this.areaSqm = areaSqm(geometry)
  }

  /** Whether the polygon comes within `marginM` metres of the box or holds it (see edgesNearBox). */
  nearBox(minX: number, minY: number, maxX: number, maxY: number, marginM: number): boolean {
    return edgesNearBox(this.edges, true, minX, minY, maxX, maxY, marginM)
  }
}

// ---------------------------------------------------------------------------------------------
// lines

export interface LineOverlap {
  relationship: Relationship
  /** Length in metres inside the polygon's interior; length lying along its boundary is NOT included (see boundaryM). */
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
  for (const i of hits) classifySegment(c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3], lines.flags[i], region, fr, tally)
  let relationship: Relationship
  if (tally.interior) relationship = tally.exterior ? 'crosses' : 'within'
  else if (tally.contact || tally.boundary) relationship = 'touches'
  else return null
  return { relationship, overlapM: tally.interiorM, boundaryM: tally.boundaryM, geometry: tally.pieces! }
}

let ovLo = 0
let ovHi = 0
let ovLenM = 0

/** True when p and q both lie within the tolerance of the line through a-b; their overlap with a-b is then [ovLo, ovHi] in a-b's parameter. */
function alongLine(px: number, py: number, qx: number, qy: number, ax: number, ay: number, bx: number, by: number, fr: Frame): boolean {
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

/** 1 when (x, y) is within the tolerance of an end point of either line (flags say which segment ends are line ends), else 2. */
function endContact(x: number, y: number, s: Float64Array, so: number, sFlags: number, e: Float64Array, eo: number, eFlags: number, fr: Frame): 1 | 2 {
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
function segmentContact(s: Float64Array, so: number, sFlags: number, e: Float64Array, eo: number, eFlags: number, fr: Frame): 0 | 1 | 2 {
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
  if (result < 2 && segDist2(qx, qy, ax, ay, bx, by, kx, ky) <= tol2) result = endContact(qx, qy, s, so, sFlags, e, eo, eFlags, fr)
  if (result < 2 && segDist2(ax, ay, px, py, qx, qy, kx, ky) <= tol2) result = endContact(ax, ay, s, so, sFlags, e, eo, eFlags, fr)
  if (result < 2 && segDist2(bx, by, px, py, qx, qy, kx, ky) <= tol2) result = endContact(bx, by, s, so, sFlags, e, eo, eFlags, fr)
  return result
}

const PAIR_HITS: number[] = []

/**
 * Line against line: null when disjoint; 'touches' when they meet only at end points of either
 * (within {@link EDGE_TOL_M}); else 'crosses', with overlapM the collinear shared length in metres.
 */
export function lineLineOverlap(a: MultiLineString | PreparedLines, b: MultiLineString): { relationship: Relationship; overlapM: number } | null {
  const ea = a instanceof PreparedLines ? a.edges : buildEdges(a, false, false)
  const eb = buildEdges(b, false, false)
  if (ea.n === 0 || eb.n === 0) return null
  const fr = frameAt(eb.bbox)
  let contact = false
  let crosses = false
  let overlapM = 0
  const cb = eb.c
  for (let j = 0, o = 0; j < eb.n; j++, o += 4) {
    const hits = searchEdges(ea, Math.min(cb[o], cb[o + 2]) - fr.tx, Math.min(cb[o + 1], cb[o + 3]) - fr.ty, Math.max(cb[o], cb[o + 2]) + fr.tx, Math.max(cb[o + 1], cb[o + 3]) + fr.ty, PAIR_HITS)
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

// ---------------------------------------------------------------------------------------------
// polygons

export interface PolygonOverlap {
  relationship: Relationship
  /** Area of a ∩ b in m² (0 for 'touches'). */
  overlapSqm: number
  /** a ∩ b; for 'within' and 'contains' the contained input itself. */
  geometry: MultiPolygon
}

const POLY_HITS: number[] = []

const touching = (): PolygonOverlap => ({ relationship: 'touches', overlapSqm: 0, geometry: [] })

/**
 * True when, beside some boundary piece of a lying along b's boundary, the side inside a is also
 * inside b: the interiors meet there. Tested 3 tolerances off the piece, clear of the noise.
 */
function interiorsMeet(samples: number[], ea: EdgeSet, eb: EdgeSet, fr: Frame): boolean {
  const off = 3 * EDGE_TOL_M
  for (let i = 0; i < samples.length; i += 4) {
    const ox = (-samples[i + 3] * off) / fr.kx
    const oy = (samples[i + 2] * off) / fr.ky
    for (const s of [1, -1]) {
      const x = samples[i] + s * ox
      const y = samples[i + 1] + s * oy
      if (locate(ea, x, y, fr) === 1 && locate(eb, x, y, fr) === 1) return true
    }
  }
  return false
}

/**
 * How polygon `a` (the encumbrance or user area) relates to polygon `b` (the parcel): null when
 * disjoint; 'touches' when only boundaries meet (overlapSqm 0, geometry []); 'contains' when a
 * covers b, also when they are equal (within {@link EDGE_TOL_M}); 'within' when a lies inside b;
 * otherwise 'crosses', with overlapSqm the area of a ∩ b. Overlaps under the sliver thresholds
 * (module comment) are 'touches'. Only crossings are clipped.
 */
export function polygonOverlap(a: MultiPolygon | PreparedPolygon, b: MultiPolygon): PolygonOverlap | null {
  const prepared = a instanceof PreparedPolygon ? a : null
  const aGeom = prepared ? prepared.geometry : (a as MultiPolygon)
  const ea = prepared ? prepared.edges : buildEdges(aGeom.flat(), true, false)
  const eb = buildEdges(b.flat(), true, false)
  if (ea.n === 0 || eb.n === 0) return null
  const fr = frameAt(eb.bbox)
  const box = eb.bbox
  if (ea.bbox.minX > box.maxX + fr.tx || ea.bbox.maxX < box.minX - fr.tx || ea.bbox.minY > box.maxY + fr.ty || ea.bbox.maxY < box.minY - fr.ty) return null
  const hits = searchEdges(ea, box.minX - fr.tx, box.minY - fr.ty, box.maxX + fr.tx, box.maxY + fr.ty, POLY_HITS)
  // no edge of a near b: b lies wholly inside a or wholly outside it
  if (hits.length === 0) return locate(ea, eb.c[0], eb.c[1], fr) > 0 ? { relationship: 'contains', overlapSqm: areaSqm(b), geometry: b } : null

  const onA = newTally(null, [])
  if (hits.length < ea.n) onA.exterior = true
  for (const i of hits) {
    classifySegment(ea.c[4 * i], ea.c[4 * i + 1], ea.c[4 * i + 2], ea.c[4 * i + 3], 0, eb, fr, onA)
    if (onA.interior && onA.exterior) break
  }
  // a's boundary both inside and outside b: a crossing, whatever b's boundary does
  if (!(onA.interior && onA.exterior)) {
    const onB = newTally(null, null)
    for (let j = 0, o = 0; j < eb.n; j++, o += 4) {
      classifySegment(eb.c[o], eb.c[o + 1], eb.c[o + 2], eb.c[o + 3], 0, ea, fr, onB)
      if (onB.interior && onB.exterior) break
    }
    // equal geometries satisfy both; 'contains' is preferred
    if (!onB.exterior && !onA.interior) return { relationship: 'contains', overlapSqm: areaSqm(b), geometry: b }
    if (!onA.exterior && !onB.interior) return { relationship: 'within', overlapSqm: prepared ? prepared.areaSqm : areaSqm(aGeom), geometry: aGeom }
    if (!onA.interior && !onB.interior && !interiorsMeet(onA.samples!, ea, eb, fr)) return onA.contact || onA.boundary || onB.contact || onB.boundary ? touching() : null
  }

  const minSqm = Math.max(MIN_OVERLAP_SQM, REL_OVERLAP * Math.min(prepared ? prepared.areaSqm : areaSqm(aGeom), areaSqm(b)))
  // a large subject is first cut to a box around b (with a margin, so the cut's seams stay clear of b)
  const padX = (box.maxX - box.minX) / 8 + 2 * fr.tx
  const padY = (box.maxY - box.minY) / 8 + 2 * fr.ty
  const subject = ea.n > BOX_CLIP_MIN_EDGES ? clipToBox(aGeom, box.minX - padX, box.minY - padY, box.maxX + padX, box.maxY + padY) : aGeom
  const geometry: MultiPolygon = []
  let overlapSqm = 0
  for (const poly of intersectPolygons(subject, b)) {
    const sqm = areaSqm([poly])
    // slivers left where edges coincide within the tolerance are not overlap
    if (sqm < minSqm || 2 * sqm <= EDGE_TOL_M * lineLengthM([poly[0]])) continue
    geometry.push(poly)
    overlapSqm += sqm
  }
  return geometry.length ? { relationship: 'crosses', overlapSqm, geometry } : touching()
}

/** Positions without consecutive duplicates (the same position objects). */
function dedupe(pts: [number, number][]): [number, number][] {
  const out: [number, number][] = []
  for (const p of pts) {
    const last = out[out.length - 1]
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p)
  }
  return out
}

/** Positions of a ring without the closing repeat and without consecutive duplicates. */
function openRing(ring: Ring): [number, number][] {
  const out = dedupe(ring)
  while (out.length > 1 && out[0][0] === out[out.length - 1][0] && out[0][1] === out[out.length - 1][1]) out.pop()
  return out
}

/** +1 for a convex counter-clockwise ring, -1 convex clockwise, 0 otherwise; turns within ON_EDGE_DEG of straight are straight. */
function convexSign(ring: Ring): number {
  const p = openRing(ring)
  const n = p.length
  if (n < 3) return 0
  let sign = 0
  let turning = 0
  for (let i = 0; i < n; i++) {
    const a = p[(i + n - 1) % n]
    const b = p[i]
    const c = p[(i + 1) % n]
    const ux = b[0] - a[0]
    const uy = b[1] - a[1]
    const vx = c[0] - b[0]
    const vy = c[1] - b[1]
    const cross = ux * vy - uy * vx
    const dot = ux * vx + uy * vy
    turning += Math.atan2(cross, dot)
    if (Math.abs(cross) <= ON_EDGE_DEG * Math.hypot(ux, uy)) {
      if (dot < 0) return 0
      continue
    }
    const s = cross > 0 ? 1 : -1
    if (sign !== 0 && s !== sign) return 0
    sign = s
  }
  // a star winds more than once with every turn the same way
  return Math.abs(Math.abs(turning) - 2 * Math.PI) < 1e-6 ? sign : 0
}

/** Sutherland–Hodgman: `subject` cut by the convex ring `clip` of winding `sign`; [] when nothing is left. */
function clipRing(subject: Ring, clip: Ring, sign: number): Ring {
  let input = openRing(subject)
  for (let k = 0; k + 1 < clip.length && input.length; k++) {
    const [cx, cy] = clip[k]
    const ex = clip[k + 1][0] - cx
    const ey = clip[k + 1][1] - cy
    if (ex === 0 && ey === 0) continue
    const output: [number, number][] = []
    let prev = input[input.length - 1]
    let sp = sign * (ex * (prev[1] - cy) - ey * (prev[0] - cx))
    for (const cur of input) {
      const sc = sign * (ex * (cur[1] - cy) - ey * (cur[0] - cx))
      if ((sc >= 0) !== (sp >= 0)) {
        const t = sp / (sp - sc)
        output.push([prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])])
      }
      if (sc >= 0) output.push(cur)
      prev = cur
      sp = sc
    }
    input = output
  }
  const out = openRing(input)
  return out.length < 3 ? [] : [...out, out[0]]
}

function clipToBox(mp: MultiPolygon, minX: number, minY: number, maxX: number, maxY: number): MultiPolygon {
  const box: Ring = [
    [minX, minY],
    [maxX, minY],
    [maxX, maxY],
    [minX, maxY],
    [minX, minY],
  ]
  const out: MultiPolygon = []
  for (const poly of mp) {
    const shell = clipRing(poly[0], box, 1)
    if (!shell.length) continue
    const rings: Polygon = [shell]
    for (let h = 1; h < poly.length; h++) {
      const hole = clipRing(poly[h], box, 1)
      if (hole.length) rings.push(hole)
    }
    out.push(rings)
  }
  return out
}

/** `subject` ∩ the single convex ring of `clip`, or null when the shortcut does not apply (holes, not convex, a disconnected result). */
function convexClip(subject: MultiPolygon, clip: MultiPolygon): MultiPolygon | null {
  if (clip.length !== 1 || clip[0].length !== 1 || subject.some((p) => p.length !== 1)) return null
  const sign = convexSign(clip[0][0])
  if (sign === 0) return null
  const out: MultiPolygon = []
  for (const poly of subject) {
    const ring = clipRing(poly[0], clip[0][0], sign)
    if (!ring.length) continue
    // a disconnected result comes back as one ring joined along the clip's edges: polyclip sorts it out
    if (chainContacts(ring, true, 1).length) return null
    out.push([ringSignedArea2(ring) < 0 ? ring.reverse() : ring])
  }
  return out
}

function intersectPolygons(a: MultiPolygon, b: MultiPolygon): MultiPolygon {
  return convexClip(a, b) ?? convexClip(b, a) ?? intersect(a, b)
}

// ---------------------------------------------------------------------------------------------
// buffering

/**
 * Lines buffered by `halfWidthM` metres each side, as a valid MultiPolygon: FLAT ends (a
 * dimensioned servitude stops where its line stops, so a straight line of length L gives
 * exactly L × 2·halfWidthM) and ROUND joins at bends (chords of at most π/32). Offsets use the
 * metres per degree at each vertex. A part with fewer than 2 distinct positions adds nothing.
 */
export function bufferLines(ml: MultiLineString, halfWidthM: number): MultiPolygon {
  if (!(halfWidthM > 0) || !Number.isFinite(halfWidthM)) throw new RangeError(`halfWidthM must be a positive number of metres, got ${halfWidthM}`)
  const h = halfWidthM
  const offset = (x: number, y: number, ux: number, uy: number): [number, number] => {
    const k = metresPerDegree(y)
    return [x + (h * ux) / k.lon, y + (h * uy) / k.lat]
  }
  // one simple offset ring per part answers nearly every surveyed line (gentle bends, widths far
  // below segment lengths) without a polygon union, which polyclip cannot always complete on
  // many touching rectangles and wedges
  const rings: Ring[] = []
  for (const line of ml) {
    const pts = dedupe(line)
    if (pts.length < 2) continue
    const ring = offsetRing(pts, h)
    if (!ring) {
      rings.length = 0
      break
    }
    rings.push(ring)
  }
  if (rings.length && !rings.some((a, i) => rings.some((b, j) => j > i && ringContacts(a, b, 1).length))) return rings.map((r) => [r])
  const pieces: Polygon[] = []
  for (const line of ml) {
    const pts = dedupe(line)
    let prevNx = 0
    let prevNy = 0
    for (let i = 0; i + 1 < pts.length; i++) {
      const [px, py] = pts[i]
      const [qx, qy] = pts[i + 1]
      const mid = metresPerDegree((py + qy) / 2)
      const dx = (qx - px) * mid.lon
      const dy = (qy - py) * mid.lat
      const len = Math.hypot(dx, dy)
      // unit left normal in metres
      const nx = -dy / len
      const ny = dx / len
      const start = offset(px, py, -nx, -ny)
      pieces.push([[start, offset(qx, qy, -nx, -ny), offset(qx, qy, nx, ny), offset(px, py, nx, ny), start]])
      // round join on the outer side of a bend, from the previous rectangle's corner to this one's
      const cross = prevNx * ny - prevNy * nx
      const dot = prevNx * nx + prevNy * ny
      if (i > 0 && (Math.abs(cross) > 1e-12 || dot < 0)) {
        const left = cross >= 0
        const [sx, sy] = left ? [-prevNx, -prevNy] : [nx, ny]
        const [fx, fy] = left ? [-nx, -ny] : [prevNx, prevNy]
        const phi = Math.abs(Math.atan2(cross, dot))
        const steps = Math.ceil(phi / JOIN_STEP_RAD)
        const a0 = Math.atan2(sy, sx)
        const wedge: Ring = [[px, py], offset(px, py, sx, sy)]
        for (let k = 1; k < steps; k++) wedge.push(offset(px, py, Math.cos(a0 + (phi * k) / steps), Math.sin(a0 + (phi * k) / steps)))
        wedge.push(offset(px, py, fx, fy), [px, py])
        pieces.push([wedge])
      }
      prevNx = nx
      prevNy = ny
    }
  }
  // a single rectangle is already valid; anything more is merged
  return pieces.length <= 1 ? pieces : unite(pieces[0], ...pieces.slice(1))
}

/**
 * The buffer of one line as a single ring: flat ends, the outer side of each bend rounded (chords
 * of at most JOIN_STEP_RAD), the inner side mitred. Null when that ring is not simple (a bend
 * tighter than the width, a line coming back near itself): the caller then merges pieces.
 */
function offsetRing(pts: [number, number][], h: number): Ring | null {
  const n = pts.length
  // unit left normals of each segment, in metres
  const nx: number[] = []
  const ny: number[] = []
  const lens: number[] = []
  for (let i = 0; i + 1 < n; i++) {
    const mid = metresPerDegree((pts[i][1] + pts[i + 1][1]) / 2)
    const dx = (pts[i + 1][0] - pts[i][0]) * mid.lon
    const dy = (pts[i + 1][1] - pts[i][1]) * mid.lat
    const len = Math.hypot(dx, dy)
    nx.push(-dy / len)
    ny.push(dx / len)
    lens.push(len)
  }
  const at = (i: number, ux: number, uy: number, scale = 1): [number, number] => {
    const k = metresPerDegree(pts[i][1])
    return [pts[i][0] + (h * scale * ux) / k.lon, pts[i][1] + (h * scale * uy) / k.lat]
  }
  // the offset points of vertex i on side s (+1 left, -1 right), in travel order along that side
  const sidePoints = (i: number, s: number): [number, number][] => {
    if (i === 0) return [at(0, s * nx[0], s * ny[0])]
    if (i === n - 1) return [at(i, s * nx[i - 1], s * ny[i - 1])]
    const ax = s * nx[i - 1]
    const ay = s * ny[i - 1]
    const bx = s * nx[i]
    const by = s * ny[i]
    const dot = ax * bx + ay * by
    const cross = ax * by - ay * bx
    // a gentle bend (up to a join step, as rounded coordinates make of a straight line): one mitre
    // point on each side, off the arc by at most h·φ²/8
    if (dot >= Math.cos(JOIN_STEP_RAD)) return [at(i, ax + bx, ay + by, 1 / (1 + dot))]
    // this side is outside the bend when its normal turns away from the travel direction
    const turnLeft = nx[i - 1] * ny[i] - ny[i - 1] * nx[i] > 0
    const outer = (s > 0) !== turnLeft
    if (!outer) {
      // the inner corner is where the two offset edges meet, h·√(2/(1+cos)) from the vertex: fine
      // for any bend while that stays within half of each segment; a tighter hairpin makes the
      // ring fail its check below and the caller merges pieces instead
      if (dot <= -1 + 1e-12 || h * Math.sqrt(2 / (1 + dot)) > 0.5 * Math.min(lens[i - 1], lens[i])) return [at(i, ax, ay), at(i, bx, by)]
      return [at(i, ax + bx, ay + by, 1 / (1 + dot))]
    }
    const phi = Math.atan2(cross, dot)
    const steps = Math.max(1, Math.ceil(Math.abs(phi) / JOIN_STEP_RAD))
    const a0 = Math.atan2(ay, ax)
    const out: [number, number][] = []
    for (let k = 0; k <= steps; k++) out.push(at(i, Math.cos(a0 + (phi * k) / steps), Math.sin(a0 + (phi * k) / steps)))
    return out
  }
  const ring: Ring = []
  for (let i = 0; i < n; i++) ring.push(...sidePoints(i, -1))
  for (let i = n - 1; i >= 0; i--) ring.push(...sidePoints(i, 1).reverse())
  ring.push([ring[0][0], ring[0][1]])
  if (chainContacts(ring, true, 1).length) return null
  return ringSignedArea2(ring) > 0 ? ring : ring.reverse()
}

// ---------------------------------------------------------------------------------------------
// validation of user geometry

/** -1, 0 or 1: side of p from the line a-b, 0 within ON_EDGE_DEG of it. */
function side(ax: number, ay: number, bx: number, by: number, px: number, py: number): number {
  const cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
  return Math.abs(cross) <= ON_EDGE_DEG * Math.hypot(bx - ax, by - ay) ? 0 : Math.sign(cross)
}

/** p (known to be on the line a-b) within the segment's box. */
function inSpan(ax: number, ay: number, bx: number, by: number, px: number, py: number): boolean {
  return px >= Math.min(ax, bx) - ON_EDGE_DEG && px <= Math.max(ax, bx) + ON_EDGE_DEG && py >= Math.min(ay, by) - ON_EDGE_DEG && py <= Math.max(ay, by) + ON_EDGE_DEG
}

/** Where segments a-b and c-d cross or touch, or null. */
function segmentsMeet(a: number[], b: number[], c: number[], d: number[]): [number, number] | null {
  const s1 = side(a[0], a[1], b[0], b[1], c[0], c[1])
  const s2 = side(a[0], a[1], b[0], b[1], d[0], d[1])
  const s3 = side(c[0], c[1], d[0], d[1], a[0], a[1])
  const s4 = side(c[0], c[1], d[0], d[1], b[0], b[1])
  if (s1 * s2 < 0 && s3 * s4 < 0) {
    const d1 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    const d2 = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0])
    const t = d1 / (d1 - d2)
    return [c[0] + t * (d[0] - c[0]), c[1] + t * (d[1] - c[1])]
  }
  if (s1 === 0 && inSpan(a[0], a[1], b[0], b[1], c[0], c[1])) return [c[0], c[1]]
  if (s2 === 0 && inSpan(a[0], a[1], b[0], b[1], d[0], d[1])) return [d[0], d[1]]
  if (s3 === 0 && inSpan(c[0], c[1], d[0], d[1], a[0], a[1])) return [a[0], a[1]]
  if (s4 === 0 && inSpan(c[0], c[1], d[0], d[1], b[0], b[1])) return [b[0], b[1]]
  return null
}

/** Calls visit(i, j) for i < j for every pair of segments whose boxes meet (Flatbush beyond a few dozen); visit returns true to stop. */
function segmentPairs(seg: (i: number) => [number[], number[]], n: number, visit: (i: number, j: number) => boolean): void {
  if (n <= 32) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (visit(i, j)) return
    return
  }
  const index = new Flatbush(n)
  for (let i = 0; i < n; i++) {
    const [p, q] = seg(i)
    index.add(Math.min(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[0], q[0]), Math.max(p[1], q[1]))
  }
  index.finish()
  for (let i = 0; i < n; i++) {
    const [p, q] = seg(i)
    const hits = index.search(Math.min(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[0], q[0]), Math.max(p[1], q[1])).sort(byNumber)
    for (const j of hits) if (j > i && visit(i, j)) return
  }
}

/**
 * Places (up to `limit`, distinct) where a chain of positions meets itself: non-adjacent
 * segments crossing or touching, or adjacent ones doubling back. Consecutive duplicates are
 * ignored; `closed` reads it as a ring.
 */
function chainContacts(pts: [number, number][], closed: boolean, limit: number): [number, number][] {
  const v = dedupe(pts)
  if (closed && v.length > 1 && v[0][0] === v[v.length - 1][0] && v[0][1] === v[v.length - 1][1]) v.pop()
  const n = closed ? v.length : v.length - 1
  if (n < 2) return []
  // an open chain that returns to its start is a loop too: first and last segments are neighbours
  const looped = closed || (v[0][0] === v[v.length - 1][0] && v[0][1] === v[v.length - 1][1])
  const seg = (i: number): [number[], number[]] => [v[i], v[(i + 1) % v.length]]
  const found: [number, number][] = []
  const add = (p: [number, number]) => {
    if (!found.some((f) => Math.abs(f[0] - p[0]) <= ON_EDGE_DEG && Math.abs(f[1] - p[1]) <= ON_EDGE_DEG)) found.push(p)
    return found.length >= limit
  }
  segmentPairs(seg, n, (i, j) => {
    const [a, b] = seg(i)
    const [c, d] = seg(j)
    const next = j === i + 1
    const wrap = looped && i === 0 && j === n - 1
    if (next || wrap) {
      // neighbours share a vertex; they only conflict by doubling back along each other
      const [u, m, w] = next ? [a, b, d] : [b, a, c]
      if (side(u[0], u[1], m[0], m[1], w[0], w[1]) === 0 && (u[0] - m[0]) * (w[0] - m[0]) + (u[1] - m[1]) * (w[1] - m[1]) > 0) return add([m[0], m[1]])
      return false
    }
    const hit = segmentsMeet(a, b, c, d)
    return hit ? add(hit) : false
  })
  return found
}

/** Places where segments of ring a meet segments of ring b, up to `limit`. */
function ringContacts(a: Ring, b: Ring, limit: number): [number, number][] {
  const found: [number, number][] = []
  const na = a.length - 1
  const seg = (i: number): [number[], number[]] => (i < na ? [a[i], a[i + 1]] : [b[i - na], b[i - na + 1]])
  segmentPairs(seg, na + b.length - 1, (i, j) => {
    if (i >= na || j < na) return false
    const [p, q] = seg(i)
    const [r, s] = seg(j)
    const hit = segmentsMeet(p, q, r, s)
    if (hit && !found.some((f) => f[0] === hit[0] && f[1] === hit[1])) found.push(hit)
    return found.length >= limit
  })
  return found
}

const place = (p: [number, number]) => `${p[0].toFixed(5)},${p[1].toFixed(5)}`

function finitePositionProblems(pts: [number, number][], what: string): string[] {
  const out: string[] = []
  pts.forEach((p, i) => {
    if (!Array.isArray(p) || p.length < 2 || !Number.isFinite(p[0]) || !Number.isFinite(p[1])) out.push(`${what}position ${i} is not a finite [lon, lat] pair`)
  })
  return out
}

function selfCrossingProblems(pts: [number, number][], closed: boolean, what: string): string[] {
  const hits = chainContacts(pts, closed, MAX_PLACES + 1)
  const out = hits.slice(0, MAX_PLACES).map((p) => `${what} crosses itself near ${place(p)}`)
  if (hits.length > MAX_PLACES) out.push(`${what} crosses itself in further places`)
  return out
}

/**
 * Problems of a user's line, as messages naming the place; [] when fine. Consecutive duplicate
 * positions are fine; fewer than 2 distinct positions and self-intersections (non-adjacent
 * segments crossing or touching, or the line doubling back) are not.
 */
export function lineProblems(line: LineString): string[] {
  const bad = finitePositionProblems(line, '')
  if (bad.length) return bad
  if (new Set(line.map(([x, y]) => `${x},${y}`)).size < 2) return ['line has fewer than 2 distinct positions']
  return selfCrossingProblems(line, false, 'line')
}

/**
 * Problems of a user's polygon (shell first, then holes), as messages naming the ring and
 * place; [] when fine: rings with fewer than 4 positions, unclosed or with fewer than 3
 * distinct positions; rings crossing or touching themselves; holes outside the shell, or
 * crossing or touching it or each other. Winding is not checked (it is repaired, not rejected).
 */
export function polygonProblems(poly: Polygon): string[] {
  if (poly.length === 0) return ['polygon has no rings']
  const out: string[] = []
  const ok: boolean[] = []
  poly.forEach((ring, r) => {
    const bad = finitePositionProblems(ring, `ring ${r} `)
    const before = out.length
    if (bad.length) out.push(...bad)
    else if (ring.length < 4) out.push(`ring ${r} has ${ring.length} positions; a ring needs at least 4`)
    else if (ring[0][0] !== ring[ring.length - 1][0] || ring[0][1] !== ring[ring.length - 1][1]) out.push(`ring ${r} is not closed: its first and last positions differ`)
    else if (new Set(ring.map(([x, y]) => `${x},${y}`)).size < 3) out.push(`ring ${r} has fewer than 3 distinct positions`)
    else out.push(...selfCrossingProblems(ring, true, `ring ${r}`))
    ok.push(out.length === before)
  })
  for (let h = 1; h < poly.length; h++) {
    if (!ok[h]) continue
    if (ok[0]) {
      const hits = ringContacts(poly[h], poly[0], 1)
      if (hits.length) out.push(`ring ${h} (a hole) crosses or touches the shell near ${place(hits[0])}`)
      else if (locatePoint([[poly[0]]], poly[h][0][0], poly[h][0][1]) < 0) out.push(`ring ${h} (a hole) lies outside the shell`)
    }
    for (let g = 1; g < h; g++) {
      const hits = ok[g] ? ringContacts(poly[h], poly[g], 1) : []
      if (hits.length) out.push(`ring ${h} crosses or touches ring ${g} near ${place(hits[0])}`)
    }
  }
  return out
}
