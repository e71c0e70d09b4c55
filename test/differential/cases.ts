/**
 * Seeded random cases of the differential tests: every case is made from its own seed, so a
 * failure names the seed that rebuilds it (`rng(seed)` from src/geo/overlay/test-fixtures.ts).
 * Shapes are drawn in a local plane (metres) and stored as the cadastre stores them, rounded to
 * 1e-7°; the oracles read the rounded positions back into the plane.
 */
import { Plane, type PMulti, type PRing, rotatedRect, starRing, type XY } from './plane.js'

export type Rand = () => number

/** A random place in South Africa (lon 17–32, lat −22 to −34.5). */
export const somewhereInSA = (r: Rand) => new Plane(17 + 15 * r(), -22 - 12.5 * r())

/** Log-uniform in [lo, hi]. */
export const logUniform = (r: Rand, lo: number, hi: number) => lo * (hi / lo) ** r()

/**
 * A gentle planar polyline from (0, 0): `n` segments of lengths in [minL, maxL], bends of
 * minBend–maxBend degrees either way, the heading kept within 80° of the first so the line
 * never comes back near itself.
 */
export function gentlePolyline(r: Rand, n: number, minL: number, maxL: number, minBend: number, maxBend: number): XY[] {
  const head0 = 2 * Math.PI * r()
  let head = head0
  const pts: XY[] = [[0, 0]]
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      let bend = ((minBend + (maxBend - minBend) * r()) * Math.PI) / 180
      if (r() < 0.5) bend = -bend
      if (Math.abs(head + bend - head0) > (80 * Math.PI) / 180) bend = -bend
      head += bend
    }
    const len = logUniform(r, minL, maxL)
    const [x, y] = pts[i]
    pts.push([x + len * Math.cos(head), y + len * Math.sin(head)])
  }
  return pts
}

/** The point at fraction t of segment i of a planar polyline, and the segment's unit left normal. */
export function along(pts: XY[], i: number, t: number): { p: XY; n: XY } {
  const [ax, ay] = pts[i]
  const [bx, by] = pts[i + 1]
  const len = Math.hypot(bx - ax, by - ay)
  return { p: [ax + t * (bx - ax), ay + t * (by - ay)], n: [-(by - ay) / len, (bx - ax) / len] }
}

export type ParcelKind = 'rect' | 'rotated' | 'star' | 'holed'
export const PARCEL_KINDS: ParcelKind[] = ['rect', 'rotated', 'star', 'holed']

/**
 * A parcel of the given kind around (cx, cy), at most `size` metres from its centre: a rectangle
 * (axis-aligned or turned), a concave star, or a star with a turned rectangular hole.
 */
export function parcelAround(r: Rand, kind: ParcelKind, cx: number, cy: number, size: number): PRing[] {
  const a = size * (0.7 + 0.7 * r())
  const b = size * (0.7 + 0.7 * r())
  if (kind === 'rect') return [rotatedRect(cx, cy, a, b, 0)]
  if (kind === 'rotated') return [rotatedRect(cx, cy, a, b, Math.PI * r())]
  const shell = starRing(r, cx, cy, 6 + Math.floor(r() * 18), size)
  if (kind === 'star') return [shell]
  // within the star's inner radius (0.6 × size × cos 30°): offset ≤ 0.15, half-diagonal ≤ 0.32
  const off = 0.15 * size * r()
  const dir = 2 * Math.PI * r()
  const hole = rotatedRect(
    cx + off * Math.cos(dir),
    cy + off * Math.sin(dir),
    size * (0.2 + 0.25 * r()),
    size * (0.2 + 0.25 * r()),
    Math.PI * r(),
  )
  return [shell, hole.reverse()]
}

/** A planar polygon as stored (degrees, rounded) and as the oracle reads it back (metres). */
export function stored(plane: Plane, poly: PRing[]): Stored {
  const deg = poly.map((ring) => plane.ring(ring))
  return { deg: [deg], xy: [deg.map((ring) => plane.back(ring))] }
}

/** A polygon as stored ([lon, lat] rounded to 1e-7°, a MultiPolygon of one part) and as read back into the plane. */
export interface Stored {
  deg: XY[][][]
  xy: PMulti
}
