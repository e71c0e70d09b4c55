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
import { convexSign } from './overlay/convex-clip.js'
import { containsPoint, type MultiPolygon, multiPolygonAreaSqm } from './polygon.js'

/** Below this much area of `inner` outside `outer` (m², or this share of `inner`) it is a sliver of rounding. */
const SLIVER_SQM = 0.01
const SLIVER_SHARE = 1e-6

/** True when `outer` covers `inner` up to a sliver (closed sets: shared edges and vertices count as covered). */
export function coversByArea(outer: MultiPolygon, inner: MultiPolygon): boolean {
  for (const poly of inner) for (const [x, y] of poly[0]) if (!containsPoint(outer, x, y)) return false
  // a convex parcel without holes holds all of what its vertices span: no clipping needed
  if (outer.length === 1 && outer[0].length === 1 && convexSign(outer[0][0]) !== 0) return true
  const rest = subtract(inner, outer)
  if (rest.length === 0) return true
  return multiPolygonAreaSqm(rest) <= Math.max(SLIVER_SQM, SLIVER_SHARE * multiPolygonAreaSqm(inner))
}
