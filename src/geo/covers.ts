/**
 * Whether one parcel covers another by area (docs/decisions.md "Geometry tolerances"): `inner`
 * lies inside `outer` (holes excluded) within the 2 cm that boundaries may differ by after
 * rounding (SHARED_EDGE_TOL_M). Used where a parcel is judged to hold another (a neighbour is
 * never one that holds it or that it holds).
 *
 * Why not the vertices alone: a parcel lying in the hole of another has every vertex on the
 * hole's ring, which closed sets count as inside, yet the two only touch; judged by vertices,
 * it was dropped from the other's touching and within-distance neighbours. The vertex test still
 * comes first: any vertex more than 2 cm outside settles "no" without clipping, so only the rare
 * candidates (held parcels and parcels in holes) are clipped.
 *
 * Why 2 cm and not exactly: a farm's portion shares the farm's beacons, and where the farm's
 * ring does not carry a beacon as a vertex of its own (a T-junction), the beacon rounded to
 * 1e-7° lies a few millimetres off the farm's edge, outside as often as inside. Judged exactly
 * (0.1 mm), such a portion was not covered by its farm.
 */
import { subtract } from './clip.js'
import { metresPerDegree } from './geodesic.js'
import { convexSign } from './overlay/convex-clip.js'
import {
  containsPoint,
  type MultiPolygon,
  multiPolygonAreaSqm,
  type Polygon,
  pointSegmentM,
  ringSignedArea2,
} from './polygon.js'
import { SHARED_EDGE_TOL_M } from './shared-boundary.js'

/** Below this much area of `inner` outside `outer` (m²) it is a sliver of rounding, whatever the perimeter. */
const SLIVER_SQM = 0.01

/**
 * True when `outer` covers `inner` within 2 cm (closed sets: shared edges and vertices count as
 * covered): every vertex of `inner` inside `outer` or within 2 cm of its boundary, and what is
 * left of `inner` outside `outer` slivers along its boundary: each piece no wider than 2 cm on
 * average (its area at most 2 cm × half its perimeter, so about 2 cm × `inner`'s perimeter in
 * all), or all of it under SLIVER_SQM. A parcel filling or lying in a hole of `outer` leaves its
 * whole self outside, far wider than that, so is not covered (the two touch); nor is one crossing
 * a notch or hole of `outer` with every vertex inside.
 */
export function coversByArea(outer: MultiPolygon, inner: MultiPolygon): boolean {
  const m = metresPerDegree(outer[0][0][0][1])
  const tolX = SHARED_EDGE_TOL_M / m.lon
  const tolY = SHARED_EDGE_TOL_M / m.lat
  // a vertex beyond outer's box widened by 2 cm settles it before any point location (the common
  // case: a neighbour's far side)
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (const poly of outer)
    for (const [x, y] of poly[0]) {
      if (x < minX) minX = x
      if (x > maxX) maxX = x
      if (y < minY) minY = y
      if (y > maxY) maxY = y
    }
  minX -= tolX
  minY -= tolY
  maxX += tolX
  maxY += tolY
  for (const poly of inner) for (const [x, y] of poly[0]) if (x < minX || x > maxX || y < minY || y > maxY) return false
  for (const poly of inner)
    for (const [x, y] of poly[0])
      if (!containsPoint(outer, x, y) && !nearBoundary(outer, x, y, m.lon, m.lat, tolX, tolY)) return false
  // a convex parcel without holes holds all of what its vertices span, and the 2 cm band around
  // it all of what vertices within 2 cm of it span: no clipping needed
  if (outer.length === 1 && outer[0].length === 1 && convexSign(outer[0][0]) !== 0) return true
  const rest = subtract(inner, outer)
  if (rest.length === 0) return true
  let thin = true
  for (const piece of rest) {
    const k = metresPerDegree(piece[0][0][1])
    if (areaSqm(piece, k) > SHARED_EDGE_TOL_M * (perimeterM(piece, k) / 2)) {
      thin = false
      break
    }
  }
  return thin || multiPolygonAreaSqm(rest) <= SLIVER_SQM
}

/**
 * True when (x, y) lies within SHARED_EDGE_TOL_M of an edge of `mp` (any ring), measured in a
 * plane of scales kx, ky (the tolerance is tolX, tolY degrees).
 */
function nearBoundary(
  mp: MultiPolygon,
  x: number,
  y: number,
  kx: number,
  ky: number,
  tolX: number,
  tolY: number,
): boolean {
  for (const poly of mp)
    for (const ring of poly)
      for (let i = 0; i < ring.length - 1; i++) {
        const [ax, ay] = ring[i]
        const [bx, by] = ring[i + 1]
        // edges whose box, widened by the tolerance, misses the point are farther away
        if ((ax < bx ? ax : bx) - tolX > x || (ax > bx ? ax : bx) + tolX < x) continue
        if ((ay < by ? ay : by) - tolY > y || (ay > by ? ay : by) + tolY < y) continue
        if (pointSegmentM(x, y, ax, ay, bx, by, kx, ky) <= SHARED_EDGE_TOL_M) return true
      }
  return false
}

/** Area in m² of one polygon (shell less holes), in a plane with the given scales. */
function areaSqm(poly: Polygon, m: { lat: number; lon: number }): number {
  let a = Math.abs(ringSignedArea2(poly[0]))
  for (let h = 1; h < poly.length; h++) a -= Math.abs(ringSignedArea2(poly[h]))
  return (a / 2) * m.lat * m.lon
}

/** Length in metres of every ring of one polygon, in a plane with the given scales. */
function perimeterM(poly: Polygon, m: { lat: number; lon: number }): number {
  let total = 0
  for (const ring of poly)
    for (let i = 0; i < ring.length - 1; i++)
      total += Math.hypot((ring[i + 1][0] - ring[i][0]) * m.lon, (ring[i + 1][1] - ring[i][1]) * m.lat)
  return total
}
