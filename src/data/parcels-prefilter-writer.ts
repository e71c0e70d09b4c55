/**
 * The writer of the parcel prefilter (layout and guarantees in parcels-prefilter.ts): for one
 * stored parcel, the oriented box and the largest inner box it can find that no edge comes near,
 * each checked against the thresholds exactly as the reader will compute them. The encumbrance
 * prefilter (encumbrance-format.ts) is written with it too: areas and strips as parcels, lines
 * with {@link describeLines}.
 */
import { segmentMeetsBox } from '../geo/lines.js'
import { COORD_SCALE, containsPointEncoded, int32View } from './geometry-blob.js'
import {
  COS,
  KIND_INSIDE,
  KIND_NONE,
  KIND_OUTSIDE,
  PREFILTER_MARGIN_DEG,
  SIN,
  thresholds,
} from './parcels-prefilter.js'

interface Rings {
  /** rotated coordinates, ring after ring, each ring closed */
  u: Float64Array
  v: Float64Array
  /** start offset of each ring (in positions), plus the end */
  starts: number[]
  /** whether each ring is a shell */
  shell: boolean[]
}

/** True when no edge comes within `PREFILTER_MARGIN_DEG` of the box. */
function clear(r: Rings, a0: number, b0: number, a1: number, b1: number): boolean {
  const m = PREFILTER_MARGIN_DEG
  const x0 = a0 - m
  const y0 = b0 - m
  const x1 = a1 + m
  const y1 = b1 + m
  for (let k = 0; k + 1 < r.starts.length; k++) {
    for (let p = r.starts[k]; p + 1 < r.starts[k + 1]; p++) {
      const ax = r.u[p]
      const ay = r.v[p]
      const bx = r.u[p + 1]
      const by = r.v[p + 1]
      // cheap reject before the clipping
      if ((ax < x0 && bx < x0) || (ax > x1 && bx > x1) || (ay < y0 && by < y0) || (ay > y1 && by > y1)) continue
      if (segmentMeetsBox(ax, ay, bx, by, { minX: x0, minY: y0, maxX: x1, maxY: y1 })) return false
    }
  }
  return true
}

/** The largest box found around the seed's centre that no edge comes near, or null. */
function growBox(
  r: Rings,
  cu: number,
  cv: number,
  hu: number,
  hv: number,
  lim: [number, number, number, number],
): [number, number, number, number] | null {
  if (!clear(r, cu, cv, cu, cv)) return null
  // scale the seed ring's box about its centre
  let lo = 0
  let hi = 1
  for (let it = 0; it < 14; it++) {
    const t = (lo + hi) / 2
    if (clear(r, cu - hu * t, cv - hv * t, cu + hu * t, cv + hv * t)) lo = t
    else hi = t
  }
  const box: [number, number, number, number] = [cu - hu * lo, cv - hv * lo, cu + hu * lo, cv + hv * lo]
  // then push each side out on its own, up to the oriented box
  for (let side = 0; side < 4; side++) {
    const from = box[side]
    const to = lim[side]
    let a = 0
    let b = 1
    for (let it = 0; it < 10; it++) {
      const t = (a + b) / 2
      const trial: [number, number, number, number] = [box[0], box[1], box[2], box[3]]
      trial[side] = from + (to - from) * t
      if (clear(r, trial[0], trial[1], trial[2], trial[3])) a = t
      else b = t
    }
    box[side] = from + (to - from) * a
  }
  return box[2] > box[0] && box[3] > box[1] ? box : null
}

const floorQ = (v: number) => Math.min(255, Math.max(0, Math.floor(v)))
const ceilQ = (v: number) => Math.min(255, Math.max(0, Math.ceil(v)))

/** The angle (0-255) whose oriented box of the shells is smallest, among shell edge directions and 0. */
function chooseAngle(xs: Float64Array, ys: Float64Array, starts: number[], shell: boolean[]): number {
  const edges: { q: number; len: number }[] = []
  for (let k = 0; k + 1 < starts.length; k++) {
    if (!shell[k]) continue
    for (let p = starts[k]; p + 1 < starts[k + 1]; p++) {
      const dx = xs[p + 1] - xs[p]
      const dy = ys[p + 1] - ys[p]
      let a = Math.atan2(dy, dx) % (Math.PI / 2)
      if (a < 0) a += Math.PI / 2
      edges.push({ q: Math.round((a / (Math.PI / 2)) * 256) % 256, len: dx * dx + dy * dy })
    }
  }
  edges.sort((a, b) => b.len - a.len)
  const tried = new Set<number>()
  let best = 0
  let bestArea = Infinity
  for (const q of [0, ...edges.slice(0, 16).map((e) => e.q)]) {
    if (tried.has(q)) continue
    tried.add(q)
    const c = COS[q]
    const s = SIN[q]
    let u0 = Infinity
    let u1 = -Infinity
    let v0 = Infinity
    let v1 = -Infinity
    for (let k = 0; k + 1 < starts.length; k++) {
      if (!shell[k]) continue
      for (let p = starts[k]; p < starts[k + 1]; p++) {
        const u = xs[p] * c + ys[p] * s
        const v = ys[p] * c - xs[p] * s
        if (u < u0) u0 = u
        if (u > u1) u1 = u
        if (v < v0) v0 = v
        if (v > v1) v1 = v
      }
    }
    const area = (u1 - u0) * (v1 - v0)
    if (area < bestArea) {
      bestArea = area
      best = q
    }
  }
  return best
}

