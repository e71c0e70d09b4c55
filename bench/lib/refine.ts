/**
 * The exact step shared by the bbox-based strategies (Flatbush, SQLite R*Tree, brute force):
 * index candidates -> cheap local distance with a margin -> exact geodesic (the production
 * `geodesicDistanceM`) only where it can still matter. Same margins as src/geo/point-index.ts,
 * so every strategy answers on identical distances and can be compared id for id.
 *
 * @module
 */
import { APPROX_REL_ERROR, approxDistanceM, geodesicDistanceM, metresPerDegree } from '../../src/geo/geodesic.js'

/** A box in degrees holding every point within `radiusM` geodesic metres (with margin). */
export function boxAround(lon: number, lat: number, radiusM: number): [number, number, number, number] {
  const r = radiusM * (1 + APPROX_REL_ERROR * 2) + 1
  const dLat = r / metresPerDegree(lat).lat
  const poleward = Math.min(89.9, Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)))
  const dLon = Math.min(180, r / metresPerDegree(poleward).lon)
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat]
}

export interface Hit {
  i: number
  d: number
}

const byDistanceThenId = (a: Hit, b: Hit) => a.d - b.d || a.i - b.i

/**
 * Radius answer from candidates: ids within `radiusM` (boundary included), nearest first, ties
 * by id, at most `limit`. `lonOf`/`latOf` give a candidate's coordinates.
 */
export function refineRadius(
  cand: ArrayLike<number>,
  lonOf: (k: number) => number,
  latOf: (k: number) => number,
  lon: number,
  lat: number,
  radiusM: number,
  limit: number,
): Hit[] {
  const cut = radiusM * (1 + APPROX_REL_ERROR) + 1e-6
  const near: { k: number; a: number }[] = []
  for (let k = 0; k < cand.length; k++) {
    const a = approxDistanceM(lon, lat, lonOf(k), latOf(k))
    if (a <= cut) near.push({ k, a })
  }
  // exact distance only for candidates whose estimate can rank within the first `limit`
  let bound = Infinity
  if (near.length > limit) {
    near.sort((p, q) => p.a - q.a)
    bound = (near[limit - 1].a * (1 + APPROX_REL_ERROR)) / (1 - APPROX_REL_ERROR) + 1e-6
  }
  const hits: Hit[] = []
  for (const { k, a } of near) {
    if (a > bound) continue
    const d = geodesicDistanceM(lon, lat, lonOf(k), latOf(k))
    if (d <= radiusM) hits.push({ i: cand[k], d })
  }
  hits.sort(byDistanceThenId)
  if (hits.length > limit) hits.length = limit
  return hits
}

/** Nearest candidate by geodesic distance (ties by id), or null when there are none. */
export function refineNearest(
  cand: ArrayLike<number>,
  lonOf: (k: number) => number,
  latOf: (k: number) => number,
  lon: number,
  lat: number,
): Hit | null {
  if (cand.length === 0) return null
  const approx = new Float64Array(cand.length)
  let minA = Infinity
  for (let k = 0; k < cand.length; k++) {
    const a = approxDistanceM(lon, lat, lonOf(k), latOf(k))
    approx[k] = a
    if (a < minA) minA = a
  }
  const bound = (minA * (1 + APPROX_REL_ERROR)) / (1 - APPROX_REL_ERROR) + 1e-6
  let best: Hit | null = null
  for (let k = 0; k < cand.length; k++) {
    if (approx[k] > bound) continue
    const d = geodesicDistanceM(lon, lat, lonOf(k), latOf(k))
    const i = cand[k]
    if (!best || d < best.d || (d === best.d && i < best.i)) best = { i, d }
  }
  return best
}

/**
 * Nearest within `maxM` for an index that only answers boxes: search boxes of radius 250 m,
 * 500 m, 1 km … (doubling, capped at `maxM`) until the best candidate lies inside the disc the
 * box was drawn for (then nothing outside the box can be closer).
 */
export function nearestByExpandingBoxes(
  search: (box: [number, number, number, number]) => Hit | null,
  lon: number,
  lat: number,
  maxM: number,
): Hit | null {
  for (let r = 250; ; r *= 2) {
    const reach = Math.min(r, maxM)
    const best = search(boxAround(lon, lat, reach))
    if (best && best.d <= reach) return best
    if (reach >= maxM) return null
  }
}
