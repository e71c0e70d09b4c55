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
  const nodeSize = kd.nodeSize
  let best = -1
  let bestKm = maxKm
  const heap = new NodeHeap()
  const root: Node = { left: 0, right: ids.length - 1, axis: 0, minX: box[0], minY: box[1], maxX: box[2], maxY: box[3], bound: 0 }
  root.bound = boxKm(lon, lat, root.minX, root.minY, root.maxX, root.maxY)
  if (root.bound > bestKm) return -1
  heap.push(root)
  const consider = (j: number) => {
    const id = ids[j]
    if (accept && !accept(id)) return
    const d = sphereKm(lon, lat, c[2 * j], c[2 * j + 1])
    if (d <= bestKm && (best === -1 || d < bestKm)) {
      best = id
      bestKm = d
    }
  }
  while (heap.size) {
    const n = heap.pop()
    if (n.bound > bestKm || (best !== -1 && n.bound >= bestKm)) break
    if (n.right - n.left <= nodeSize) {
      for (let j = n.left; j <= n.right; j++) consider(j)
      continue
    }
    const m = (n.left + n.right) >> 1
    consider(m)
    const mx = c[2 * m]
    const my = c[2 * m + 1]
    const next = 1 - n.axis
    const lo: Node = { left: n.left, right: m - 1, axis: next, minX: n.minX, minY: n.minY, maxX: n.axis === 0 ? mx : n.maxX, maxY: n.axis === 1 ? my : n.maxY, bound: 0 }
    const hi: Node = { left: m + 1, right: n.right, axis: next, minX: n.axis === 0 ? mx : n.minX, minY: n.axis === 1 ? my : n.minY, maxX: n.maxX, maxY: n.maxY, bound: 0 }
    for (const child of [lo, hi]) {
      if (child.left > child.right) continue
      child.bound = boxKm(lon, lat, child.minX, child.minY, child.maxX, child.maxY)
      if (child.bound <= bestKm) heap.push(child)
    }
  }
  return best
}
