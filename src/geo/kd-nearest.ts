/**
 * Nearest point on a sphere over a KDBush tree, branch and bound.
 *
 * Why not geokdbush's `around`: it starts from a whole-Earth box and never prunes a tree node
 * by `maxDistance` (only popped points are compared with it), so a query far from every point
 * (a South African point against the Botswana layer, 100 km reach) expands the tree until it
 * pops a point about 1000 km away: about 1.3 ms at national scale. Here every node is bounded by
 * the tight box of its points (KdBoxes), and the walk drops every node whose lower bound exceeds
 * the reach or the best point found so far, which makes the hopeless case a few node visits.
 *
 * Distances are great-circle on a 6371 km sphere (within 0.7 % of the ellipsoid); callers that
 * need the ellipsoid re-measure the answer (see PointIndex.nearest).
 */
import type KDBush from 'kdbush'

import { boxKm, R_KM, RAD, sphereKm } from './sphere.js'

interface Node {
  left: number
  right: number
  /** the node's number in KdBoxes (root 1, children 2k and 2k + 1); unused for points on the heap */
  k: number
  bound: number
}

/**
 * The tight bounding box of every node of a KDBush tree (the box of the points below it, not
 * the region its split lines cut out), numbered as a binary heap: the root 1, the halves of node
 * k (items left of its median, then right of it) 2k and 2k + 1. KDBush's tree is implicit: a
 * node's items are a range [left, right] of its arrays, split at the median (left + right) >> 1
 * until a range holds at most nodeSize + 1 items.
 *
 * Why: the split region of a node on the edge of a town reaches out over the empty veld to the
 * next split line, so a query far from every plot ("the middle of the Kalahari") sees dozens of
 * nodes whose regions come near it and walks into each; their tight boxes stay around the plots
 * and are pruned at once. One pass over the points (about as long as the data's bounding box it
 * replaces) and 32 bytes a node (about 8 MB for 6.8 M erven).
 */
export class KdBoxes {
  /** minX, minY, maxX, maxY of node k at 4k (4 * 0 .. 3 unused) */
  readonly b: Float64Array

  constructor(kd: KDBush) {
    const n = kd.ids.length
    const nodeSize = kd.nodeSize
    // the deepest node number: halve the largest range until it is a leaf
    let depth = 0
    for (let len = n; len > nodeSize + 1; len = len >> 1) depth++
    this.b = new Float64Array(4 * 2 ** (depth + 1))
    if (n > 0) this.fill(kd.coords, nodeSize, 1, 0, n - 1)
  }

  private fill(c: ArrayLike<number>, nodeSize: number, k: number, left: number, right: number): void {
    const b = this.b
    let minX = Infinity
    let minY = Infinity
    let maxX = -Infinity
    let maxY = -Infinity
    if (right - left <= nodeSize) {
      for (let j = left; j <= right; j++) {
        const x = c[2 * j]
        const y = c[2 * j + 1]
        if (x < minX) minX = x
        if (x > maxX) maxX = x
        if (y < minY) minY = y
        if (y > maxY) maxY = y
      }
    } else {
      const m = (left + right) >> 1
      minX = maxX = c[2 * m]
      minY = maxY = c[2 * m + 1]
      // both halves are non-empty: an inner range holds more than nodeSize + 1 >= 2 items
      this.fill(c, nodeSize, 2 * k, left, m - 1)
      this.fill(c, nodeSize, 2 * k + 1, m + 1, right)
      for (let h = 8 * k; h <= 8 * k + 4; h += 4) {
        if (b[h] < minX) minX = b[h]
        if (b[h + 1] < minY) minY = b[h + 1]
        if (b[h + 2] > maxX) maxX = b[h + 2]
        if (b[h + 3] > maxY) maxY = b[h + 3]
      }
    }
    b[4 * k] = minX
    b[4 * k + 1] = minY
    b[4 * k + 2] = maxX
    b[4 * k + 3] = maxY
  }
}

/** A binary min-heap of nodes by `bound`. */
class NodeHeap {
  private a: Node[] = []
  get size(): number {
    return this.a.length
  }
  push(n: Node): void {
    const a = this.a
    a.push(n)
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (a[p].bound <= n.bound) break
      a[i] = a[p]
      i = p
    }
    a[i] = n
  }
  pop(): Node {
    const a = this.a
    const top = a[0]
    const last = a.pop()!
    if (a.length) {
      let i = 0
      const half = a.length >> 1
      while (i < half) {
        let c = 2 * i + 1
        if (c + 1 < a.length && a[c + 1].bound < a[c].bound) c++
        if (a[c].bound >= last.bound) break
        a[i] = a[c]
        i = c
      }
      a[i] = last
    }
    return top
  }
}

/**
 * Pushes the two halves of an inner node split at its median item `m` (the median itself is a
 * point the caller handles) whose `bound(box)` of their tight box is at most `limit`; empty
 * halves are skipped.
 */
