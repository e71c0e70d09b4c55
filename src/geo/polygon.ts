/**
 * Pure polygon geometry on [lon, lat] degrees for parcels (rings closed, RFC 7946 winding).
 * Distances and areas use a local equirectangular projection on the WGS84 ellipsoid's radii of
 * curvature at the query latitude: within 0.1 % of the geodesic values over the few kilometres
 * these functions are used for (2 km nearest rule, 5 km neighbours), as docs/decisions.md allows.
 */
import { metresPerDegree } from './geodesic.js'

/** [longitude, latitude] positions, first = last. */
export type Ring = [number, number][]
/** Shell first, then holes. */
export type Polygon = Ring[]
export type MultiPolygon = Polygon[]

/** Tolerance in degrees for "on the boundary" (about 0.1 mm). */
export const ON_EDGE_DEG = 1e-9

/** Twice the signed planar area of a ring in degree units: > 0 counter-clockwise. */
export function ringSignedArea2(ring: Ring): number {
  let s = 0
  for (let i = 0, n = ring.length - 1; i < n; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return s
}

/** Area in square metres (local projection at the polygon's own latitude). */
export function multiPolygonAreaSqm(mp: MultiPolygon): number {
  let total = 0
  for (const poly of mp) {
    const lat0 = poly[0][0][1]
    const m = metresPerDegree(lat0)
    poly.forEach((ring, i) => {
      const a = Math.abs(ringSignedArea2(ring)) / 2
      total += (i === 0 ? a : -a) * m.lat * m.lon
    })
  }
  return total
}

export interface BBox {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

export function bboxOf(mp: MultiPolygon): BBox {
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (const poly of mp)
    for (const [x, y] of poly[0]) {
      if (x < minX) minX = x
      if (y < minY) minY = y
      if (x > maxX) maxX = x
      if (y > maxY) maxY = y
    }
  return { minX, minY, maxX, maxY }
}

/** True when (px, py) lies on segment a-b, within ON_EDGE_DEG (closed sets: the boundary is inside). */
export function onSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): boolean {
  const dx = bx - ax
  const dy = by - ay
  const len2 = dx * dx + dy * dy
  let t = len2 === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len2
  t = t < 0 ? 0 : t > 1 ? 1 : t
  const ex = ax + t * dx - px
  const ey = ay + t * dy - py
  return ex * ex + ey * ey <= ON_EDGE_DEG * ON_EDGE_DEG
}

/** -1 outside, 0 on the boundary, 1 strictly inside one ring (crossing number). */
function ringLocate(ring: Ring, x: number, y: number): -1 | 0 | 1 {
  let inside = false
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]
    const [xj, yj] = ring[j]
    if (onSegment(x, y, xi, yi, xj, yj)) return 0
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside ? 1 : -1
}

/** -1 outside, 0 on the boundary, 1 inside (holes excluded, their edges are boundary). */
export function locatePoint(mp: MultiPolygon, x: number, y: number): -1 | 0 | 1 {
  for (const poly of mp) {
    const outer = ringLocate(poly[0], x, y)
    if (outer === -1) continue
    if (outer === 0) return 0
    let inHole = false
    for (let h = 1; h < poly.length; h++) {
      const r = ringLocate(poly[h], x, y)
      if (r === 0) return 0
      if (r === 1) {
        inHole = true
        break
      }
    }
    if (!inHole) return 1
  }
  return -1
}

/** Closed-set containment (docs/decisions.md: a point on the boundary is inside). */
export function containsPoint(mp: MultiPolygon, x: number, y: number): boolean {
  return locatePoint(mp, x, y) >= 0
}

/** Distance in metres from a point to a segment, in a local projection with the given scales. */
export function pointSegmentM(
  px: number,
  py: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  kx: number,
  ky: number,
): number {
  const ax2 = (ax - px) * kx
  const ay2 = (ay - py) * ky
  const dx = (bx - ax) * kx
  const dy = (by - ay) * ky
  const len2 = dx * dx + dy * dy
  let t = len2 === 0 ? 0 : -(ax2 * dx + ay2 * dy) / len2
  t = t < 0 ? 0 : t > 1 ? 1 : t
  const ex = ax2 + t * dx
  const ey = ay2 + t * dy
  return Math.sqrt(ex * ex + ey * ey)
}

/** Metres from a point to a polygon: 0 inside or on it, else to the nearest edge. */
export function distanceToPointM(mp: MultiPolygon, x: number, y: number): number {
  if (containsPoint(mp, x, y)) return 0
  const m = metresPerDegree(y)
  let best = Infinity
  for (const poly of mp)
    for (const ring of poly)
      for (let i = 0; i < ring.length - 1; i++) {
        const d = pointSegmentM(x, y, ring[i][0], ring[i][1], ring[i + 1][0], ring[i + 1][1], m.lon, m.lat)
        if (d < best) best = d
      }
  return best
}

