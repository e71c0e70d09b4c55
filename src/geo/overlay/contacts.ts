/**
 * Where a chain of positions meets itself, or one ring meets another (within ON_EDGE_DEG): the
 * segment tests behind geometry validation, the convex clip's and the buffer's checks.
 */
import Flatbush from 'flatbush'
import { ON_EDGE_DEG, type Ring } from '../polygon.js'
import { byNumber } from './edges.js'

/** Positions without consecutive duplicates (the same position objects). */
export function dedupe(pts: [number, number][]): [number, number][] {
  const out: [number, number][] = []
  for (const p of pts) {
    const last = out[out.length - 1]
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p)
  }
  return out
}

/** -1, 0 or 1: side of p from the line a-b, 0 within ON_EDGE_DEG of it. */
function side(ax: number, ay: number, bx: number, by: number, px: number, py: number): number {
  const cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
  return Math.abs(cross) <= ON_EDGE_DEG * Math.hypot(bx - ax, by - ay) ? 0 : Math.sign(cross)
}

/** p (known to be on the line a-b) within the segment's box. */
function inSpan(ax: number, ay: number, bx: number, by: number, px: number, py: number): boolean {
  return (
    px >= Math.min(ax, bx) - ON_EDGE_DEG &&
    px <= Math.max(ax, bx) + ON_EDGE_DEG &&
    py >= Math.min(ay, by) - ON_EDGE_DEG &&
    py <= Math.max(ay, by) + ON_EDGE_DEG
  )
}

/** Where segments a-b and c-d cross or touch, or null. */
function segmentsMeet(a: number[], b: number[], c: number[], d: number[]): [number, number] | null {
  const s1 = side(a[0], a[1], b[0], b[1], c[0], c[1])
  const s2 = side(a[0], a[1], b[0], b[1], d[0], d[1])
  const s3 = side(c[0], c[1], d[0], d[1], a[0], a[1])
  const s4 = side(c[0], c[1], d[0], d[1], b[0], b[1])
  if (s1 * s2 < 0 && s3 * s4 < 0) {
    const d1 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    const d2 = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0])
    const t = d1 / (d1 - d2)
    return [c[0] + t * (d[0] - c[0]), c[1] + t * (d[1] - c[1])]
  }
  if (s1 === 0 && inSpan(a[0], a[1], b[0], b[1], c[0], c[1])) return [c[0], c[1]]
  if (s2 === 0 && inSpan(a[0], a[1], b[0], b[1], d[0], d[1])) return [d[0], d[1]]
  if (s3 === 0 && inSpan(c[0], c[1], d[0], d[1], a[0], a[1])) return [a[0], a[1]]
  if (s4 === 0 && inSpan(c[0], c[1], d[0], d[1], b[0], b[1])) return [b[0], b[1]]
  return null
}

/**
 * Calls visit(i, j) for i < j for every pair of segments whose boxes meet (Flatbush beyond a few dozen); visit returns
 * true to stop.
 */
function segmentPairs(
  seg: (i: number) => [number[], number[]],
  n: number,
  visit: (i: number, j: number) => boolean,
): void {
  if (n <= 32) {
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (visit(i, j)) return
    return
  }
  const index = new Flatbush(n)
  for (let i = 0; i < n; i++) {
    const [p, q] = seg(i)
    index.add(Math.min(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[0], q[0]), Math.max(p[1], q[1]))
  }
  index.finish()
  for (let i = 0; i < n; i++) {
    const [p, q] = seg(i)
    const hits = index
      .search(Math.min(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[0], q[0]), Math.max(p[1], q[1]))
      .sort(byNumber)
    for (const j of hits) if (j > i && visit(i, j)) return
  }
}

/**
 * Places (up to `limit`, distinct) where a chain of positions meets itself: non-adjacent
 * segments crossing or touching, or adjacent ones doubling back. Consecutive duplicates are
 * ignored; `closed` reads it as a ring.
 */
