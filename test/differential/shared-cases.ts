/**
 * Cases of two parcels sharing (part of) an edge, for sharedBoundaryM, with the length of the
 * shared stretch from GeographicLib. Parcel a has a side from P(0) to P(1) (with vertices of its
 * own on it or not) and lies to its left; b lies to its right and carries its own copy of the
 * stretch [u0, u1] of that side (0–3 vertices of its own): the whole side, part of it (its
 * corners T-junctions on a's side) or more than it. The copy's vertices are each moved up to
 * 1.5 cm off the side (they still run together), or the whole copy 3–10 cm to one side (they do
 * not). Or b's edge parts from a's side at a vertex of both, at 0.05–5° (issue #39 item 4).
 *
 * The expected length is the rule of docs/decisions.md "Geometry tolerances" computed here on its
 * own: for each edge of one parcel, the part of each edge of the other inside the edge's 2 cm
 * strip (the rectangle 2 cm either side of it, clipped Liang–Barsky), laid on the edge, the pieces
 * united, their ends measured by GeographicLib.
 */
import { type Rand, somewhereInSA } from './cases.js'
import { geodesicM, type Plane, type PRing, type XY } from './plane.js'

export interface SharedCase {
  a: XY[][][]
  b: XY[][][]
  /** The length of a's boundary within 2 cm of b's (the rule, computed here), and of b's within 2 cm of a's. */
  wantM: number
  wantBackM: number
  /**
   * What the case was made to share: the GeographicLib length of the stretch of a's side that b's
   * copy spans (0 when the copies lie apart), or 2 cm / tan θ of the edges parting at θ. The rule
   * adds what it finds where the parcels' other edges leave or cross at an angle: centimetres.
   */
  meantM: number
  what: string
}

/** The storage tolerance of docs/decisions.md: boundaries within 2 cm run together. */
const TOL = 0.02

/**
 * The length of the boundary of `a` within 2 cm of `b`'s, measured across: for each edge of `a`
 * (in the plane), the part of each edge of `b` inside the edge's strip {0 ≤ u ≤ |edge|, |v| ≤ 2 cm},
 * clipped by Liang–Barsky, gives an interval of u; the intervals are united per edge and each
 * is measured between its ends on the stored edge by GeographicLib.
 */
export function withinStripM(plane: Plane, a: XY[][][], b: XY[][][]): number {
  const edges = (mp: XY[][][]) =>
    mp.flatMap((poly) => poly.flatMap((ring) => ring.slice(1).map((p, i) => [ring[i], p])))
  const bEdges = edges(b).map(([p, q]) => [plane.xy(p), plane.xy(q)])
  let total = 0
  for (const [p0, p1] of edges(a)) {
    const [q0, q1] = [plane.xy(p0), plane.xy(p1)]
    const len = Math.hypot(q1[0] - q0[0], q1[1] - q0[1])
    if (len === 0) continue
    const d: XY = [(q1[0] - q0[0]) / len, (q1[1] - q0[1]) / len]
    const frame = (p: XY): XY => {
      const x = p[0] - q0[0]
      const y = p[1] - q0[1]
      return [x * d[0] + y * d[1], y * d[0] - x * d[1]]
    }
    const pieces: XY[] = []
    for (const [c, e] of bEdges) {
      const [uc, vc] = frame(c)
      const [ue, ve] = frame(e)
      // Liang–Barsky: s in [s0, s1] of c + s (e - c) inside 0 ≤ u ≤ len, -2 cm ≤ v ≤ 2 cm
      let s0 = 0
      let s1 = 1
      for (const [pk, qk] of [
        [-(ue - uc), uc],
        [ue - uc, len - uc],
        [-(ve - vc), vc + TOL],
        [ve - vc, TOL - vc],
      ]) {
        if (pk === 0) {
          if (qk < 0) s1 = -1
        } else if (pk < 0) s0 = Math.max(s0, qk / pk)
        else s1 = Math.min(s1, qk / pk)
      }
      if (s1 <= s0) continue
      const u0 = uc + s0 * (ue - uc)
      const u1 = uc + s1 * (ue - uc)
      if (u0 !== u1) pieces.push([Math.min(u0, u1), Math.max(u0, u1)])
    }
    pieces.sort((x, y) => x[0] - y[0])
    const at = (u: number): XY => [p0[0] + (u / len) * (p1[0] - p0[0]), p0[1] + (u / len) * (p1[1] - p0[1])]
    for (let k = 0; k < pieces.length; ) {
      let [from, to] = pieces[k++]
      while (k < pieces.length && pieces[k][0] <= to) to = Math.max(to, pieces[k++][1])
      total += geodesicM(at(from), at(to))
    }
  }
  return total
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
/**
 * The frame both shared-edge cases draw from `r`, in this order: a place in South Africa, a side
 * of `lo` to `hi` metres (log-uniform) along a random heading `d` with its normal `n`; `P(t, off,
 * skew)` is the point at fraction `t` of the side (plus `skew` metres along it) and `off` metres
 * across, and `lean(depth)` how far an edge leaving the side at 55–75° has moved along it at that
 * depth (one draw of `r` per call).
 */
function sideFrame(r: Rand, lo: number, hi: number) {
  const plane = somewhereInSA(r)
  const side = lo * (hi / lo) ** r()
  const head = 2 * Math.PI * r()
  const d: XY = [Math.cos(head), Math.sin(head)]
  const n: XY = [-d[1], d[0]]
  const P = (t: number, off = 0, skew = 0): XY => [
    (t * side + skew) * d[0] + off * n[0],
    (t * side + skew) * d[1] + off * n[1],
  ]
  const lean = (depth: number) => depth * Math.tan(((15 + 20 * r()) * Math.PI) / 180)
  return { plane, side, d, n, P, lean }
}

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
  const { plane, side, P, lean } = sideFrame(r, 0.6, 500)
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
  const a = [[aDeg]]
  const b = [[bDeg]]
  return {
    a,
    b,
    wantM: withinStripM(plane, a, b),
    wantBackM: withinStripM(plane, b, a),
    meantM: close ? geodesicM(at(lo), at(hi)) : 0,
    what: `${close ? 'within 1.5 cm' : '3–10 cm apart'}, ${form} of a ${side.toFixed(2)} m side, ${ka} + ${kb} vertices on it`,
  }
}