/** Seeds tried for the inner box: the rings with the largest oriented extents. */
const MAX_SEEDS = 8

/**
 * Writer: describes the parcel stored as `blob` (encodeGeometry) with Flatbush box (x0, y0, x1,
 * y1) into `out` at `offset` (`PREFILTER_STRIDE` bytes). Every threshold is checked as the
 * reader will compute it; a parcel it cannot describe safely gets "no information" (always
 * undecided).
 */
export function describeParcel(
  blob: Uint8Array,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  out: Uint8Array,
  offset: number,
): void {
  const o = offset
  const noInnerBox = () => {
    out[o + 1] = KIND_NONE
    out[o + 6] = 255
    out[o + 7] = 0
    out[o + 8] = 255
    out[o + 9] = 0
  }
  const noInformation = () => {
    out[o] = 0
    // oriented box = the whole Flatbush box
    out[o + 2] = 0
    out[o + 3] = 255
    out[o + 4] = 0
    out[o + 5] = 255
    noInnerBox()
  }
  noInformation()
  if (!(x1 > x0 && y1 > y0)) return

  // vertices exactly as the reader's point in polygon sees them
  const a = int32View(blob)
  const starts: number[] = []
  const shell: boolean[] = []
  const xs = new Float64Array((a.length - 1) >> 1)
  const ys = new Float64Array(xs.length)
  let k = 0
  let n = 0
  const np = a[k++]
  for (let poly = 0; poly < np; poly++) {
    const nr = a[k++]
    for (let ring = 0; ring < nr; ring++) {
      const len = a[k++]
      starts.push(n)
      shell.push(ring === 0)
      for (let i = 0; i < len; i++) {
        xs[n] = a[k++] / COORD_SCALE
        ys[n] = a[k++] / COORD_SCALE
        n++
      }
    }
  }
  starts.push(n)

  // ---- oriented box, rounded outwards by the margin
  const q = chooseAngle(xs, ys, starts, shell)
  const c = COS[q]
  const s = SIN[q]
  const u = new Float64Array(n)
  const v = new Float64Array(n)
  let u0 = Infinity
  let u1 = -Infinity
  let v0 = Infinity
  let v1 = -Infinity
  for (let i = 0; i < n; i++) {
    u[i] = xs[i] * c + ys[i] * s
    v[i] = ys[i] * c - xs[i] * s
    if (u[i] < u0) u0 = u[i]
    if (u[i] > u1) u1 = u[i]
    if (v[i] < v0) v0 = v[i]
    if (v[i] > v1) v1 = v[i]
  }
  const U0 = x0 * c + y0 * s
  const U1 = x1 * c + y1 * s
  const V0 = y0 * c - x1 * s
  const V1 = y1 * c - x0 * s
  const du = (U1 - U0) / 255
  const dv = (V1 - V0) / 255
  if (!(du > 0 && dv > 0)) return
  const m = PREFILTER_MARGIN_DEG
  out[o] = q
  out[o + 2] = floorQ((u0 - m - U0) / du)
  out[o + 3] = 255 - floorQ((U1 - u1 - m) / du)
  out[o + 4] = floorQ((v0 - m - V0) / dv)
  out[o + 5] = 255 - floorQ((V1 - v1 - m) / dv)
  // a side at 0 or 255 is the Flatbush box's own, which every point asked about lies within; any
  // other must lie beyond the margin as the reader computes it (the division above may round
  // either way: step out when it did)
  const t = new Float64Array(8)
  const obbSafe = () => {
    thresholds(out, o, x0, y0, x1, y1, t)
    return (
      (out[o + 2] === 0 || t[0] <= u0 - m) &&
      (out[o + 3] === 255 || t[1] >= u1 + m) &&
      (out[o + 4] === 0 || t[2] <= v0 - m) &&
      (out[o + 5] === 255 || t[3] >= v1 + m)
    )
  }
  for (let guard = 0; guard < 3 && !obbSafe(); guard++) {
    if (out[o + 2] > 0 && t[0] > u0 - m) out[o + 2]--
    if (out[o + 3] < 255 && t[1] < u1 + m) out[o + 3]++
    if (out[o + 4] > 0 && t[2] > v0 - m) out[o + 4]--
    if (out[o + 5] < 255 && t[3] < v1 + m) out[o + 5]++
  }
  if (!obbSafe()) return noInformation()
  const [uLo, uHi, vLo, vHi] = t
  const da = (uHi - uLo) / 255
  const db = (vHi - vLo) / 255
  if (!(da > 0 && db > 0)) return

  // ---- inner box: grown from the centre of each ring's oriented extent (the block of a street
  // ring, the middle of an erf), then, while no box covers half that extent, from the centres of
  // its quarters (an L-shaped parcel's centre is on its boundary)
  const rings: Rings = { u, v, starts, shell }
  const extents: { u0: number; v0: number; u1: number; v1: number; area: number }[] = []
  for (let r = 0; r + 1 < starts.length; r++) {
    let ru0 = Infinity
    let ru1 = -Infinity
    let rv0 = Infinity
    let rv1 = -Infinity
    for (let i = starts[r]; i < starts[r + 1]; i++) {
      if (u[i] < ru0) ru0 = u[i]
      if (u[i] > ru1) ru1 = u[i]
      if (v[i] < rv0) rv0 = v[i]
      if (v[i] > rv1) rv1 = v[i]
    }
    extents.push({ u0: ru0, v0: rv0, u1: ru1, v1: rv1, area: (ru1 - ru0) * (rv1 - rv0) })
  }
  extents.sort((p1, p2) => p2.area - p1.area)
  const lim: [number, number, number, number] = [
    Math.max(uLo, u0),
    Math.max(vLo, v0),
    Math.min(uHi, u1),
    Math.min(vHi, v1),
  ]
  let best: [number, number, number, number] | null = null
  let bestArea = 0
  const tryBox = (cu: number, cv: number, hu: number, hv: number) => {
    const box = growBox(rings, cu, cv, hu, hv, lim)
    if (!box) return
    const area = (box[2] - box[0]) * (box[3] - box[1])
    if (area > bestArea) {
      bestArea = area
      best = box
    }
  }
  const seeds = extents.slice(0, MAX_SEEDS)
  for (const e of seeds) tryBox((e.u0 + e.u1) / 2, (e.v0 + e.v1) / 2, (e.u1 - e.u0) / 2, (e.v1 - e.v0) / 2)
  for (const e of seeds) {
    if (bestArea >= e.area / 2) break
    const hu = (e.u1 - e.u0) / 4
    const hv = (e.v1 - e.v0) / 4
    for (const [fu, fv] of [
      [1, 1],
      [3, 1],
      [1, 3],
      [3, 3],
    ])
      tryBox(e.u0 + fu * hu, e.v0 + fv * hv, hu, hv)
  }
  const inner = best as [number, number, number, number] | null
  if (!inner) return
  // rounded inwards: the reader's box must lie within the one found clear of every edge
  out[o + 6] = ceilQ((inner[0] - uLo) / da)
  out[o + 7] = floorQ((inner[2] - uLo) / da)
  out[o + 8] = ceilQ((inner[1] - vLo) / db)
  out[o + 9] = floorQ((inner[3] - vLo) / db)
  const innerSafe = () => {
    thresholds(out, o, x0, y0, x1, y1, t)
    return t[4] >= inner[0] && t[5] <= inner[2] && t[6] >= inner[1] && t[7] <= inner[3]
  }
  for (let guard = 0; guard < 3 && !innerSafe(); guard++) {
    if (t[4] < inner[0] && out[o + 6] < 255) out[o + 6]++
    if (t[5] > inner[2] && out[o + 7] > 0) out[o + 7]--
    if (t[6] < inner[1] && out[o + 8] < 255) out[o + 8]++
    if (t[7] > inner[3] && out[o + 9] > 0) out[o + 9]--
  }
  if (!innerSafe() || out[o + 6] > out[o + 7] || out[o + 8] > out[o + 9]) return noInnerBox()
  // no edge comes near the box, so the whole box is on one side of the boundary: its centre
  // (as the reader's point in polygon answers there) says which
  const cu = (t[4] + t[5]) / 2
  const cv = (t[6] + t[7]) / 2
  out[o + 1] = containsPointEncoded(blob, cu * c - cv * s, cu * s + cv * c) ? KIND_INSIDE : KIND_OUTSIDE
}

/**
 * Writer for lines stored as one-ring polygons (encumbrance-format.ts `linesAsPolygons`): the
 * oriented box of their positions, and an inner box no segment comes near, always marked outside.
 * An open ring's segments are exactly the line's (no closing edge: `describeParcel` walks each
 * ring's positions in order and measures its oriented box over every position), so a point it
 * decides lies at least PREFILTER_MARGIN_DEG from every segment: off the line, at a distance
 * above 0. Never inside: a line holds no area.
 */
export function describeLines(
  blob: Uint8Array,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  out: Uint8Array,
  offset: number,
): void {
  describeParcel(blob, x0, y0, x1, y1, out, offset)
  // describeParcel names the inner box's side by point in polygon, closing each ring: off a line is outside
  if (out[offset + 1] !== KIND_NONE) out[offset + 1] = KIND_OUTSIDE
}