export function chainContacts(pts: [number, number][], closed: boolean, limit: number): [number, number][] {
  const v = dedupe(pts)
  if (closed && v.length > 1 && v[0][0] === v[v.length - 1][0] && v[0][1] === v[v.length - 1][1]) v.pop()
  const n = closed ? v.length : v.length - 1
  if (n < 2) return []
  // an open chain that returns to its start is a loop too: first and last segments are neighbours
  const looped = closed || (v[0][0] === v[v.length - 1][0] && v[0][1] === v[v.length - 1][1])
  const seg = (i: number): [number[], number[]] => [v[i], v[(i + 1) % v.length]]
  const found: [number, number][] = []
  const add = (p: [number, number]) => {
    if (!found.some((f) => Math.abs(f[0] - p[0]) <= ON_EDGE_DEG && Math.abs(f[1] - p[1]) <= ON_EDGE_DEG)) found.push(p)
    return found.length >= limit
  }
  segmentPairs(seg, n, (i, j) => {
    const [a, b] = seg(i)
    const [c, d] = seg(j)
    const next = j === i + 1
    const wrap = looped && i === 0 && j === n - 1
    if (next || wrap) {
      // neighbours share a vertex; they only conflict by doubling back along each other
      const [u, m, w] = next ? [a, b, d] : [b, a, c]
      if (
        side(u[0], u[1], m[0], m[1], w[0], w[1]) === 0 &&
        (u[0] - m[0]) * (w[0] - m[0]) + (u[1] - m[1]) * (w[1] - m[1]) > 0
      )
        return add([m[0], m[1]])
      return false
    }
    const hit = segmentsMeet(a, b, c, d)
    return hit ? add(hit) : false
  })
  return found
}

/** Places where segments of ring a meet segments of ring b, up to `limit`. */
export function ringContacts(a: Ring, b: Ring, limit: number): [number, number][] {
  const found: [number, number][] = []
  const na = a.length - 1
  const seg = (i: number): [number[], number[]] => (i < na ? [a[i], a[i + 1]] : [b[i - na], b[i - na + 1]])
  segmentPairs(seg, na + b.length - 1, (i, j) => {
    if (i >= na || j < na) return false
    const [p, q] = seg(i)
    const [r, s] = seg(j)
    const hit = segmentsMeet(p, q, r, s)
    if (hit && !found.some((f) => f[0] === hit[0] && f[1] === hit[1])) found.push(hit)
    return found.length >= limit
  })
  return found
}

/** Where two rings of a set first meet: ring `a` meets the earlier ring `b` at `at`. */
export interface RingContact {
  a: number
  b: number
  at: [number, number]
}

/**
 * For every pair of the rings that meet (those `use` admits), the place {@link ringContacts}
 * gives first for them (`ringContacts(rings[a], rings[b], 1)`, a > b), ordered by a then b. One
 * index over the segments of every ring (boxes grown by ON_EDGE_DEG, the reach of the contact
 * test), so the cost grows with the segments whose boxes meet, not with the pairs of rings: a
 * polygon with thousands of holes is checked in milliseconds.
 */
export function ringsContacts(rings: readonly Ring[], use: (r: number) => boolean = () => true): RingContact[] {
  const ringOf: number[] = []
  const segOf: number[] = []
  rings.forEach((ring, r) => {
    if (!use(r)) return
    for (let i = 0; i + 1 < ring.length; i++) {
      ringOf.push(r)
      segOf.push(i)
    }
  })
  if (ringOf.length === 0) return []
  const index = new Flatbush(ringOf.length)
  for (let s = 0; s < ringOf.length; s++) {
    const ring = rings[ringOf[s]]
    const p = ring[segOf[s]]
    const q = ring[segOf[s] + 1]
    index.add(Math.min(p[0], q[0]), Math.min(p[1], q[1]), Math.max(p[0], q[0]), Math.max(p[1], q[1]))
  }
  index.finish()
  // per pair of rings, the first meeting segments in ringContacts' order: a's segment, then b's
  const first = new Map<number, { i: number; j: number; at: [number, number] }>()
  const n = rings.length
  for (let s = 0; s < ringOf.length; s++) {
    const a = ringOf[s]
    const i = segOf[s]
    const p = rings[a][i]
    const q = rings[a][i + 1]
    const near = index.search(
      Math.min(p[0], q[0]) - ON_EDGE_DEG,
      Math.min(p[1], q[1]) - ON_EDGE_DEG,
      Math.max(p[0], q[0]) + ON_EDGE_DEG,
      Math.max(p[1], q[1]) + ON_EDGE_DEG,
    )
    for (const t of near) {
      const b = ringOf[t]
      if (b >= a) continue
      const j = segOf[t]
      const key = a * n + b
      const seen = first.get(key)
      if (seen && (seen.i < i || (seen.i === i && seen.j < j))) continue
      const at = segmentsMeet(p, q, rings[b][j], rings[b][j + 1])
      if (at) first.set(key, { i, j, at })
    }
  }
  return [...first.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([key, { at }]) => ({ a: Math.floor(key / n), b: key % n, at }))
}
