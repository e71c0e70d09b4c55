/**
 * Features into tile space for the MVT encoder (encode.ts has the whole pipeline): the reused
 * flat buffers and the tile's context, then the stages prefilter, project, clip, simplify and
 * round, one section each. Module-level scratch buffers: one tile is encoded at a time per thread.
 */
import { latToWorldY, worldXToLon, worldYToLat } from '../tiles.js'

// ---------------------------------------------------------------------------------------------
// context and scratch buffers

/** Growable flat list of (x, y) pairs; `n` counts points. Reused across features and calls. */
export class Flat {
  d = new Float64Array(1024)
  n = 0
  push(x: number, y: number): void {
    if (2 * this.n + 2 > this.d.length) {
      const g = new Float64Array(this.d.length * 2)
      g.set(this.d)
      this.d = g
    }
    this.d[2 * this.n] = x
    this.d[2 * this.n + 1] = y
    this.n++
  }
}

/**
 * Projection and Sutherland–Hodgman ping-pong between bufA and bufB; `rounded` holds the integer output of one ring or
 * part.
 */
export const bufA = new Flat()
export const bufB = new Flat()
export const rounded = new Flat()
let keep = new Uint8Array(512)
/** Douglas–Peucker's pending (first, last) index pairs: at most one pair per point */
let stack = new Int32Array(1024)
export const partStarts: number[] = []

export interface Context {
  /** tile pixels per world unit, and the tile's origin in world pixels */
  scale: number
  originX: number
  originY: number
  /** clip box in tile pixels: [lo, hi] on both axes */
  lo: number
  hi: number
  /** buffered tile in lon/lat, for the prefilter */
  west: number
  east: number
  south: number
  north: number
  sqTol: number
}

export function createContext(
  z: number,
  x: number,
  y: number,
  extent: number,
  buffer: number,
  simplifyPx: number,
): Context {
  const scale = 2 ** z * extent
  const originX = x * extent
  const originY = y * extent
  return {
    scale,
    originX,
    originY,
    lo: -buffer,
    hi: extent + buffer,
    west: worldXToLon((originX - buffer) / scale),
    east: worldXToLon((originX + extent + buffer) / scale),
    north: worldYToLat((originY - buffer) / scale),
    south: worldYToLat((originY + extent + buffer) / scale),
    sqTol: simplifyPx * simplifyPx,
  }
}

// ---------------------------------------------------------------------------------------------
// prefilter

export const MISS = 0
const PARTIAL = 1
export const INSIDE = 2

/** How a run of lon/lat positions' bbox lies against the buffered tile. */
export function relate(ctx: Context, pts: [number, number][]): 0 | 1 | 2 {
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i]
    if (p[0] < minX) minX = p[0]
    if (p[0] > maxX) maxX = p[0]
    if (p[1] < minY) minY = p[1]
    if (p[1] > maxY) maxY = p[1]
  }
  if (maxX < ctx.west || minX > ctx.east || maxY < ctx.south || minY > ctx.north) return MISS
  if (minX >= ctx.west && maxX <= ctx.east && minY >= ctx.south && maxY <= ctx.north) return INSIDE
  return PARTIAL
}

// ---------------------------------------------------------------------------------------------
// project

/** Projects positions into `out` as tile pixels; for rings, drops the closing repeat of the first. */
export function project(ctx: Context, pts: [number, number][], ring: boolean, out: Flat): void {
  out.n = 0
  let n = pts.length
  if (ring && n > 1 && pts[0][0] === pts[n - 1][0] && pts[0][1] === pts[n - 1][1]) n--
  const { scale, originX, originY } = ctx
  for (let i = 0; i < n; i++) {
    const p = pts[i]
    out.push((p[0] / 360 + 0.5) * scale - originX, latToWorldY(p[1]) * scale - originY)
  }
}

// ---------------------------------------------------------------------------------------------
// clip
//
//          lo            hi
//     lo   +-------------+      polygons: each ring is cut by the four half-planes in turn
//          |  ######     |      (Sutherland–Hodgman), the kept side of each edge being the
//          |  # tile #   |      box side; lines: each segment's parameter range [t0, t1]
//          |  ######     |      inside the box (Liang–Barsky), a gap starting a new part
//     hi   +-------------+

/** Clips the ring in `src` (open: last point joins the first) to the box; returns the buffer holding the result. */
export function clipRing(ctx: Context, src: Flat, tmp: Flat): Flat {
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  const d = src.d
  for (let i = 0; i < 2 * src.n; i += 2) {
    if (d[i] < minX) minX = d[i]
    if (d[i] > maxX) maxX = d[i]
    if (d[i + 1] < minY) minY = d[i + 1]
    if (d[i + 1] > maxY) maxY = d[i + 1]
  }
  const { lo, hi } = ctx
  if (maxX < lo || minX > hi || maxY < lo || minY > hi) {
    src.n = 0
    return src
  }
  // only the edges the ring's bbox crosses need a pass
  let a = src
  let b = tmp
  if (minX < lo) [a, b] = [clipEdge(a, b, 0, lo, true), a]
  if (maxX > hi) [a, b] = [clipEdge(a, b, 0, hi, false), a]
  if (minY < lo) [a, b] = [clipEdge(a, b, 1, lo, true), a]
  if (maxY > hi) [a, b] = [clipEdge(a, b, 1, hi, false), a]
  return a
}

