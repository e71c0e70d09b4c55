/**
 * Cases of two parcels sharing (part of) an edge, for sharedBoundaryM, with the length of the
 * shared stretch from GeographicLib. Parcel a has a side from P(0) to P(1) (with vertices of its
 * own on it or not) and lies to its left; b lies to its right and carries its own copy of the
 * stretch [u0, u1] of that side (0–3 vertices of its own): the whole side, part of it (its
 * corners T-junctions on a's side) or more than it. The copy's vertices are each moved up to
 * 1.5 cm off the side (they still run together), or the whole copy 3–10 cm to one side (they do
 * not).
 */
import { type Rand, somewhereInSA } from './cases.js'
import { geodesicM, type PRing, type XY } from './plane.js'

export interface SharedCase {
  a: XY[][][]
  b: XY[][][]
  /** The GeographicLib length of the shared stretch of the stored positions, 0 when the copies lie apart. */
  wantM: number
  what: string
}

const FORMS = ['whole side', 'part of it', 'beyond its ends'] as const

/** Distance in metres from p to the polyline `line` (planar). */
function toPolyline(p: XY, line: XY[]): number {
  let best = Infinity
  for (let i = 0; i + 1 < line.length; i++) {
    const [ax, ay] = line[i]
    const dx = line[i + 1][0] - ax
    const dy = line[i + 1][1] - ay
    const t = Math.max(0, Math.min(1, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    best = Math.min(best, Math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy))
  }
  return best
}

/** k increasing fractions strictly between lo and hi, at least `gap` apart and from lo and hi. */
function spacedFractions(r: Rand, k: number, lo: number, hi: number, gap: number): number[] {
  const free = hi - lo - (k + 1) * gap
  if (free <= 0) return []
  const cuts = Array.from({ length: k }, () => free * r()).sort((x, y) => x - y)
  return cuts.map((c, i) => lo + c + (i + 1) * gap)
}

/** Options of a shared-edge case. */
export interface SharedOptions {
  /** The neighbour's copy within 1.5 cm of a's side (true) or 3–10 cm off it (false). */
  close: boolean
  /** Up to how many vertices of its own a has on its side (b has up to 3 on its copy). */
  aVertices: number
}

/**
 * A pair sharing a stretch or lying 3–10 cm apart; null when rounding to 1e-7° leaves b's copy
 * 1.9–2.1 cm off a's side somewhere, too near the tolerance to say. Vertices on either copy are
 * 20 cm apart at least, and the parcels' other edges leave the side at 55–75°, each leaning
 * outwards, so no other edges run together.
 */
export function sharedEdgeCase(r: Rand, { close, aVertices }: SharedOptions): SharedCase | null {
  const plane = somewhereInSA(r)
  const side = 0.6 * (500 / 0.6) ** r()
  const head = 2 * Math.PI * r()
  const d: XY = [Math.cos(head), Math.sin(head)]
  const n: XY = [-d[1], d[0]]
  const P = (t: number, off = 0, skew = 0): XY => [
    (t * side + skew) * d[0] + off * n[0],
    (t * side + skew) * d[1] + off * n[1],
  ]
  const lean = (depth: number) => depth * Math.tan(((15 + 20 * r()) * Math.PI) / 180)
  const gap = 0.2 / side
  const aT = [0, ...spacedFractions(r, Math.floor((aVertices + 1) * r()), 0, 1, gap), 1]
  const ka = aT.length - 2
  const depthA = side * (0.3 + r())
  const aRing: PRing = [...aT.map((t) => P(t)), P(1, depthA, lean(depthA)), P(0, depthA, -lean(depthA)), P(0)]
  const form = FORMS[Math.floor(3 * r())]
  const u0 = form === 'whole side' ? 0 : form === 'part of it' ? 0.45 * r() : -0.01 - 0.3 * r()
  const u1 = form === 'whole side' ? 1 : form === 'part of it' ? 1 - 0.45 * r() : 1.01 + 0.3 * r()
  const bT = [u0, ...spacedFractions(r, Math.floor(4 * r()), u0, u1, gap), u1].reverse()
  const kb = bT.length - 2
  // apart: the whole copy 3.3–10 cm to one side, each vertex within 3 mm of that
  const away = (r() < 0.5 ? -1 : 1) * (0.033 + 0.067 * r())
  const copy = bT.map((t) => P(t, close ? (2 * r() - 1) * 0.015 : away + (2 * r() - 1) * 0.003))
  const depthB = side * (0.3 + r())
  const bRing: PRing = [...copy, P(u0, -depthB, -lean(depthB)), P(u1, -depthB, lean(depthB)), copy[0]]
  const aDeg = plane.ring(aRing)
  const bDeg = plane.ring(bRing)
  // the two copies as stored, back in the plane
  const aSide = plane.back(aDeg.slice(0, ka + 2))
  const bCopy = plane.back(bDeg.slice(0, kb + 2))
  const [s0, s1] = [aSide[0], aSide[ka + 1]]
  const len2 = (s1[0] - s0[0]) ** 2 + (s1[1] - s0[1]) ** 2
  const proj = (p: XY) => ((p[0] - s0[0]) * (s1[0] - s0[0]) + (p[1] - s0[1]) * (s1[1] - s0[1])) / len2
  const lo = Math.max(0, Math.min(proj(bCopy[0]), proj(bCopy[kb + 1])))
  const hi = Math.min(1, Math.max(proj(bCopy[0]), proj(bCopy[kb + 1])))
  // how far b's copy runs off a's side (its line, beyond a's corners), and a's vertices off b's copy
  const offLine = (p: XY) =>
    Math.abs((p[0] - s0[0]) * (s1[1] - s0[1]) - (p[1] - s0[1]) * (s1[0] - s0[0])) / Math.sqrt(len2)
  const gaps = [
    ...bCopy.map((p) => (proj(p) >= 0 && proj(p) <= 1 ? toPolyline(p, aSide) : offLine(p))),
    ...aSide.filter((p) => proj(p) >= lo && proj(p) <= hi).map((p) => toPolyline(p, bCopy)),
  ]
  if (close ? Math.max(...gaps) > 0.019 : Math.min(...gaps) < 0.021) return null
  const at = (t: number): XY => [
    aDeg[0][0] + t * (aDeg[ka + 1][0] - aDeg[0][0]),
    aDeg[0][1] + t * (aDeg[ka + 1][1] - aDeg[0][1]),
  ]
  return {
    a: [[aDeg]],
    b: [[bDeg]],
    wantM: close ? geodesicM(at(lo), at(hi)) : 0,
    what: `${close ? 'within 1.5 cm' : '3–10 cm apart'}, ${form} of a ${side.toFixed(2)} m side, ${ka} + ${kb} vertices on it`,
  }
}
