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
import { KdBoxes, flatWalkApplies, nearestCandidate, nearestExact } from './kd-nearest.js'
import {
  APPROX_MAX_M,
  APPROX_REL_ERROR,
  approxDistanceM,
  degreesAround,
  fastGeodesicM,
  geodesicGivenApproxM,
  metresPerDegree,
} from './geodesic.js'

export interface PointHit {
  /** item number (insertion order) */
  i: number
  /** geodesic metres from the query point */
  distanceM: number
  /** the point's coordinates, read where the search met it (an answer needs no second lookup) */
  lon: number
  lat: number
}

/**
 * Radius searches for this many points or more look within half the radius first (see
 * PointIndex.within); fewer, as the nearest search's settle (1), rarely find them all there.
 */
const HALF_FIRST_MIN_LIMIT = 8

/** Settle radii up to this use the box search (see PointIndex.settle). */
const SETTLE_BY_BOX_M = 1000

/** Sphere (6371 km) distances stay within 0.7 % of the ellipsoid's. */
const SPHERE_REL_ERROR = 0.007

function boxAround(lon: number, lat: number, radiusM: number): [number, number, number, number] {
  // margin covers the flat estimate; the box latitude nearest a pole has the shortest degree of longitude
  const d = degreesAround(lat, radiusM * (1 + APPROX_REL_ERROR * 2) + 1)
  return [lon - d.lon, lat - d.lat, lon + d.lon, lat + d.lat]
}

/**
 * Squared metres per degree (longitude, latitude) below and above those {@link approxDistanceM}
 * uses between (lon, lat) and any point of latitude y0..y1: it scales by the mid-latitude, which
 * lies between (lat + y0) / 2 and (lat + y1) / 2. A degree of longitude shrinks and a degree of
 * latitude grows with |latitude|. The lower pair is nudged down so that rounding cannot lift an
 * estimate above the distance it bounds.
 */
function scaleBounds(
  lat: number,
  y0: number,
  y1: number,
): { lonLo: number; latLo: number; lonHi: number; latHi: number } {
  const a = Math.abs((lat + y0) / 2)
  const b = Math.abs((lat + y1) / 2)
  const near = (lat + y0) / 2 <= 0 && (lat + y1) / 2 >= 0 ? 0 : Math.min(a, b)
  const far = Math.max(a, b)
  const kNear = metresPerDegree(near)
  const kFar = metresPerDegree(far)
  const down = 1 - 1e-12
  return {
    lonLo: kFar.lon * kFar.lon * down,
    latLo: kNear.lat * kNear.lat * down,
    lonHi: kNear.lon * kNear.lon,
    latHi: kFar.lat * kFar.lat,
  }
}

/** Metres per degree of latitude at the equator: the fewest anywhere (a meridian degree grows towards the poles). */
const MIN_M_PER_DEG_LAT = metresPerDegree(0).lat

/**
 * Metres per degree of longitude and of latitude no larger than the ellipsoid's radii of
 * curvature give anywhere within `radiusM` of latitude `lat` along any path: such a path moves
 * at most radiusM / MIN_M_PER_DEG_LAT degrees of latitude, and over that band a degree of
 * latitude is shortest nearest the equator and a degree of longitude shortest nearest the pole.
 * Nudged down so that rounding cannot lift a bound above the distance it bounds.
 */
export function bandScales(lat: number, radiusM: number): { lon: number; lat: number } {
  const dLat = radiusM / MIN_M_PER_DEG_LAT
  const lo = lat - dLat
  const hi = lat + dLat
  const near = lo <= 0 && hi >= 0 ? 0 : Math.min(Math.abs(lo), Math.abs(hi))
  const far = Math.min(90, Math.max(Math.abs(lo), Math.abs(hi)))
  const down = 1 - 1e-9
  return { lon: metresPerDegree(far).lon * down, lat: metresPerDegree(near).lat * down }
}