function pushHalves(
  heap: NodeHeap,
  n: Node,
  boxes: KdBoxes,
  m: number,
  bound: (minX: number, minY: number, maxX: number, maxY: number) => number,
  limit: number,
): void {
  const b = boxes.b
  if (m - 1 >= n.left) {
    const k = 2 * n.k
    const d = bound(b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3])
    if (d <= limit) heap.push({ left: n.left, right: m - 1, k, bound: d })
  }
  if (n.right >= m + 1) {
    const k = 2 * n.k + 1
    const d = bound(b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3])
    if (d <= limit) heap.push({ left: m + 1, right: n.right, k, bound: d })
  }
}

/**
 * The branch-and-bound walk of the nearest searches: nodes nearest-first by `bound(box)`, each
 * node's median point and each leaf's points handed to `consider`, halves kept while their bound
 * is within `limit()`; stops when the nearest node left is beyond it (or, once `found()`, at it).
 */
function walkBestFirst(
  kd: KDBush,
  boxes: KdBoxes,
  bound: (minX: number, minY: number, maxX: number, maxY: number) => number,
  consider: (j: number) => void,
  limit: () => number,
  found: () => boolean,
): void {
  const nodeSize = kd.nodeSize
  if (kd.ids.length === 0) return
  const b = boxes.b
  const root: Node = { left: 0, right: kd.ids.length - 1, k: 1, bound: bound(b[4], b[5], b[6], b[7]) }
  if (root.bound > limit()) return
  const heap = new NodeHeap()
  heap.push(root)
  while (heap.size) {
    const n = heap.pop()
    if (n.bound > limit() || (found() && n.bound >= limit())) break
    if (n.right - n.left <= nodeSize) {
      for (let j = n.left; j <= n.right; j++) consider(j)
      continue
    }
    const m = (n.left + n.right) >> 1
    consider(m)
    pushHalves(heap, n, boxes, m, bound, limit())
  }
}

/**
 * The position (in KDBush's sorted arrays: the item is `kd.ids[j]`, its point at `kd.coords[2j]`)
 * of the item nearest to (lon, lat) on the sphere within `maxKm`, among those `accept` allows,
 * or -1. Ties go to the first found.
 */
export function nearestOnSphere(
  kd: KDBush,
  boxes: KdBoxes,
  lon: number,
  lat: number,
  maxKm: number,
  accept?: (i: number) => boolean,
): number {
  const ids = kd.ids
  const c = kd.coords
  let best = -1
  let bestKm = maxKm
  const sphereBound = (minX: number, minY: number, maxX: number, maxY: number) =>
    boxKm(lon, lat, minX, minY, maxX, maxY)
  const consider = (j: number) => {
    const id = ids[j]
    if (accept && !accept(id)) return
    const d = sphereKm(lon, lat, c[2 * j], c[2 * j + 1])
    if (d <= bestKm && (best === -1 || d < bestKm)) {
      best = j
      bestKm = d
    }
  }
  walkBestFirst(
    kd,
    boxes,
    sphereBound,
    consider,
    () => bestKm,
    () => best !== -1,
  )
  return best
}

/** km per degree of latitude on the 6371 km sphere */
const KM_PER_DEG = R_KM * RAD
/** Reach and latitude within which {@link nearestCandidate} may use the flat metric. */
const PLANAR_MAX_KM = 200
const PLANAR_MAX_LAT = 60
/**
 * How much farther than the sphere a flat (equirectangular at the query's latitude) distance
 * can be, out to 200 km below 60°: the x scale is off by about tan(lat)·Δlat/2 (≤ 1.6 %), the
 * flattening itself ≤ 0.05 %. Nodes are kept out to the reach times this, so no point inside the
 * reach is ever dropped.
 */
const PLANAR_REACH_MARGIN = 1.03

/**
 * A point near (lon, lat) within `maxKm`, for callers that settle the exact nearest themselves
 * (PointIndex.nearest re-searches out to this point's ellipsoidal distance, so any point found
 * here is a correct starting bound; a closer one only makes that search smaller).
 *
 * Below 200 km and 60° latitude the walk compares flat squared distances (equirectangular at the
 * query's latitude: two multiplications per point instead of five trigonometric calls), which
 * makes a dense-township reverse lookup about twice as fast; it still never misses a point inside
 * the reach (see PLANAR_REACH_MARGIN). The result, a position in KDBush's sorted arrays as
 * {@link nearestOnSphere}'s, may lie up to 3 % beyond `maxKm`; -1 means no point lies within the
 * reach. Elsewhere it is {@link nearestOnSphere}.
 */
