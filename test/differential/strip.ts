/**
 * A dimensioned line's strip computed independently of src/geo/overlay/buffer.ts: its area in
 * closed form from GeographicLib lengths and azimuths, and its pieces in a local plane
 * (rectangles, round-join fans, the inner kites the rectangles count twice) for clipping.
 */
import { azimuths, geodesicM, type PRing, wrap180, type XY } from './plane.js'

/** The largest angle of one chord of a round join, as docs/decisions.md "Geometry tolerances" builds strips. */
export const JOIN_STEP_RAD = Math.PI / 32

/** Chords of a round join of `phi` radians. */
const joinSteps = (phi: number) => Math.max(1, Math.ceil(phi / JOIN_STEP_RAD))

/**
 * The area in m² of the strip of half-width h around a polyline of [lon, lat] positions: 2h·ΣL
 * for the rectangles, plus at each bend of φ the round join's chords, h²·(steps/2)·sin(φ/steps),
 * less the kite h²·tan(φ/2) where the two rectangles overlap on the inner side. Lengths are WGS84
 * geodesics, bends the change of geodesic azimuth at the vertex.
 */
export function analyticStripSqm(line: XY[], h: number): number {
  let sqm = 0
  for (let i = 0; i + 1 < line.length; i++) sqm += 2 * h * geodesicM(line[i], line[i + 1])
  for (let j = 1; j + 1 < line.length; j++) {
    const phi =
      (Math.abs(wrap180(azimuths(line[j], line[j + 1]).out - azimuths(line[j - 1], line[j]).in)) * Math.PI) / 180
    const steps = joinSteps(phi)
    sqm += h * h * ((steps / 2) * Math.sin(phi / steps) - Math.tan(phi / 2))
  }
  return sqm
}

export interface StripPieces {
  /** One rectangle per segment, closed, counter-clockwise. */
  rects: PRing[]
  /** One fan per bend, on its outer side, from the vertex: the round join. */
  fans: PRing[]
}

/** The pieces of the strip of half-width h around a planar polyline (metres): the strip is their union. */
export function stripPieces(pts: XY[], h: number): StripPieces {
  const rects: PRing[] = []
  const fans: PRing[] = []
  const normals: XY[] = []
  for (let i = 0; i + 1 < pts.length; i++) {
    const [px, py] = pts[i]
    const [qx, qy] = pts[i + 1]
    const len = Math.hypot(qx - px, qy - py)
    const n: XY = [-(qy - py) / len, (qx - px) / len]
    normals.push(n)
    const c = (x: number, y: number, s: number): XY => [x + s * h * n[0], y + s * h * n[1]]
    rects.push([c(px, py, -1), c(qx, qy, -1), c(qx, qy, 1), c(px, py, 1), c(px, py, -1)])
  }
  for (let j = 1; j + 1 < pts.length; j++) {
    const a = normals[j - 1]
    const b = normals[j]
    // signed turn (> 0 to the left); the outer side is the right one on a left turn
    const phi = Math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])
    if (phi === 0) continue
    const s = phi > 0 ? -1 : 1
    const a0 = Math.atan2(s * a[1], s * a[0])
    const steps = joinSteps(Math.abs(phi))
    const [vx, vy] = pts[j]
    const fan: PRing = [[vx, vy]]
    for (let k = 0; k <= steps; k++) {
      const t = a0 + (phi * k) / steps
      fan.push([vx + h * Math.cos(t), vy + h * Math.sin(t)])
    }
    fan.push([vx, vy])
    fans.push(phi > 0 ? fan : fan.reverse())
  }
  return { rects, fans }
}
