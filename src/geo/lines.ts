/**
 * Small helpers on [lon, lat] polylines (servitude lines, routes): their box, whether they meet a
 * box, and the distance from a point, in the same local projection as polygon.ts.
 */
import { metresPerDegree } from './geodesic.js'
import { pointSegmentM, type BBox } from './polygon.js'

/** One or more lines of `[lon, lat]` positions. */
export type Lines = [number, number][][]

export function linesBox(lines: Lines): BBox {
  let minX = Infinity
  let minY = Infinity
  let maxX = -Infinity
  let maxY = -Infinity
  for (const l of lines)
    for (const [x, y] of l) {
      if (x < minX) minX = x
      if (y < minY) minY = y
      if (x > maxX) maxX = x
      if (y > maxY) maxY = y
    }
  return { minX, minY, maxX, maxY }
}

/** Does segment a-b share a point with the box (closed)? Liang–Barsky clipping. */
export function segmentMeetsBox(ax: number, ay: number, bx: number, by: number, b: BBox): boolean {
  let t0 = 0
  let t1 = 1
  const dx = bx - ax
  const dy = by - ay
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0
    const r = q / p
    if (p < 0) {
      if (r > t1) return false
      if (r > t0) t0 = r
    } else {
      if (r < t0) return false
      if (r < t1) t1 = r
    }
    return true
  }
  return clip(-dx, ax - b.minX) && clip(dx, b.maxX - ax) && clip(-dy, ay - b.minY) && clip(dy, b.maxY - ay)
}

export function linesMeetBox(lines: Lines, b: BBox): boolean {
  for (const l of lines)
    for (let i = 0; i + 1 < l.length; i++)
      if (segmentMeetsBox(l[i][0], l[i][1], l[i + 1][0], l[i + 1][1], b)) return true
  return false
}

/** Metres from a point to the nearest segment of the lines. */
export function distanceToLinesM(lines: Lines, x: number, y: number): number {
  const m = metresPerDegree(y)
  let best = Infinity
  for (const l of lines)
    for (let i = 0; i + 1 < l.length; i++) {
      const d = pointSegmentM(x, y, l[i][0], l[i][1], l[i + 1][0], l[i + 1][1], m.lon, m.lat)
      if (d < best) best = d
    }
  return best
}
