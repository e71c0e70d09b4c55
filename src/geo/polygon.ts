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

function segmentsCross(a: [number, number], b: [number, number], c: [number, number], d: [number, number]): boolean {
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

/**
 * Length in metres of boundary the two polygons share (collinear overlapping edges). A single
 * shared vertex gives 0 (docs/decisions.md: touching needs a segment of positive length).
 */
export function sharedBoundaryM(a: MultiPolygon, b: MultiPolygon): number {
  const m = metresPerDegree(a[0][0][0][1])
  let total = 0
  for (const pa of a)
    for (const ra of pa)
      for (let i = 0; i < ra.length - 1; i++) {
        const [ax, ay] = ra[i]
        const [bx, by] = ra[i + 1]
        const dx = bx - ax
        const dy = by - ay
        const len2 = dx * dx + dy * dy
        if (len2 === 0) continue
        const len = Math.sqrt(len2)
        const minX = Math.min(ax, bx) - ON_EDGE_DEG
        const maxX = Math.max(ax, bx) + ON_EDGE_DEG
        const minY = Math.min(ay, by) - ON_EDGE_DEG
        const maxY = Math.max(ay, by) + ON_EDGE_DEG
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
              // both ends of cd on the line through ab (distance from the line under tolerance)
              const dc = Math.abs(dx * (cy - ay) - dy * (cx - ax)) / len
              const de = Math.abs(dx * (ey - ay) - dy * (ex - ax)) / len
              if (dc > ON_EDGE_DEG || de > ON_EDGE_DEG) continue
              // overlap of the projections on ab, as fractions of ab
              const tc = ((cx - ax) * dx + (cy - ay) * dy) / len2
              const te = ((ex - ax) * dx + (ey - ay) * dy) / len2
              const lo = Math.max(0, Math.min(tc, te))
              const hi = Math.min(1, Math.max(tc, te))
              if (hi > lo) total += (hi - lo) * Math.hypot(dx * m.lon, dy * m.lat)
            }
      }
  return total
}

/** True when every vertex of `inner` is inside or on `outer` (enough for surveyed parcels, which do not weave). */
export function coversPolygon(outer: MultiPolygon, inner: MultiPolygon): boolean {
  for (const poly of inner) for (const [x, y] of poly[0]) if (!containsPoint(outer, x, y)) return false
  return true
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

/**
 * Buckets the segments of rings into a uniform grid over their common box and calls `visit` for
 * every pair of segments sharing a cell (each pair once per shared cell), so crossing tests cost
 * about O(n) instead of O(n²) on the long rings of municipal boundaries. `visit` returns true to stop.
 */
function gridPairs(rings: Ring[], visit: (ra: number, i: number, rb: number, j: number) => boolean): boolean {
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    total = 0
  for (const r of rings) {
    total += r.length - 1
    for (const [x, y] of r) {
      if (x < minX) minX = x
      if (y < minY) minY = y
      if (x > maxX) maxX = x
      if (y > maxY) maxY = y
    }
  }
  const side = Math.max(1, Math.ceil(Math.sqrt(total / 2)))
  const w = (maxX - minX) / side || 1
  const h = (maxY - minY) / side || 1
  const cells = new Map<number, number[]>()
  for (let r = 0; r < rings.length; r++) {
    const ring = rings[r]
    for (let i = 0; i < ring.length - 1; i++) {
      const [ax, ay] = ring[i]
      const [bx, by] = ring[i + 1]
      const c0 = Math.min(side - 1, Math.floor((Math.min(ax, bx) - minX) / w))
      const c1 = Math.min(side - 1, Math.floor((Math.max(ax, bx) - minX) / w))
      const r0 = Math.min(side - 1, Math.floor((Math.min(ay, by) - minY) / h))
      const r1 = Math.min(side - 1, Math.floor((Math.max(ay, by) - minY) / h))
      for (let cy = r0; cy <= r1; cy++)
        for (let cx = c0; cx <= c1; cx++) {
          const key = cy * side + cx
          let list = cells.get(key)
          if (!list) cells.set(key, (list = []))
          list.push(r, i)
        }
    }
  }
  for (const list of cells.values())
    for (let a = 0; a < list.length; a += 2)
      for (let b = a + 2; b < list.length; b += 2) if (visit(list[a], list[a + 1], list[b], list[b + 1])) return true
  return false
}

const GRID_MIN_SEGMENTS = 64

/** True when two edges of the ring (not neighbours) cross or touch: the ring is not simple. */
export function ringSelfIntersects(ring: Ring): boolean {
  const n = ring.length - 1
  if (n > GRID_MIN_SEGMENTS) {
    return gridPairs([ring], (_ra, i, _rb, j) => {
      if (i > j) [i, j] = [j, i]
      if (j === i + 1 || (i === 0 && j === n - 1)) return false
      return segmentsCross(ring[i], ring[i + 1], ring[j], ring[j + 1])
    })
  }
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      if (j === i + 1 || (i === 0 && j === n - 1)) continue
      if (segmentsCross(ring[i], ring[i + 1], ring[j], ring[j + 1])) return true
    }
  return false
}