/** One Sutherland–Hodgman pass: keep the side of axis = bound where the coordinate is >= (keepAbove) or <= bound. */
function clipEdge(src: Flat, dst: Flat, axis: 0 | 1, bound: number, keepAbove: boolean): Flat {
  dst.n = 0
  const n = src.n
  if (n === 0) return dst
  const d = src.d
  let px = d[2 * n - 2]
  let py = d[2 * n - 1]
  let pv = axis === 0 ? px : py
  let pIn = keepAbove ? pv >= bound : pv <= bound
  for (let i = 0; i < n; i++) {
    const cx = d[2 * i]
    const cy = d[2 * i + 1]
    const cv = axis === 0 ? cx : cy
    const cIn = keepAbove ? cv >= bound : cv <= bound
    if (cIn !== pIn) {
      // the edge crosses the boundary: add the crossing, exactly on it
      const t = (bound - pv) / (cv - pv)
      if (axis === 0) dst.push(bound, py + t * (cy - py))
      else dst.push(px + t * (cx - px), bound)
    }
    if (cIn) dst.push(cx, cy)
    px = cx
    py = cy
    pv = cv
    pIn = cIn
  }
  return dst
}

/** Clips the open polyline in `src` to the box into `dst`; `partStarts` gets each part's first point index. */
export function clipLine(ctx: Context, src: Flat, dst: Flat): void {
  dst.n = 0
  partStarts.length = 0
  const { lo, hi } = ctx
  const d = src.d
  let open = false
  for (let i = 0; i + 1 < src.n; i++) {
    const x0 = d[2 * i]
    const y0 = d[2 * i + 1]
    const dx = d[2 * i + 2] - x0
    const dy = d[2 * i + 3] - y0
    let t0 = 0
    let t1 = 1
    let ok = true
    // the four half-planes as p·t <= q
    for (let e = 0; e < 4 && ok; e++) {
      const p = e === 0 ? -dx : e === 1 ? dx : e === 2 ? -dy : dy
      const q = e === 0 ? x0 - lo : e === 1 ? hi - x0 : e === 2 ? y0 - lo : hi - y0
      if (p === 0) {
        if (q < 0) ok = false
      } else {
        const r = q / p
        if (p < 0) {
          if (r > t1) ok = false
          else if (r > t0) t0 = r
        } else if (r < t0) ok = false
        else if (r < t1) t1 = r
      }
    }
    if (!ok) {
      open = false
      continue
    }
    if (!open || t0 > 0) {
      partStarts.push(dst.n)
      dst.push(t0 === 0 ? x0 : x0 + t0 * dx, t0 === 0 ? y0 : y0 + t0 * dy)
    }
    dst.push(t1 === 1 ? x0 + dx : x0 + t1 * dx, t1 === 1 ? y0 + dy : y0 + t1 * dy)
    open = t1 === 1
  }
}

// ---------------------------------------------------------------------------------------------
// simplify

/** Douglas–Peucker over points first..last of `f` (inclusive): sets keep[i] for the points kept. */
export function simplify(f: Flat, first: number, last: number, sqTol: number): void {
  if (keep.length < f.n) keep = new Uint8Array(Math.max(f.n, keep.length * 2))
  if (sqTol === 0) {
    keep.fill(1, first, last + 1)
    return
  }
  keep.fill(0, first, last + 1)
  keep[first] = keep[last] = 1
  const d = f.d
  if (stack.length < 2 * f.n) stack = new Int32Array(Math.max(2 * f.n, 2 * stack.length))
  let top = 0
  stack[top++] = first
  stack[top++] = last
  while (top > 0) {
    const e = stack[--top]
    const s = stack[--top]
    let maxD = sqTol
    let idx = -1
    const ax = d[2 * s]
    const ay = d[2 * s + 1]
    const bx = d[2 * e]
    const by = d[2 * e + 1]
    for (let i = s + 1; i < e; i++) {
      const dist = sqSegDist(d[2 * i], d[2 * i + 1], ax, ay, bx, by)
      if (dist > maxD) {
        maxD = dist
        idx = i
      }
    }
    if (idx >= 0) {
      keep[idx] = 1
      if (idx - s > 1) {
        stack[top++] = s
        stack[top++] = idx
      }
      if (e - idx > 1) {
        stack[top++] = idx
        stack[top++] = e
      }
    }
  }
}

/** Squared distance from (px, py) to segment a-b (to a itself when a = b, as for a closed ring's ends). */
function sqSegDist(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  let x = ax
  let y = ay
  const dx = bx - ax
  const dy = by - ay
  if (dx !== 0 || dy !== 0) {
    const t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)
    if (t > 1) {
      x = bx
      y = by
    } else if (t > 0) {
      x += dx * t
      y += dy * t
    }
  }
  return (px - x) * (px - x) + (py - y) * (py - y)
}

// ---------------------------------------------------------------------------------------------
// round, wind, emit

/** Rounds the kept points of f[first..last] into `rounded`, skipping consecutive duplicates. */
export function roundKept(f: Flat, first: number, last: number): void {
  rounded.n = 0
  const d = f.d
  let lx = NaN
  let ly = NaN
  for (let i = first; i <= last; i++) {
    if (!keep[i]) continue
    const x = Math.round(d[2 * i])
    const y = Math.round(d[2 * i + 1])
    if (x === lx && y === ly) continue
    rounded.push(x, y)
    lx = x
    ly = y
  }
}