export function segmentsCross(
  a: [number, number],
  b: [number, number],
  c: [number, number],
  d: [number, number],
): boolean {
  const o = (p: [number, number], q: [number, number], r: [number, number]) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
  const o1 = o(a, b, c)
  const o2 = o(a, b, d)
  const o3 = o(c, d, a)
  const o4 = o(c, d, b)
  if (o1 !== o2 && o3 !== o4) return true
  return false
}

/** Minimum distance in metres between two polygons (0 when they touch or overlap). */
export function polygonDistanceM(a: MultiPolygon, b: MultiPolygon): number {
  // overlap or containment: a vertex of one inside the other
  for (const poly of a) if (containsPoint(b, poly[0][0][0], poly[0][0][1])) return 0
  for (const poly of b) if (containsPoint(a, poly[0][0][0], poly[0][0][1])) return 0
  const lat = a[0][0][0][1]
  const m = metresPerDegree(lat)
  let best = Infinity
  for (const pa of a)
    for (const ra of pa)
      for (const pb of b)
        for (const rb of pb) {
          for (let i = 0; i < ra.length - 1; i++) {
            for (let j = 0; j < rb.length - 1; j++) {
              if (segmentsCross(ra[i], ra[i + 1], rb[j], rb[j + 1])) return 0
              const d = Math.min(
                pointSegmentM(ra[i][0], ra[i][1], rb[j][0], rb[j][1], rb[j + 1][0], rb[j + 1][1], m.lon, m.lat),
                pointSegmentM(rb[j][0], rb[j][1], ra[i][0], ra[i][1], ra[i + 1][0], ra[i + 1][1], m.lon, m.lat),
              )
              if (d < best) best = d
            }
          }
        }
  return best
}

/** Edges within this distance of each other run together (docs/decisions.md "Geometry tolerances"). */
export const SHARED_EDGE_TOL_M = 0.02

// the stretches of one edge of `a` that edges of `b` run along, as [lo, hi] fractions of it; reused
// across calls (the relation pass calls sharedBoundaryM for every candidate pair of the cadastre)
let spanLo = new Float64Array(16)
let spanHi = new Float64Array(16)

/**
 * Length in metres of boundary the two polygons share (docs/decisions.md "Geometry tolerances"):
 * for each edge of `a`, the union of the stretches of it that edges of `b` run along within
 * SHARED_EDGE_TOL_M (2 cm). An edge of `b` runs along one of `a` when the two are nearly parallel
 * and, both clipped to the stretch where their projections on `a`'s edge overlap, the two ends of
 * `b`'s clipped piece lie within 2 cm of `a`'s edge (so the two pieces are within 2 cm of each
 * other all along). Clipping first makes the answer the same whichever polygon comes first and
 * however the two split their common boundary into edges; testing the whole of `b`'s edge against
 * the line through `a`'s (as before) dropped a long edge of `b` along a short edge of `a` once
 * rounding tilted the short one by a few millimetres over the long one's length. The union keeps
 * a stretch that two edges of `b` run along (a part or hole of `b` along the same edge, a zigzag)
 * from counting twice.
 *
 * Coordinates are stored at 1e-7 degrees (about 1 cm), so two surveys of one real boundary differ
 * by up to a centimetre or two after rounding; an exact test (0.1 mm, as before) dropped
 * neighbours that share metres of boundary. A single shared vertex gives 0 (docs/decisions.md:
 * touching needs a segment of positive length). Measured in a local plane at `a`'s latitude.
 */