/** Douglas-Peucker on an open chain, tolerance in metres. */
function dp(points: Ring, tolM: number, kx: number, ky: number): Ring {
  if (points.length <= 2) return points.slice()
  const keep = new Uint8Array(points.length)
  keep[0] = keep[points.length - 1] = 1
  const stack: [number, number][] = [[0, points.length - 1]]
  while (stack.length) {
    const [s, e] = stack.pop()!
    let worst = -1
    let idx = -1
    for (let i = s + 1; i < e; i++) {
      const d = pointSegmentM(
        points[i][0],
        points[i][1],
        points[s][0],
        points[s][1],
        points[e][0],
        points[e][1],
        kx,
        ky,
      )
      if (d > worst) {
        worst = d
        idx = i
      }
    }
    if (worst > tolM && idx > 0) {
      keep[idx] = 1
      stack.push([s, idx], [idx, e])
    }
  }
  return points.filter((_, i) => keep[i])
}

function simplifyRing(ring: Ring, tolM: number, kx: number, ky: number): Ring {
  // split the closed ring at its farthest vertex from the start, so the result keeps a triangle at least
  const n = ring.length - 1
  let far = 1
  let farD = -1
  for (let i = 1; i < n; i++) {
    const d = Math.hypot((ring[i][0] - ring[0][0]) * kx, (ring[i][1] - ring[0][1]) * ky)
    if (d > farD) {
      farD = d
      far = i
    }
  }
  const a = dp(ring.slice(0, far + 1), tolM, kx, ky)
  const b = dp(ring.slice(far), tolM, kx, ky)
  const out = [...a, ...b.slice(1)]
  if (out.length < 4) {
    // keep the vertex farthest from the chord so the ring stays a triangle
    let best = -1
    let bi = -1
    for (let i = 1; i < n; i++) {
      if (i === far) continue
      const d = pointSegmentM(ring[i][0], ring[i][1], ring[0][0], ring[0][1], ring[far][0], ring[far][1], kx, ky)
      if (d > best) {
        best = d
        bi = i
      }
    }
    if (bi < 0) return ring
    const idx = [0, far, bi].sort((p, q) => p - q)
    return [...idx.map((i) => ring[i]), ring[0]]
  }
  return out
}

/**
 * Topology-preserving simplification (as PostGIS ST_SimplifyPreserveTopology promises): each ring
 * is simplified with Douglas-Peucker at `tolM` metres; a ring that would self-intersect, collapse,
 * flip or cross another ring of its polygon is retried at half the tolerance, and kept as it was
 * when nothing smaller works. Never returns an empty or invalid ring.
 */
export function simplifyPreserveTopology(mp: MultiPolygon, tolM: number): MultiPolygon {
  const m = metresPerDegree(mp[0][0][0][1])
  return mp.map((poly) => {
    const out: Polygon = []
    poly.forEach((ring, ri) => {
      let t = tolM
      let chosen: Ring = ring
      for (let attempt = 0; attempt < 8 && t >= 0.01; attempt++, t /= 2) {
        const s = simplifyRing(ring, t, m.lon, m.lat)
        if (s.length < 4 || ringSelfIntersects(s)) continue
        if (Math.sign(ringSignedArea2(s)) !== Math.sign(ringSignedArea2(ring))) continue
        if (out.some((other) => ringsCross(other, s))) continue
        if (ri > 0 && !s.every(([x, y]) => locatePoint([[out[0]]], x, y) >= 0)) continue
        chosen = s
        break
      }
      out.push(chosen)
    })
    return out
  })
}

function ringsCross(a: Ring, b: Ring): boolean {
  if (a.length + b.length > 2 * GRID_MIN_SEGMENTS)
    return gridPairs(
      [a, b],
      (ra, i, rb, j) =>
        ra !== rb &&
        (ra === 0 ? segmentsCross(a[i], a[i + 1], b[j], b[j + 1]) : segmentsCross(b[i], b[i + 1], a[j], a[j + 1])),
    )
  for (let i = 0; i < a.length - 1; i++)
    for (let j = 0; j < b.length - 1; j++) if (segmentsCross(a[i], a[i + 1], b[j], b[j + 1])) return true
  return false
}

const fmt = (v: number) => String(Math.round(v * 1e7) / 1e7)

export function toWkt(mp: MultiPolygon): string {
  const ring = (r: Ring) => `(${r.map(([x, y]) => `${fmt(x)} ${fmt(y)}`).join(', ')})`
  return `MULTIPOLYGON (${mp.map((p) => `(${p.map(ring).join(', ')})`).join(', ')})`
}

export function toGeoJson(mp: MultiPolygon): { type: 'MultiPolygon'; coordinates: number[][][][] } {
  return {
    type: 'MultiPolygon',
    coordinates: mp.map((p) => p.map((r) => r.map(([x, y]) => [Math.round(x * 1e7) / 1e7, Math.round(y * 1e7) / 1e7]))),
  }
}
