/**
 * Line buffering: the strip of a line with a width (a dimensioned servitude), as a valid
 * MultiPolygon.
 */
import { unite } from '../clip.js'
import { metresPerDegree } from '../geodesic.js'
import { ringSignedArea2, type MultiPolygon, type Polygon, type Ring } from '../polygon.js'
import { chainContacts, dedupe, ringContacts } from './contacts.js'
import type { MultiLineString } from './types.js'

/** Largest angle of one chord of a round join (sagitta 0.12 % of the half-width). */
const JOIN_STEP_RAD = Math.PI / 32

/**
 * Lines buffered by `halfWidthM` metres each side, as a valid MultiPolygon: FLAT ends (a
 * dimensioned servitude stops where its line stops, so a straight line of length L gives
 * exactly L × 2·halfWidthM) and ROUND joins at bends (chords of at most π/32). Offsets use the
 * metres per degree at each vertex. A part with fewer than 2 distinct positions adds nothing.
 */
export function bufferLines(ml: MultiLineString, halfWidthM: number): MultiPolygon {
  if (!(halfWidthM > 0) || !Number.isFinite(halfWidthM))
    throw new RangeError(`halfWidthM must be a positive number of metres, got ${halfWidthM}`)
  const h = halfWidthM
  const offset = (x: number, y: number, ux: number, uy: number): [number, number] => {
    const k = metresPerDegree(y)
    return [x + (h * ux) / k.lon, y + (h * uy) / k.lat]
  }
  // one simple offset ring per part answers nearly every surveyed line (gentle bends, widths far
  // below segment lengths) without a polygon union, which polyclip cannot always complete on
  // many touching rectangles and wedges
  const rings: Ring[] = []
  for (const line of ml) {
    const pts = dedupe(line)
    if (pts.length < 2) continue
    const ring = offsetRing(pts, h)
    if (!ring) {
      rings.length = 0
      break
    }
    rings.push(ring)
  }
  if (rings.length && !rings.some((a, i) => rings.some((b, j) => j > i && ringContacts(a, b, 1).length)))
    return rings.map((r) => [r])
  const pieces: Polygon[] = []
  for (const line of ml) {
    const pts = dedupe(line)
    let prevNx = 0
    let prevNy = 0
    for (let i = 0; i + 1 < pts.length; i++) {
      const [px, py] = pts[i]
      const [qx, qy] = pts[i + 1]
      const mid = metresPerDegree((py + qy) / 2)
      const dx = (qx - px) * mid.lon
      const dy = (qy - py) * mid.lat
      const len = Math.hypot(dx, dy)
      // unit left normal in metres
      const nx = -dy / len
      const ny = dx / len
      const start = offset(px, py, -nx, -ny)
      pieces.push([[start, offset(qx, qy, -nx, -ny), offset(qx, qy, nx, ny), offset(px, py, nx, ny), start]])
      // round join on the outer side of a bend, from the previous rectangle's corner to this one's
      const cross = prevNx * ny - prevNy * nx
      const dot = prevNx * nx + prevNy * ny
      if (i > 0 && (Math.abs(cross) > 1e-12 || dot < 0)) {
        const left = cross >= 0
        const [sx, sy] = left ? [-prevNx, -prevNy] : [nx, ny]
        const [fx, fy] = left ? [-nx, -ny] : [prevNx, prevNy]
        const phi = Math.abs(Math.atan2(cross, dot))
        const steps = Math.ceil(phi / JOIN_STEP_RAD)
        const a0 = Math.atan2(sy, sx)
        const wedge: Ring = [[px, py], offset(px, py, sx, sy)]
        for (let k = 1; k < steps; k++)
          wedge.push(offset(px, py, Math.cos(a0 + (phi * k) / steps), Math.sin(a0 + (phi * k) / steps)))
        wedge.push(offset(px, py, fx, fy), [px, py])
        pieces.push([wedge])
      }
      prevNx = nx
      prevNy = ny
    }
  }
  // a single rectangle is already valid; anything more is merged
  return pieces.length <= 1 ? pieces : unite(pieces[0], ...pieces.slice(1))
}