function growStack(s: Uint32Array): Uint32Array {
  const t: Uint32Array = new Uint32Array(s.length * 2)
  t.set(s)
  return t
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
  /**
   * insertion item -> position in KDBush's sorted coordinate array, made on the first lon(i) /
   * lat(i) (the searches return positions or coordinates, so a server never needs it: 27 MB and
   * ~50 ms of start-up for the national erven)
   */
  private pos: Uint32Array | undefined
  private scratchD = new Float64Array(1024)
  private scratchI = new Uint32Array(1024)
  private stack: Uint32Array = new Uint32Array(3 * 64)
  /**
   * tight boxes of the tree's nodes, for the nearest walks: one pass over the points (~85 ms
   * for the national erven), made with the index so that it falls in start-up, not in the
   * first request
   */
  private readonly boxes: KdBoxes

  private constructor(
    readonly kd: KDBush,
    /** number of real points (an empty layer is stored as one placeholder point) */
    readonly size: number,
  ) {
    this.boxes = new KdBoxes(kd)
  }

  static from(data: ArrayBuffer, size: number): PointIndex {
    return new PointIndex(KDBush.from(data), size)
  }

  /** Bytes held beside KDBush's own data: the node boxes, and the position table once made. */
  get memoryBytes(): number {
    return this.boxes.b.byteLength + (this.pos?.byteLength ?? 0)
  }

  private position(i: number): number {
    if (!this.pos) {
      const ids = this.kd.ids
      const pos = new Uint32Array(this.kd.numItems)
      for (let j = 0; j < pos.length; j++) pos[ids[j]] = j
      this.pos = pos
    }
    return this.pos[i]
  }

  lon(i: number): number {
    return this.kd.coords[2 * this.position(i)]
  }

  lat(i: number): number {
    return this.kd.coords[2 * this.position(i) + 1]
  }

  private grow(n: number): void {
    if (n <= this.scratchD.length) return
    let len = this.scratchD.length
    while (len < n) len *= 2
    const d = new Float64Array(len)
    const i = new Uint32Array(len)
    // keep what a search has gathered so far
    d.set(this.scratchD)
    i.set(this.scratchI)
    this.scratchD = d
    this.scratchI = i
  }

  /**
   * Points within `radiusM` metres (geodesic, boundary included), nearest first, at most `limit`;
   * ties broken by item number so answers are stable.
   *
   * Where many points are asked for, the nearest `limit` often lie well inside the radius (a
   * 500 m circle in a township holds ~460 erven; the nearest 100 lie within ~250 m), so the
   * circle of half the radius is searched first: its box holds a quarter of the points. When it
   * holds `limit` points they are the answer, since every point beyond it is farther than each
   * of them; otherwise the whole radius is searched, and the first search cost a quarter of it.
   */
  within(lon: number, lat: number, radiusM: number, limit: number, accept?: (i: number) => boolean): PointHit[] {
    if (this.size === 0 || limit <= 0) return []
    if (limit >= HALF_FIRST_MIN_LIMIT) {
      const near = this.search(lon, lat, radiusM / 2, limit, accept)
      if (near.length >= limit) return near
    }
    return this.search(lon, lat, radiusM, limit, accept)
  }

  /** {@link within} in one pass. */
  private search(
    lon: number,
    lat: number,
    radiusM: number,
    limit: number,
    accept?: (i: number) => boolean,
  ): PointHit[] {
    const [x0, y0, x1, y1] = boxAround(lon, lat, radiusM)
    const { ids, coords, nodeSize } = this.kd
    const cut = radiusM * (1 + APPROX_REL_ERROR) + 1e-6
    // each point in the box is first measured with the scale of the box's edge, a lower bound of
    // approxDistanceM's (which takes a sine and a cosine per point); the estimate proper is made
    // only for the points that bound leaves in the running
    const k = scaleBounds(lat, y0, y1)
    const cut2 = cut * cut
    let d = this.scratchD
    let idx = this.scratchI
    let n = 0
    // KDBush's range walk, inlined so each point in the box is measured where it sits in the
    // tree's coordinate array (no id list, no id -> position lookup)
    let stack = this.stack
    stack[0] = 0
    stack[1] = ids.length - 1
    stack[2] = 0
    let sp = 3
    while (sp > 0) {
      const axis = stack[--sp]
      const right = stack[--sp]
      const left = stack[--sp]
      const leaf = right - left <= nodeSize
      const from = leaf ? left : (left + right) >> 1
      const to = leaf ? right : from
      for (let j = from; j <= to; j++) {
        const x = coords[2 * j]
        const y = coords[2 * j + 1]
        if (x < x0 || x > x1 || y < y0 || y > y1) continue
        const dx = x - lon
        const dy = y - lat
        const low2 = dx * dx * k.lonLo + dy * dy * k.latLo
        if (low2 > cut2) continue
        if (accept && !accept(ids[j])) continue
        if (n === d.length) {
          this.grow(n + 1)
          d = this.scratchD
          idx = this.scratchI
        }
        d[n] = low2
        idx[n] = j
        n++
      }
      if (leaf) continue
      const m = from
      const split = axis === 0 ? coords[2 * m] : coords[2 * m + 1]
      if (sp + 6 > stack.length) stack = this.stack = growStack(stack)
      if ((axis === 0 ? x0 : y0) <= split) {
        stack[sp++] = left
        stack[sp++] = m - 1
        stack[sp++] = 1 - axis
      }
      if ((axis === 0 ? x1 : y1) >= split) {
        stack[sp++] = m + 1
        stack[sp++] = right
        stack[sp++] = 1 - axis
      }
    }
    if (n === 0) return []
    // only candidates that could rank within the first `limit` need the estimate and the exact
    // distance: `limit` of them lie within the k-th lower bound times the largest scale ratio,
    // so nothing ranking among the first `limit` is farther than that by the exact distance
    let bound = cut
    if (n > limit) {
      const ratio = Math.sqrt(Math.max(k.lonHi / k.lonLo, k.latHi / k.latLo))
      bound = Math.min(
        cut,
        (Math.sqrt(kthSmallest(d, n, limit - 1)) * ratio * (1 + APPROX_REL_ERROR)) / (1 - APPROX_REL_ERROR) + 1e-6,
      )
    }
    const bound2 = bound * bound
    const hits: PointHit[] = []
    for (let q = 0; q < n; q++) {
      if (d[q] > bound2) continue
      const j = idx[q]
      const x = coords[2 * j]
      const y = coords[2 * j + 1]
      const a = approxDistanceM(lon, lat, x, y)
      if (a > bound) continue
      // fastGeodesicM from the estimate already made: below 1 km it is that estimate
      const exact = geodesicGivenApproxM(a, lon, lat, x, y)
      if (exact <= radiusM) hits.push({ i: ids[j], distanceM: exact, lon: x, lat: y })
    }
    hits.sort((p, q) => p.distanceM - q.distanceM || p.i - q.i)
    if (hits.length > limit) hits.length = limit
    return hits
  }

  /**
   * The nearest point within `maxM` metres, or null. Walks the tree nearest-first (branch and
   * bound pruned by the reach, on a flat metric near the point and the sphere beyond: see
   * kd-nearest.ts) to a candidate, then settles the answer on the ellipsoid with one exact
   * radius search out to the candidate's ellipsoid distance (the nearest point can be no
   * farther), which in a township holds a handful of points.
   */
  nearest(lon: number, lat: number, maxM: number, accept?: (i: number) => boolean): PointHit | null {
    const first = this.candidate(lon, lat, maxM, accept)
    return first ? this.settle(lon, lat, Math.min(first.distanceM, maxM), accept) : null
  }

  /**
   * The first half of {@link nearest}: a point near (lon, lat) found by the tree walk, with its
   * ellipsoidal distance (an upper bound of the nearest point's), or null when no point lies
   * within `maxM`. Callers searching several indexes settle the closest candidate first and
   * then the others with a smaller radius (see the plot queries' reverse).
   */
  candidate(lon: number, lat: number, maxM: number, accept?: (i: number) => boolean): PointHit | null {
    if (this.size === 0) return null
    const j = nearestCandidate(this.kd, this.boxes, lon, lat, (maxM * (1 + SPHERE_REL_ERROR)) / 1000, accept)
    if (j < 0) return null
    // measured as within() measures, so the candidate itself is inside the radius
    const x = this.kd.coords[2 * j]
    const y = this.kd.coords[2 * j + 1]
    return { i: this.kd.ids[j], distanceM: fastGeodesicM(lon, lat, x, y), lon: x, lat: y }
  }

  /** The second half of {@link nearest}: the exact nearest point within `radiusM`, or null. */
  settle(lon: number, lat: number, radiusM: number, accept?: (i: number) => boolean): PointHit | null {
    if (this.size === 0) return null
    // a small radius: the box search reads a handful of points and allocates nothing; a large
    // one: the incremental walk (a 90 km box can hold a whole town; the walk reads a ring)
    if (radiusM <= SETTLE_BY_BOX_M || radiusM > APPROX_MAX_M || !flatWalkApplies(lat, radiusM / 1000))
      return this.within(lon, lat, radiusM, 1, accept)[0] ?? null
    return nearestExact(
      this.kd,
      this.boxes,
      lon,
      lat,
      radiusM,
      (x, y) => fastGeodesicM(lon, lat, x, y),
      bandScales(lat, radiusM),
      accept,
    )
  }
}