/**
 * Two parcels whose edges part at a vertex of both (issue #39 item 4): a's side runs `side` metres
 * (a vertex of its own at u0 or not), b's edge leaves P(u0) at θ = 0.05–5° to either side of it
 * and runs 30–100 % of the rest of the side. Both parcels' other edges leave at 55–75°, leaning
 * outwards as in sharedEdgeCase. Within 2 cm over 2 cm / tan θ, or the whole edge when shorter.
 */
export function partingEdgeCase(r: Rand): SharedCase {
  const { plane, side, d, n, P, lean } = sideFrame(r, 1, 300)
  const u0 = r() < 0.5 ? 0 : 0.5 * r()
  const deg = 0.05 * (5 / 0.05) ** r()
  const th = ((r() < 0.5 ? -1 : 1) * deg * Math.PI) / 180
  const run = (1 - u0) * side * (0.3 + 0.7 * r())
  const depthA = side * (0.3 + r())
  const aT = u0 > 0 ? [0, u0, 1] : [0, 1]
  const aRing: PRing = [...aT.map((t) => P(t)), P(1, depthA, lean(depthA)), P(0, depthA, -lean(depthA)), P(0)]
  const v = P(u0)
  const w: XY = [
    v[0] + run * (Math.cos(th) * d[0] + Math.sin(th) * n[0]),
    v[1] + run * (Math.cos(th) * d[1] + Math.sin(th) * n[1]),
  ]
  const uw = u0 + (run * Math.cos(th)) / side
  const depthB = side * (0.3 + r())
  const bRing: PRing = [w, v, P(u0, -depthB, -lean(depthB)), P(uw, -depthB, lean(depthB)), w]
  const aDeg = plane.ring(aRing)
  const bDeg = plane.ring(bRing)
  // the angle and length of the stored edges, back in the plane: a's edge from the shared vertex on
  const [sv, s1, bw] = [plane.xy(aDeg[aT.length - 2]), plane.xy(aDeg[aT.length - 1]), plane.xy(bDeg[0])]
  const [ex, ey, fx, fy] = [s1[0] - sv[0], s1[1] - sv[1], bw[0] - sv[0], bw[1] - sv[1]]
  const parted = Math.abs(Math.atan2(ex * fy - ey * fx, ex * fx + ey * fy))
  const a = [[aDeg]]
  const b = [[bDeg]]
  return {
    a,
    b,
    wantM: withinStripM(plane, a, b),
    wantBackM: withinStripM(plane, b, a),
    meantM: Math.min(TOL / Math.tan(parted), Math.hypot(fx, fy) * Math.cos(parted)),
    what: `parting at ${deg.toFixed(3)}° ${th < 0 ? 'outwards' : 'across a'} from ${u0 > 0 ? 'a vertex on' : 'the corner of'} a ${side.toFixed(2)} m side, for ${run.toFixed(2)} m`,
  }
}