export function nearestCandidate(
  kd: KDBush,
  boxes: KdBoxes,
  lon: number,
  lat: number,
  maxKm: number,
  accept?: (i: number) => boolean,
): number {
  if (maxKm > PLANAR_MAX_KM || Math.abs(lat) > PLANAR_MAX_LAT)
    return nearestOnSphere(kd, boxes, lon, lat, maxKm, accept)
  const ids = kd.ids
  const c = kd.coords
  const ky = KM_PER_DEG
  const kx = KM_PER_DEG * Math.cos(lat * RAD)
  const reach = maxKm * PLANAR_REACH_MARGIN
  let best = -1
  let bestD2 = reach * reach
  // flat squared distance from the query to a box (0 inside)
  const boxD2 = (minX: number, minY: number, maxX: number, maxY: number): number => {
    const dx = lon < minX ? (minX - lon) * kx : lon > maxX ? (lon - maxX) * kx : 0
    const dy = lat < minY ? (minY - lat) * ky : lat > maxY ? (lat - maxY) * ky : 0
    return dx * dx + dy * dy
  }
  const consider = (j: number) => {
    const dx = (c[2 * j] - lon) * kx
    const dy = (c[2 * j + 1] - lat) * ky
    const d2 = dx * dx + dy * dy
    if (d2 < bestD2 || (best === -1 && d2 <= bestD2)) {
      if (accept && !accept(ids[j])) return
      best = j
      bestD2 = d2
    }
  }
  walkBestFirst(
    kd,
    boxes,
    boxD2,
    consider,
    () => bestD2,
    () => best !== -1,
  )
  return best
}

/**
 * The exact nearest point within `radiusM` on the ellipsoid, ties to the lower item number, or
 * null: the settle step of PointIndex.nearest, for radii up to 200 km below 60° latitude
 * (beyond, the caller uses its radius search).
 *
 * An incremental nearest-neighbour walk: tree nodes and points share one heap, keyed by a lower
 * bound of their geodesic distance, and a point's geodesic distance (`exactM`) is measured when it
 * comes off the heap. The walk stops when the smallest bound left exceeds the best distance
 * measured. Against the radius search it replaces, only points in a thin ring around the answer
 * are measured: settling a candidate 90 km away no longer reads every plot of the town at the
 * far edge of a 90 km box (10 ms → tens of µs).
 *
 * The bound of a point or a node's box is the flat distance with `scale`, metres per degree of
 * longitude and of latitude no larger than the ellipsoid's anywhere a path of length `radiusM`
 * from the query can reach (see PointIndex.settle): every path to a point, the geodesic among
 * them, is at least that long (its metres along each axis are at least the scale times its
 * degrees, and the length of a path at least the straight sum of those). Two multiplications per
 * point and no trigonometry; the tighter the scales, the thinner the ring measured.
 */
export function nearestExact(
  kd: KDBush,
  boxes: KdBoxes,
  lon: number,
  lat: number,
  radiusM: number,
  exactM: (lon2: number, lat2: number) => number,
  scale: { lon: number; lat: number },
  accept?: (i: number) => boolean,
): { i: number; distanceM: number; lon: number; lat: number } | null {
  const ids = kd.ids
  const c = kd.coords
  const nodeSize = kd.nodeSize
  if (ids.length === 0) return null
  const kx = scale.lon
  const ky = scale.lat
  let bestI = -1
  let bestJ = -1
  let bestM = radiusM
  const nodeBound = (minX: number, minY: number, maxX: number, maxY: number): number => {
    const dx = lon < minX ? (minX - lon) * kx : lon > maxX ? (lon - maxX) * kx : 0
    const dy = lat < minY ? (minY - lat) * ky : lat > maxY ? (lat - maxY) * ky : 0
    return Math.sqrt(dx * dx + dy * dy)
  }
  const heap = new NodeHeap()
  // a point rides the heap as a node with left = -1 - its tree position
  const pushPoint = (j: number) => {
    const dx = (c[2 * j] - lon) * kx
    const dy = (c[2 * j + 1] - lat) * ky
    const bound = Math.sqrt(dx * dx + dy * dy)
    if (bound <= bestM) heap.push({ left: -1 - j, right: 0, k: 0, bound })
  }
  const b = boxes.b
  const root: Node = { left: 0, right: ids.length - 1, k: 1, bound: nodeBound(b[4], b[5], b[6], b[7]) }
  if (root.bound > bestM) return null
  heap.push(root)
  while (heap.size) {
    const n = heap.pop()
    if (n.bound > bestM) break
    if (n.left < 0) {
      const j = -1 - n.left
      const id = ids[j]
      const d = exactM(c[2 * j], c[2 * j + 1])
      if (d > bestM || (d === bestM && bestI !== -1 && id > bestI)) continue
      if (accept && !accept(id)) continue
      bestI = id
      bestJ = j
      bestM = d
      continue
    }
    if (n.right - n.left <= nodeSize) {
      for (let j = n.left; j <= n.right; j++) pushPoint(j)
      continue
    }
    const m = (n.left + n.right) >> 1
    pushPoint(m)
    pushHalves(heap, n, boxes, m, nodeBound, bestM)
  }
  return bestI === -1 ? null : { i: bestI, distanceM: bestM, lon: c[2 * bestJ], lat: c[2 * bestJ + 1] }
}

/** True when {@link nearestExact} (and the flat candidate walk) may serve this query. */
export function flatWalkApplies(lat: number, radiusKm: number): boolean {
  return radiusKm <= PLANAR_MAX_KM && Math.abs(lat) <= PLANAR_MAX_LAT
}
