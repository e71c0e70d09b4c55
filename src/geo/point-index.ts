/**
 * Radius and nearest-point queries in metres over a KDBush index of [lon, lat] points, exact on
 * the WGS84 ellipsoid:
 *
 *   KDBush box (degrees, with margin)  ->  cheap local distance, prefilter with margin
 *        ->  exact geodesic only for the candidates that can still be in the answer
 *
 * Index hits are item numbers in insertion order (the row order of build-index).
 */
import KDBush from 'kdbush'
import { nearestOnSphere, treeBox } from './kd-nearest.js'
import { APPROX_REL_ERROR, approxDistanceM, geodesicDistanceM, metresPerDegree } from './geodesic.js'

export interface PointHit {
  /** item number (insertion order) */
  i: number
  /** geodesic metres from the query point */
  distanceM: number
}

/** Sphere (6371 km) distances stay within 0.7 % of the ellipsoid's. */
const SPHERE_REL_ERROR = 0.007

function boxAround(lon: number, lat: number, radiusM: number): [number, number, number, number] {
  // margin covers the flat estimate; the box latitude nearest a pole has the shortest degree of longitude
  const r = radiusM * (1 + APPROX_REL_ERROR * 2) + 1
  const dLat = r / metresPerDegree(lat).lat
  const poleward = Math.min(89.9, Math.max(Math.abs(lat - dLat), Math.abs(lat + dLat)))
  const dLon = Math.min(180, r / metresPerDegree(poleward).lon)
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat]
}

/** k-th smallest (0-based) of the first n values; reorders a copy. */
function kthSmallest(values: Float64Array, n: number, k: number): number {
  const a = values.slice(0, n)
  let lo = 0
  let hi = n - 1
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]
    let i = lo
    let j = hi
    while (i <= j) {
      while (a[i] < pivot) i++
      while (a[j] > pivot) j--
      if (i <= j) {
        const t = a[i]
        a[i] = a[j]
        a[j] = t
        i++
        j--
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else return a[k]
  }
  return a[k]
}

export class PointIndex {
  /** insertion item -> position in KDBush's sorted coordinate array */
  private readonly pos: Uint32Array
  private scratchD = new Float64Array(1024)
  private scratchI = new Uint32Array(1024)
  /** bounding box of the points, computed on the first sparse nearest search */
  private box: [number, number, number, number] | undefined

  private constructor(
    readonly kd: KDBush,
    /** number of real points (an empty layer is stored as one placeholder point) */
    readonly size: number,
  ) {
    const ids = kd.ids
    this.pos = new Uint32Array(kd.numItems)
    for (let j = 0; j < kd.numItems; j++) this.pos[ids[j]] = j
  }

  static from(data: ArrayBuffer, size: number): PointIndex {
    return new PointIndex(KDBush.from(data), size)
  }

  lon(i: number): number {
    return this.kd.coords[2 * this.pos[i]]
  }

  lat(i: number): number {
    return this.kd.coords[2 * this.pos[i] + 1]
  }

  private grow(n: number): void {
    if (n <= this.scratchD.length) return
    let len = this.scratchD.length
    while (len < n) len *= 2
    this.scratchD = new Float64Array(len)
    this.scratchI = new Uint32Array(len)
  }

  /**
   * Points within `radiusM` metres (geodesic, boundary included), nearest first, at most `limit`;
   * ties broken by item number so answers are stable.
   */
  within(lon: number, lat: number, radiusM: number, limit: number, accept?: (i: number) => boolean): PointHit[] {
    if (this.size === 0 || limit <= 0) return []
    const [x0, y0, x1, y1] = boxAround(lon, lat, radiusM)
    const ids = this.kd.range(x0, y0, x1, y1)
    this.grow(ids.length)
    const d = this.scratchD
    const idx = this.scratchI
    const cut = radiusM * (1 + APPROX_REL_ERROR) + 1e-6
    let n = 0
    for (const i of ids) {
      if (accept && !accept(i)) continue
      const a = approxDistanceM(lon, lat, this.lon(i), this.lat(i))
      if (a <= cut) {
        d[n] = a
        idx[n] = i
        n++
      }
    }
    if (n === 0) return []
    // only candidates whose estimate could rank within the first `limit` need the exact distance
    let bound = Infinity
    if (n > limit) bound = kthSmallest(d, n, limit - 1) * (1 + APPROX_REL_ERROR) / (1 - APPROX_REL_ERROR) + 1e-6
    const hits: PointHit[] = []
    for (let k = 0; k < n; k++) {
      if (d[k] > bound) continue
      const i = idx[k]
      const exact = geodesicDistanceM(lon, lat, this.lon(i), this.lat(i))
      if (exact <= radiusM) hits.push({ i, distanceM: exact })
    }
    hits.sort((p, q) => p.distanceM - q.distanceM || p.i - q.i)
    if (hits.length > limit) hits.length = limit
    return hits
  }

  /**
   * The nearest point within `maxM` metres, or null. Walks the tree nearest-first on the sphere
   * (branch and bound, pruned by the reach: see kd-nearest.ts), then settles the answer on the
   * ellipsoid with one exact radius search out to the sphere-nearest point's ellipsoid distance
   * (the ellipsoid-nearest point can be no farther), which in a township holds a handful of
   * candidates.
   */
  nearest(lon: number, lat: number, maxM: number, accept?: (i: number) => boolean): PointHit | null {
    if (this.size === 0) return null
    this.box ??= treeBox(this.kd)
    const first = nearestOnSphere(this.kd, this.box, lon, lat, (maxM * (1 + SPHERE_REL_ERROR)) / 1000, accept)
    if (first < 0) return null
    const firstM = geodesicDistanceM(lon, lat, this.lon(first), this.lat(first))
    return this.within(lon, lat, Math.min(firstM, maxM), 1, accept)[0] ?? null
  }
}
