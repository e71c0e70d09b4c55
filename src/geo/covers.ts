/**
 * Whether one parcel covers another by area (docs/decisions.md "Geometry tolerances"): the part
 * of `inner` outside `outer` is no more than a sliver. Used where a parcel is judged to hold
 * another (a neighbour is never one that holds it or that it holds).
 *
 * Why not the vertices alone: a parcel lying in the hole of another has every vertex on the
 * hole's ring, which closed sets count as inside, yet the two only touch; judged by vertices,
 * it was dropped from the other's touching and within-distance neighbours. The vertex test still
 * comes first: any vertex strictly outside settles "no" without clipping, so only the rare
 * candidates (held parcels and parcels in holes) are clipped.
 */
import { subtract } from './clip.js'
import { containsPoint, type MultiPolygon, multiPolygonAreaSqm, type Ring } from './polygon.js'

/** Below this much area of `inner` outside `outer` (m², or this share of `inner`) it is a sliver of rounding. */
const SLIVER_SQM = 0.01
const SLIVER_SHARE = 1e-6

/** True when `outer` covers `inner` up to a sliver (closed sets: shared edges and vertices count as covered). */
export function coversByArea(outer: MultiPolygon, inner: MultiPolygon): boolean {
  for (const poly of inner) for (const [x, y] of poly[0]) if (!containsPoint(outer, x, y)) return false
  // a convex parcel without holes holds all of what its vertices span: no clipping needed
  if (outer.length === 1 && outer[0].length === 1 && isConvex(outer[0][0])) return true
  const rest = subtract(inner, outer)
  if (rest.length === 0) return true
  return multiPolygonAreaSqm(rest) <= Math.max(SLIVER_SQM, SLIVER_SHARE * multiPolygonAreaSqm(inner))
}

/** Whether a closed ring turns one way only (collinear runs allowed). */
function isConvex(ring: Ring): boolean {
  let sign = 0
  const n = ring.length - 1
  for (let i = 0; i < n; i++) {
    const [ax, ay] = ring[i]
    const [bx, by] = ring[(i + 1) % n]
    const [cx, cy] = ring[(i + 2) % n]
    const cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx)
    if (cross === 0) continue
    if (sign === 0) sign = Math.sign(cross)
    else if (Math.sign(cross) !== sign) return false
  }
  return true
}
