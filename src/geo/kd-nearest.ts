/**
 * Nearest point on a sphere over a KDBush tree, branch and bound.
 *
 * Why not geokdbush's `around`: it starts from a whole-Earth box and never prunes a tree node
 * by `maxDistance` (only popped points are compared with it), so a query far from every point
 * (a South African point against the Botswana layer, 100 km reach) expands the tree until it
 * pops a point about 1000 km away: about 1.3 ms at national scale. Here the walk starts from the
 * data's own bounding box and drops every node whose lower bound exceeds the reach or the best
 * point found so far, which makes the hopeless case a few node visits.
 *
 * Distances are great-circle on a 6371 km sphere (within 0.7 % of the ellipsoid); callers that
 * need the ellipsoid re-measure the answer (see PointIndex.nearest).
 */
import type KDBush from 'kdbush'

const R_KM = 6371
const RAD = Math.PI / 180

/** Great-circle distance in km. */
export function sphereKm(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const s1 = Math.sin(((lat2 - lat1) * RAD) / 2)
  const s2 = Math.sin(((lon2 - lon1) * RAD) / 2)
  const h = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2
  return 2 * R_KM * Math.asin(Math.min(1, Math.sqrt(h)))
}

/**
 * Smallest great-circle distance (km) from a point to a lon/lat box (no antimeridian wrap).
 * Inside the longitude band the nearest point is straight north or south; outside it, it lies on
 * the nearer edge meridian, at the latitude where the great circle from the point meets that
 * meridian at a right angle, clamped to the box.
 */
export function boxKm(lon: number, lat: number, minX: number, minY: number, maxX: number, maxY: number): number {
  if (lon >= minX && lon <= maxX) {
    if (lat < minY) return (minY - lat) * RAD * R_KM
    if (lat > maxY) return (lat - maxY) * RAD * R_KM
    return 0
  }
  const edge = lon < minX ? minX : maxX
  const dLon = Math.abs(edge - lon) * RAD
  if (dLon >= Math.PI / 2) {
    // the far hemisphere: the nearest edge point is the box corner nearer the equator side of the point
    return Math.min(sphereKm(lon, lat, edge, minY), sphereKm(lon, lat, edge, maxY))
  }
  let foot = Math.atan(Math.tan(lat * RAD) / Math.cos(dLon)) / RAD
  if (foot < minY) foot = minY
  else if (foot > maxY) foot = maxY
  return sphereKm(lon, lat, edge, foot)
}

interface Node {
  left: number
  right: number
  axis: number
  minX: number
  minY: number
  maxX: number
  maxY: number
  bound: number
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
 * point the caller handles) whose `bound(box)` is at most `limit`; empty halves are skipped.
 */
function pushHalves(heap: NodeHeap, n: Node, c: ArrayLike<number>, m: number, bound: (minX: number, minY: number, maxX: number, maxY: number) => number, limit: number): void {
  const mx = c[2 * m]
  const my = c[2 * m + 1]
  const next = 1 - n.axis
  if (m - 1 >= n.left) {
    const maxX = n.axis === 0 ? mx : n.maxX
    const maxY = n.axis === 1 ? my : n.maxY
    const b = bound(n.minX, n.minY, maxX, maxY)
    if (b <= limit) heap.push({ left: n.left, right: m - 1, axis: next, minX: n.minX, minY: n.minY, maxX, maxY, bound: b })
  }
  if (n.right >= m + 1) {
    const minX = n.axis === 0 ? mx : n.minX
    const minY = n.axis === 1 ? my : n.minY
    const b = bound(minX, minY, n.maxX, n.maxY)
    if (b <= limit) heap.push({ left: m + 1, right: n.right, axis: next, minX, minY, maxX: n.maxX, maxY: n.maxY, bound: b })
  }
}

/**
 * The branch-and-bound walk of the nearest searches: nodes nearest-first by `bound(box)`, each
 * node's median point and each leaf's points handed to `consider`, halves kept while their bound
 * is within `limit()`; stops when the nearest node left is beyond it (or, once `found()`, at it).
 */
function walkBestFirst(
  kd: KDBush,
  box: readonly [number, number, number, number],
  bound: (minX: number, minY: number, maxX: number, maxY: number) => number,
  consider: (j: number) => void,
  limit: () => number,
  found: () => boolean,
): void {
  const c = kd.coords
  const nodeSize = kd.nodeSize
  const root: Node = { left: 0, right: kd.ids.length - 1, axis: 0, minX: box[0], minY: box[1], maxX: box[2], maxY: box[3], bound: 0 }
  root.bound = bound(root.minX, root.minY, root.maxX, root.maxY)
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
    pushHalves(heap, n, c, m, bound, limit())
  }
}

/** Bounding box of every point of a KDBush tree: [minX, minY, maxX, maxY]. */
export function treeBox(kd: KDBush): [number, number, number, number] {
  const c = kd.coords
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (let j = 0; j < kd.numItems; j++) {
    const x = c[2 * j]
    const y = c[2 * j + 1]
    if (x < minX) minX = x
    if (x > maxX) maxX = x
    if (y < minY) minY = y
    if (y > maxY) maxY = y
  }
  return [minX, minY, maxX, maxY]
}