/**
 * The buffer of one line as a single ring: flat ends, the outer side of each bend rounded (chords
 * of at most JOIN_STEP_RAD), the inner side mitred. Null when that ring is not simple (a bend
 * tighter than the width, a line coming back near itself): the caller then merges pieces.
 */
function offsetRing(pts: [number, number][], h: number): Ring | null {
  const n = pts.length
  // unit left normals of each segment, in metres
  const nx: number[] = []
  const ny: number[] = []
  const lens: number[] = []
  for (let i = 0; i + 1 < n; i++) {
    const mid = metresPerDegree((pts[i][1] + pts[i + 1][1]) / 2)
    const dx = (pts[i + 1][0] - pts[i][0]) * mid.lon
    const dy = (pts[i + 1][1] - pts[i][1]) * mid.lat
    const len = Math.hypot(dx, dy)
    nx.push(-dy / len)
    ny.push(dx / len)
    lens.push(len)
  }
  const at = (i: number, ux: number, uy: number, scale = 1): [number, number] => {
    const k = metresPerDegree(pts[i][1])
    return [pts[i][0] + (h * scale * ux) / k.lon, pts[i][1] + (h * scale * uy) / k.lat]
  }
  // the offset points of vertex i on side s (+1 left, -1 right), in travel order along that side
  const sidePoints = (i: number, s: number): [number, number][] => {
    if (i === 0) return [at(0, s * nx[0], s * ny[0])]
    if (i === n - 1) return [at(i, s * nx[i - 1], s * ny[i - 1])]
    const ax = s * nx[i - 1]
    const ay = s * ny[i - 1]
    const bx = s * nx[i]
    const by = s * ny[i]
    const dot = ax * bx + ay * by
    const cross = ax * by - ay * bx
    // a gentle bend (up to a join step, as rounded coordinates make of a straight line): one mitre
    // point on each side, off the arc by at most h·φ²/8
    if (dot >= Math.cos(JOIN_STEP_RAD)) return [at(i, ax + bx, ay + by, 1 / (1 + dot))]
    // this side is outside the bend when its normal turns away from the travel direction
    const turnLeft = nx[i - 1] * ny[i] - ny[i - 1] * nx[i] > 0
    const outer = s > 0 !== turnLeft
    if (!outer) {
      // the inner corner is where the two offset edges meet, h·√(2/(1+cos)) from the vertex: fine
      // for any bend while that stays within half of each segment; a tighter hairpin makes the
      // ring fail its check below and the caller merges pieces instead
      if (dot <= -1 + 1e-12 || h * Math.sqrt(2 / (1 + dot)) > 0.5 * Math.min(lens[i - 1], lens[i]))
        return [at(i, ax, ay), at(i, bx, by)]
      return [at(i, ax + bx, ay + by, 1 / (1 + dot))]
    }
    const phi = Math.atan2(cross, dot)
    const steps = Math.max(1, Math.ceil(Math.abs(phi) / JOIN_STEP_RAD))
    const a0 = Math.atan2(ay, ax)
    const out: [number, number][] = []
    for (let k = 0; k <= steps; k++) out.push(at(i, Math.cos(a0 + (phi * k) / steps), Math.sin(a0 + (phi * k) / steps)))
    return out
  }
  const ring: Ring = []
  for (let i = 0; i < n; i++) ring.push(...sidePoints(i, -1))
  for (let i = n - 1; i >= 0; i--) ring.push(...sidePoints(i, 1).reverse())
  ring.push([ring[0][0], ring[0][1]])
  if (chainContacts(ring, true, 1).length) return null
  return ringSignedArea2(ring) > 0 ? ring : ring.reverse()
}
