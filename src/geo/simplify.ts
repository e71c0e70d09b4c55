/**
 * Ring validity and topology-preserving simplification of polygons in [lon, lat] degrees: the
 * crossing tests (through a uniform grid of segments on long rings) and the Douglas-Peucker
 * simplification that `/parcels/{lpi}/geometry?simplify=` and the boundary answers use.
 */
import { metresPerDegree } from './geodesic.js'
import {
  locatePoint,
  type MultiPolygon,
  type Polygon,
  pointSegmentM,
  type Ring,
  ringSignedArea2,
  segmentsCross,
} from './polygon.js'

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