/**
 * The item (insertion number) nearest to (lon, lat) on the sphere within `maxKm`, among those
 * `accept` allows, or -1. Ties go to the first found.
 */
export function nearestOnSphere(
  kd: KDBush,
  box: readonly [number, number, number, number],
  lon: number,
  lat: number,
  maxKm: number,
  accept?: (i: number) => boolean,
): number {
  const ids = kd.ids
  const c = kd.coords
  let best = -1
  let bestKm = maxKm
  const sphereBound = (minX: number, minY: number, maxX: number, maxY: number) => boxKm(lon, lat, minX, minY, maxX, maxY)
  const consider = (j: number) => {
    const id = ids[j]
    if (accept && !accept(id)) return
    const d = sphereKm(lon, lat, c[2 * j], c[2 * j + 1])
    if (d <= bestKm && (best === -1 || d < bestKm)) {
      best = id
      bestKm = d
    }
  }
  walkBestFirst(kd, box, sphereBound, consider, () => bestKm, () => best !== -1)
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
 * the reach (see PLANAR_REACH_MARGIN). The result may lie up to 3 % beyond `maxKm`; -1 means no
 * point lies within the reach. Elsewhere it is {@link nearestOnSphere}.
 */
export function nearestCandidate(
  kd: KDBush,
  box: readonly [number, number, number, number],
  lon: number,
  lat: number,
  maxKm: number,
  accept?: (i: number) => boolean,
): number {
  if (maxKm > PLANAR_MAX_KM || Math.abs(lat) > PLANAR_MAX_LAT) return nearestOnSphere(kd, box, lon, lat, maxKm, accept)
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
      const id = ids[j]
      if (accept && !accept(id)) return
      best = id
      bestD2 = d2
    }
  }
  walkBestFirst(kd, box, boxD2, consider, () => bestD2, () => best !== -1)
  return best
}

/**
 * The exact nearest point within `radiusM` on the ellipsoid, ties to the lower item number, or
 * null: the settle step of PointIndex.nearest, for radii up to 200 km below 60° latitude
 * (beyond, the caller uses its radius search).
 *
 * An incremental nearest-neighbour walk: tree nodes and points share one heap, keyed by a lower
 * bound of their geodesic distance (a node: its flat box distance / 1.03, see
 * PLANAR_REACH_MARGIN; a point: its local ellipsoidal estimate less that estimate's error), and
 * a point's geodesic distance is measured when it comes off the heap. The walk stops when the
 * smallest bound left exceeds the best distance measured. Against the radius search it replaces,
 * only points in a thin ring around the answer are measured: settling a candidate 90 km away no
 * longer reads every plot of the town at the far edge of a 90 km box (10 ms → tens of µs).
 */
export function nearestExact(
  kd: KDBush,
  box: readonly [number, number, number, number],
  lon: number,
  lat: number,
  radiusM: number,
  exactM: (lon2: number, lat2: number) => number,
  approxM: (lon2: number, lat2: number) => number,
  approxRelError: number,
  accept?: (i: number) => boolean,
): { i: number; distanceM: number } | null {
  const ids = kd.ids
  const c = kd.coords
  const nodeSize = kd.nodeSize
  const ky = KM_PER_DEG * 1000
  const kx = ky * Math.cos(lat * RAD)
  const nodeShrink = 1 / PLANAR_REACH_MARGIN
  const pointShrink = 1 / (1 + 2 * approxRelError)
  let bestI = -1
  let bestM = radiusM
  const nodeBound = (minX: number, minY: number, maxX: number, maxY: number): number => {
    const dx = lon < minX ? (minX - lon) * kx : lon > maxX ? (lon - maxX) * kx : 0
    const dy = lat < minY ? (minY - lat) * ky : lat > maxY ? (lat - maxY) * ky : 0
    return Math.sqrt(dx * dx + dy * dy) * nodeShrink
  }
  const heap = new NodeHeap()
  // a point rides the heap as a node with left = -1 - its tree position
  const pushPoint = (j: number) => {
    const bound = approxM(c[2 * j], c[2 * j + 1]) * pointShrink
    if (bound <= bestM) heap.push({ left: -1 - j, right: 0, axis: 0, minX: 0, minY: 0, maxX: 0, maxY: 0, bound })
  }
  const root: Node = { left: 0, right: ids.length - 1, axis: 0, minX: box[0], minY: box[1], maxX: box[2], maxY: box[3], bound: 0 }
  root.bound = nodeBound(root.minX, root.minY, root.maxX, root.maxY)
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
      bestM = d
      continue
    }
    if (n.right - n.left <= nodeSize) {
      for (let j = n.left; j <= n.right; j++) pushPoint(j)
      continue
    }
    const m = (n.left + n.right) >> 1
    pushPoint(m)
    pushHalves(heap, n, c, m, nodeBound, bestM)
  }
  return bestI === -1 ? null : { i: bestI, distanceM: bestM }
}

/** True when {@link nearestExact} (and the flat candidate walk) may serve this query. */
export function flatWalkApplies(lat: number, radiusKm: number): boolean {
  return radiusKm <= PLANAR_MAX_KM && Math.abs(lat) <= PLANAR_MAX_LAT
}