export function sharedBoundaryM(a: MultiPolygon, b: MultiPolygon): number {
  const m = metresPerDegree(a[0][0][0][1])
  const kx = m.lon
  const ky = m.lat
  const tolX = SHARED_EDGE_TOL_M / kx
  const tolY = SHARED_EDGE_TOL_M / ky
  let total = 0
  for (const pa of a)
    for (const ra of pa)
      for (let i = 0; i < ra.length - 1; i++) {
        const [ax, ay] = ra[i]
        const [bx, by] = ra[i + 1]
        // the edge in metres from a
        const dx = (bx - ax) * kx
        const dy = (by - ay) * ky
        const len2 = dx * dx + dy * dy
        if (len2 === 0) continue
        const len = Math.sqrt(len2)
        // the tolerance times len: cross products below are offsets from the edge's line times len
        const tolL = SHARED_EDGE_TOL_M * len
        const minX = Math.min(ax, bx) - tolX
        const maxX = Math.max(ax, bx) + tolX
        const minY = Math.min(ay, by) - tolY
        const maxY = Math.max(ay, by) + tolY
        let spans = 0
        for (const pb of b)
          for (const rb of pb)
            for (let j = 0; j < rb.length - 1; j++) {
              const [cx, cy] = rb[j]
              const [ex, ey] = rb[j + 1]
              if (
                Math.max(cx, ex) < minX ||
                Math.min(cx, ex) > maxX ||
                Math.max(cy, ey) < minY ||
                Math.min(cy, ey) > maxY
              )
                continue
              const cX = (cx - ax) * kx
              const cY = (cy - ay) * ky
              const eX = (ex - ax) * kx
              const eY = (ey - ay) * ky
              // offsets of c and e from the line through ab (times len): both beyond the tolerance
              // on one side, so is every point of cd
              const oc = dx * cY - dy * cX
              const oe = dx * eY - dy * eX
              if ((oc > tolL && oe > tolL) || (oc < -tolL && oe < -tolL)) continue
              // nearly parallel: the sine of the angle between them no more than the tilt that 2 cm
              // either way at the ends of each allows, 2 cm × (1/|ab| + 1/|cd|). |oe - oc| is
              // |ab| |cd| sin: up to 2 cm × 2 |ab| any |cd| passes, so its square root is taken only
              // beyond. Edges that only meet near a corner are within 2 cm over the last
              // centimetres before it, which is no shared stretch
              const cross = oe > oc ? oe - oc : oc - oe
              if (cross > 2 * tolL) {
                const fx = eX - cX
                const fy = eY - cY
                if (cross > 2 * (tolL + SHARED_EDGE_TOL_M * Math.sqrt(fx * fx + fy * fy))) continue
              }
              // the projections of c and e on ab, as fractions of ab, and their common stretch
              const tc = (cX * dx + cY * dy) / len2
              const te = (eX * dx + eY * dy) / len2
              const lo = Math.max(0, Math.min(tc, te))
              const hi = Math.min(1, Math.max(tc, te))
              if (!(hi > lo)) continue
              // cd's offset at the two ends of the common stretch (linear in the projection)
              const slope = (oe - oc) / (te - tc)
              const oLo = oc + (lo - tc) * slope
              const oHi = oc + (hi - tc) * slope
              if (oLo > tolL || oLo < -tolL || oHi > tolL || oHi < -tolL) continue
              // a stretch overlapping or meeting the last one (consecutive edges of b) joins it
              if (spans > 0 && lo <= spanHi[spans - 1] && hi >= spanLo[spans - 1]) {
                if (lo < spanLo[spans - 1]) spanLo[spans - 1] = lo
                if (hi > spanHi[spans - 1]) spanHi[spans - 1] = hi
                continue
              }
              if (spans === spanLo.length) {
                const lo2 = new Float64Array(2 * spans)
                const hi2 = new Float64Array(2 * spans)
                lo2.set(spanLo)
                hi2.set(spanHi)
                spanLo = lo2
                spanHi = hi2
              }
              spanLo[spans] = lo
              spanHi[spans] = hi
              spans++
            }
        if (spans === 1) total += (spanHi[0] - spanLo[0]) * len
        else if (spans > 1) total += unionLength(spans) * len
      }
  return total
}

/**
 * The length of the union of the first n stretches [spanLo[k], spanHi[k]]: both ends sorted on
 * their own, then swept (the union covers what lies between a start and the end that brings the
 * count of open stretches back to 0).
 */
function unionLength(n: number): number {
  sortPrefix(spanLo, n)
  sortPrefix(spanHi, n)
  let sum = 0
  let open = 0
  let from = 0
  for (let i = 0, k = 0; i < n || k < n; ) {
    if (i < n && spanLo[i] <= spanHi[k]) {
      if (open++ === 0) from = spanLo[i]
      i++
    } else {
      if (--open === 0) sum += spanHi[k] - from
      k++
    }
  }
  return sum
}

/** Sorts the first n entries of `v` ascending in place (insertion sort: n is a handful). */
function sortPrefix(v: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const x = v[i]
    let j = i - 1
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j]
      j--
    }
    v[j + 1] = x
  }
}

/** True when the polygon and the box share at least a point (closed sets). */
export function intersectsBox(mp: MultiPolygon, b: BBox): boolean {
  for (const poly of mp)
    for (const [x, y] of poly[0]) if (x >= b.minX && x <= b.maxX && y >= b.minY && y <= b.maxY) return true
  const corners: [number, number][] = [
    [b.minX, b.minY],
    [b.maxX, b.minY],
    [b.maxX, b.maxY],
    [b.minX, b.maxY],
  ]
  for (const [x, y] of corners) if (containsPoint(mp, x, y)) return true
  for (const poly of mp)
    for (const ring of poly)
      for (let i = 0; i < ring.length - 1; i++)
        for (let k = 0; k < 4; k++)
          if (segmentsCross(ring[i], ring[i + 1], corners[k], corners[(k + 1) % 4])) return true
  return false
}
