/**
 * Edge sets: the segments of lines or rings flattened into one array, optionally indexed
 * (Flatbush), with the box search, the local metric frame and the point location the overlay
 * runs on.
 */
import Flatbush from 'flatbush'
import { metresPerDegree } from '../geodesic.js'
import type { BBox } from '../polygon.js'
import { EDGE_TOL_M } from './tolerance.js'

export const PART_START = 1
export const PART_END = 2

/** Segments of lines or rings, zero-length ones dropped; `index` is a Flatbush over them when prepared. */
export interface EdgeSet {
  /** x0, y0, x1, y1 of segment i at 4i (degrees). */
  c: Float64Array
  /** PART_START / PART_END: the segment begins or ends its line (lines only). */
  flags: Uint8Array
  n: number
  bbox: BBox
  index: Flatbush | null
}

export function buildEdges(chains: [number, number][][], close: boolean, indexed: boolean): EdgeSet {
  let cap = 0
  for (const ch of chains) cap += ch.length
  const c = new Float64Array(4 * cap)
  const flags = new Uint8Array(cap)
  let n = 0
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (const ch of chains) {
    const m = ch.length
    if (m < 2) continue
    // an unclosed ring is read as closed
    const open = close && (ch[0][0] !== ch[m - 1][0] || ch[0][1] !== ch[m - 1][1])
    const first = n
    for (let i = 0, last = open ? m : m - 1; i < last; i++) {
      const p = ch[i]
      const q = ch[i + 1 === m ? 0 : i + 1]
      if (p[0] === q[0] && p[1] === q[1]) continue
      const o = 4 * n
      c[o] = p[0]
      c[o + 1] = p[1]
      c[o + 2] = q[0]
      c[o + 3] = q[1]
      if (Math.min(p[0], q[0]) < minX) minX = Math.min(p[0], q[0])
      if (Math.min(p[1], q[1]) < minY) minY = Math.min(p[1], q[1])
      if (Math.max(p[0], q[0]) > maxX) maxX = Math.max(p[0], q[0])
      if (Math.max(p[1], q[1]) > maxY) maxY = Math.max(p[1], q[1])
      n++
    }
    if (n > first) {
      flags[first] |= PART_START
      flags[n - 1] |= PART_END
    }
  }
  let index: Flatbush | null = null
  if (indexed && n > 0) {
    index = new Flatbush(n)
    for (let i = 0, o = 0; i < n; i++, o += 4)
      index.add(
        Math.min(c[o], c[o + 2]),
        Math.min(c[o + 1], c[o + 3]),
        Math.max(c[o], c[o + 2]),
        Math.max(c[o + 1], c[o + 3]),
      )
    index.finish()
  }
  return { c, flags, n, bbox: { minX, minY, maxX, maxY }, index }
}

export const byNumber = (p: number, q: number) => p - q

/** Segments whose box meets the given box, in ascending order (so plain and prepared inputs sum alike). */
export function searchEdges(
  e: EdgeSet,
  minX: number,
  minY: number,
  maxX: number,
  maxY: number,
  scratch: number[],
): number[] {
  if (e.index) return e.index.search(minX, minY, maxX, maxY).sort(byNumber)
  scratch.length = 0
  const c = e.c
  for (let i = 0, o = 0; i < e.n; i++, o += 4) {
    if (
      (c[o] < minX && c[o + 2] < minX) ||
      (c[o] > maxX && c[o + 2] > maxX) ||
      (c[o + 1] < minY && c[o + 3] < minY) ||
      (c[o + 1] > maxY && c[o + 3] > maxY)
    )
      continue
    scratch.push(i)
  }
  return scratch
}

/** Metres per degree at the subject's latitude and the tolerance in degrees on each axis. */
export interface Frame {
  kx: number
  ky: number
  tx: number
  ty: number
  tol2: number
}

export function frameAt(box: BBox): Frame {
  const k = metresPerDegree((box.minY + box.maxY) / 2)
  return { kx: k.lon, ky: k.lat, tx: EDGE_TOL_M / k.lon, ty: EDGE_TOL_M / k.lat, tol2: EDGE_TOL_M * EDGE_TOL_M }
}

/** Squared distance in m² from (px, py) to segment a-b, all in degrees. */
export function segDist2(
  px: number,
  py: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  kx: number,
  ky: number,
): number {
  const ux = (bx - ax) * kx
  const uy = (by - ay) * ky
  const wx = (px - ax) * kx
  const wy = (py - ay) * ky
  const l2 = ux * ux + uy * uy
  let t = l2 > 0 ? (wx * ux + wy * uy) / l2 : 0
  t = t < 0 ? 0 : t > 1 ? 1 : t
  const ex = wx - t * ux
  const ey = wy - t * uy
  return ex * ex + ey * ey
}

/** -1 outside, 0 within the tolerance of the boundary, 1 inside (even-odd over all rings). */
export function locate(r: EdgeSet, x: number, y: number, fr: Frame): -1 | 0 | 1 {
  const c = r.c
  // prepared: only edges near the point or crossing the ray to its east can matter
  const hits = r.index ? r.index.search(x - fr.tx, y - fr.ty, r.bbox.maxX, y + fr.ty) : null
  const m = hits ? hits.length : r.n
  let inside = false
  for (let k = 0; k < m; k++) {
    const o = 4 * (hits ? hits[k] : k)
    const ax = c[o]
    const ay = c[o + 1]
    const bx = c[o + 2]
    const by = c[o + 3]
    if (
      x >= Math.min(ax, bx) - fr.tx &&
      x <= Math.max(ax, bx) + fr.tx &&
      y >= Math.min(ay, by) - fr.ty &&
      y <= Math.max(ay, by) + fr.ty &&
      segDist2(x, y, ax, ay, bx, by, fr.kx, fr.ky) <= fr.tol2
    )
      return 0
    if (ay > y !== by > y && x < ax + ((y - ay) * (bx - ax)) / (by - ay)) inside = !inside
  }
  return inside ? 1 : -1
}
