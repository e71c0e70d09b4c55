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
  return segmentsCrossXY(a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1])
}

/** `segmentsCross` on coordinates, for callers that keep no point arrays (encoded geometries). */
export function segmentsCrossXY(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  cx: number,
  cy: number,
  dx: number,
  dy: number,
): boolean {
  const o1 = Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))
  const o2 = Math.sign((bx - ax) * (dy - ay) - (by - ay) * (dx - ax))
  const o3 = Math.sign((dx - cx) * (ay - cy) - (dy - cy) * (ax - cx))
  const o4 = Math.sign((dx - cx) * (by - cy) - (dy - cy) * (bx - cx))
  return o1 !== o2 && o3 !== o4
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
