/**
 * Polygon intersection for the overlay: Sutherland–Hodgman when either side is a single convex
 * ring (exact and ~100× faster), else the general clipper (clip.ts); and the cut of a large
 * subject to a box before clipping.
 */
import { intersect } from '../clip.js'
import { ON_EDGE_DEG, ringSignedArea2, type MultiPolygon, type Polygon, type Ring } from '../polygon.js'
import { chainContacts, dedupe } from './contacts.js'

/** Positions of a ring without the closing repeat and without consecutive duplicates. */
function openRing(ring: Ring): [number, number][] {
  const out = dedupe(ring)
  while (out.length > 1 && out[0][0] === out[out.length - 1][0] && out[0][1] === out[out.length - 1][1]) out.pop()
  return out
}

/**
 * +1 for a convex counter-clockwise ring, -1 convex clockwise, 0 otherwise; turns within ON_EDGE_DEG of straight are
 * straight.
 */
export function convexSign(ring: Ring): number {
  const p = openRing(ring)
  const n = p.length
  if (n < 3) return 0
  let sign = 0
  let turning = 0
  for (let i = 0; i < n; i++) {
    const a = p[(i + n - 1) % n]
    const b = p[i]
    const c = p[(i + 1) % n]
    const ux = b[0] - a[0]
    const uy = b[1] - a[1]
    const vx = c[0] - b[0]
    const vy = c[1] - b[1]
    const cross = ux * vy - uy * vx
    const dot = ux * vx + uy * vy
    turning += Math.atan2(cross, dot)
    if (Math.abs(cross) <= ON_EDGE_DEG * Math.hypot(ux, uy)) {
      if (dot < 0) return 0
      continue
    }
    const s = cross > 0 ? 1 : -1
    if (sign !== 0 && s !== sign) return 0
    sign = s
  }
  // a star winds more than once with every turn the same way
  return Math.abs(Math.abs(turning) - 2 * Math.PI) < 1e-6 ? sign : 0
}

/** Sutherland–Hodgman: `subject` cut by the convex ring `clip` of winding `sign`; [] when nothing is left. */
function clipRing(subject: Ring, clip: Ring, sign: number): Ring {
  let input = openRing(subject)
  for (let k = 0; k + 1 < clip.length && input.length; k++) {
    const [cx, cy] = clip[k]
    const ex = clip[k + 1][0] - cx
    const ey = clip[k + 1][1] - cy
    if (ex === 0 && ey === 0) continue
    const output: [number, number][] = []
    let prev = input[input.length - 1]
    let sp = sign * (ex * (prev[1] - cy) - ey * (prev[0] - cx))
    for (const cur of input) {
      const sc = sign * (ex * (cur[1] - cy) - ey * (cur[0] - cx))
      if (sc >= 0 !== sp >= 0) {
        const t = sp / (sp - sc)
        output.push([prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])])
      }
      if (sc >= 0) output.push(cur)
      prev = cur
      sp = sc
    }
    input = output
  }
  const out = openRing(input)
  return out.length < 3 ? [] : [...out, out[0]]
}

/**
 * The boxes of every ring of a multipolygon, in order (polygon by polygon, shell first), as
 * minX, minY, maxX, maxY at 4k: what lets {@link clipToBox} pass over the rings it cannot keep.
 */
export function ringBoxes(mp: MultiPolygon): Float64Array {
  const out = new Float64Array(4 * mp.reduce((n, poly) => n + poly.length, 0))
  let o = 0
  for (const poly of mp)
    for (const ring of poly) {
      let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity]
      for (const [x, y] of ring) {
        if (x < minX) minX = x
        if (x > maxX) maxX = x
        if (y < minY) minY = y
        if (y > maxY) maxY = y
      }
      out.set([minX, minY, maxX, maxY], o)
      o += 4
    }
  return out
}

/**
 * `mp` cut to the box (each ring clipped alone, so a hole stays a hole). With `boxes` (its
 * {@link ringBoxes}) a ring whose box misses the box is passed over without being read: its
 * clip is empty, as it lies wholly beyond one side of the box, so the answer is the same, and a
 * polygon with thousands of holes costs the rings near the box, not every ring it has.
 */
export function clipToBox(
  mp: MultiPolygon,
  minX: number,
  minY: number,
  maxX: number,
  maxY: number,
  boxes?: Float64Array,
): MultiPolygon {
  const box: Ring = [
    [minX, minY],
    [maxX, minY],
    [maxX, maxY],
    [minX, maxY],
    [minX, minY],
  ]
  const misses = (k: number) =>
    boxes !== undefined &&
    (boxes[4 * k] > maxX || boxes[4 * k + 2] < minX || boxes[4 * k + 1] > maxY || boxes[4 * k + 3] < minY)
  const out: MultiPolygon = []
  let k = 0
  for (const poly of mp) {
    const first = k
    k += poly.length
    if (misses(first)) continue
    const shell = clipRing(poly[0], box, 1)
    if (!shell.length) continue
    const rings: Polygon = [shell]
    for (let h = 1; h < poly.length; h++) {
      if (misses(first + h)) continue
      const hole = clipRing(poly[h], box, 1)
      if (hole.length) rings.push(hole)
    }
    out.push(rings)
  }
  return out
}

/**
 * `subject` ∩ the single convex ring of `clip`, or null when the shortcut does not apply (holes, not convex, a
 * disconnected result).
 */
function convexClip(subject: MultiPolygon, clip: MultiPolygon): MultiPolygon | null {
  if (clip.length !== 1 || clip[0].length !== 1 || subject.some((p) => p.length !== 1)) return null
  const sign = convexSign(clip[0][0])
  if (sign === 0) return null
  const out: MultiPolygon = []
  for (const poly of subject) {
    const ring = clipRing(poly[0], clip[0][0], sign)
    if (!ring.length) continue
    // a disconnected result comes back as one ring joined along the clip's edges: polyclip sorts it out
    if (chainContacts(ring, true, 1).length) return null
    out.push([ringSignedArea2(ring) < 0 ? ring.reverse() : ring])
  }
  return out
}

export function intersectPolygons(a: MultiPolygon, b: MultiPolygon): MultiPolygon {
  return convexClip(a, b) ?? convexClip(b, a) ?? intersect(a, b)
}
