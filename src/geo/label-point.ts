/**
 * A label point guaranteed inside a polygon, for records whose source gives none: the pole of
 * inaccessibility (the interior point farthest from every edge, holes included) of the largest
 * part, found by the `polylabel` package. Why not the box centre: an L- or U-shaped erf, or a
 * farm wrapped around another, has its box centre in the neighbour, which misplaces the parcel's
 * label, the erven derived from it and its jurisdiction chain.
 *
 * The search runs in a local plane (longitude scaled by the cosine of the latitude), so the
 * point is central in metres, not in degrees: to about 1 m, or a thousandth of the part's
 * narrower side on parts wider than a kilometre (a municipality), whose labels need no more.
 */
import polylabel from 'polylabel'
import { containsPoint, type MultiPolygon, type Polygon, ringSignedArea2 } from './polygon.js'

/** About one metre, in degrees of latitude. */
const METRE_DEG = 1 / 111_320

/** The largest part of a multipolygon by planar area (its shell less its holes). */
function largestPart(mp: MultiPolygon): Polygon {
  let best = mp[0]
  let bestArea = -Infinity
  for (const poly of mp) {
    let a = Math.abs(ringSignedArea2(poly[0]))
    for (let h = 1; h < poly.length; h++) a -= Math.abs(ringSignedArea2(poly[h]))
    if (a > bestArea) {
      bestArea = a
      best = poly
    }
  }
  return best
}

/** [lon, lat] inside `mp` (on its boundary only when it has no interior), for a label. */
export function labelPoint(mp: MultiPolygon): [number, number] {
  const part = largestPart(mp)
  const shell = part[0]
  let minY = Infinity
  let maxY = -Infinity
  for (const [, y] of shell) {
    if (y < minY) minY = y
    if (y > maxY) maxY = y
  }
  const k = Math.cos((((minY + maxY) / 2) * Math.PI) / 180)
  const plane = part.map((ring) => ring.map(([x, y]) => [x * k, y] as [number, number]))
  let minX = Infinity
  let maxX = -Infinity
  for (const [x] of plane[0]) {
    if (x < minX) minX = x
    if (x > maxX) maxX = x
  }
  const narrower = Math.min(maxX - minX, maxY - minY)
  if (narrower > 0) {
    // about 1 m, finer on small parts, coarser (a thousandth of the part) on municipalities
    for (const precision of [Math.min(Math.max(METRE_DEG, narrower / 1000), narrower / 20), narrower / 10_000]) {
      const [x, y] = polylabel(plane, precision)
      const lon = x / k
      if (containsPoint(mp, lon, y)) return [lon, y]
    }
  }
  // no interior (a degenerate part): a vertex, on the boundary, which closed sets count as inside
  return [shell[0][0], shell[0][1]]
}
