/**
 * The length of boundary two parcels share: the stretches where their boundaries run within 2 cm of
 * each other (docs/decisions.md "Geometry tolerances"), for the touching pass of the build.
 */
import { metresPerDegree } from './geodesic.js'
import type { MultiPolygon } from './polygon.js'

/** Edges within this distance of each other run together (docs/decisions.md "Geometry tolerances"). */
export const SHARED_EDGE_TOL_M = 0.02

// the stretches of one edge of `a` that edges of `b` run along, as [lo, hi] fractions of it; reused
// across calls (the relation pass calls sharedBoundaryM for every candidate pair of the cadastre)
let spanLo = new Float64Array(16)
let spanHi = new Float64Array(16)

/**
 * Length in metres of boundary the two polygons share (docs/decisions.md "Geometry tolerances"):
 * for each edge of `a`, the union of the stretches of it from which an edge of `b` lies within
 * SHARED_EDGE_TOL_M (2 cm) straight across. For an edge cd of `b`, that stretch is solved exactly:
 * over the stretch where the projections of ab and cd overlap, cd's offset from ab is linear in
 * the position along ab, and the stretch is where it lies between -2 cm and 2 cm, wherever the
 * vertices of either edge fall. Edges parting from a shared vertex at θ count the 2 cm / tan θ over
 * which they are within 2 cm (issue #39 item 4: testing only the two ends of the overlap, as
 * before, dropped two erven sharing 3.3 m that part at 0.37°); edges meeting at a corner count
 * the few centimetres before it where they are still within 2 cm, which the 0.5 m of touching
 * leaves out. Measured across (not to the nearest point of cd): the 2 cm round cd's end vertices
 * does not count, so two parcels with a common edge and square corners share exactly that edge.
 *
 * Clipping to the common stretch makes the answer the same whichever polygon comes first and
 * however the two split their common boundary into edges, up to the centimetres where edges
 * leave or cross at an angle, each measured along its own parcel's edge. The union keeps a
 * stretch that two edges of `b` run along (a part or hole of `b` along the same edge, a zigzag)
 * from counting twice.
 *
 * Coordinates are stored at 1e-7 degrees (about 1 cm), so two surveys of one real boundary differ
 * by up to a centimetre or two after rounding; an exact test (0.1 mm, as before) dropped
 * neighbours that share metres of boundary. A single shared vertex gives 0 at square corners and
 * centimetres at sharp ones (2 cm / tan θ reaches the 0.5 m of touching only below 2.3°;
 * docs/decisions.md: touching needs a segment of positive length). Measured in a local plane at
 * `a`'s latitude.
 */
export function sharedBoundaryM(a: MultiPolygon, b: MultiPolygon): number {
  const m = metresPerDegree(a[0][0][0][1])
  const kx = m.lon
  const ky = m.lat
  const tolX = SHARED_EDGE_TOL_M / kx
  const tolY = SHARED_EDGE_TOL_M / ky
  let total = 0
  for (const pa of a)
    for (const ra of pa)
      for (let i = 0; i < ra.length - 1; i++) {
        const [ax, ay] = ra[i]
        const [bx, by] = ra[i + 1]
        // the edge in metres from a
        const dx = (bx - ax) * kx
        const dy = (by - ay) * ky
        const len2 = dx * dx + dy * dy
        if (len2 === 0) continue
        const len = Math.sqrt(len2)
        // the tolerance times len: cross products below are offsets from the edge's line times len
        const tolL = SHARED_EDGE_TOL_M * len
        const minX = Math.min(ax, bx) - tolX
        const maxX = Math.max(ax, bx) + tolX
        const minY = Math.min(ay, by) - tolY
        const maxY = Math.max(ay, by) + tolY
        let spans = 0
        for (const pb of b)
          for (const rb of pb)
            for (let j = 0; j < rb.length - 1; j++) {
              const [cx, cy] = rb[j]
              const [ex, ey] = rb[j + 1]
              if (
                Math.max(cx, ex) < minX ||
                Math.min(cx, ex) > maxX ||
                Math.max(cy, ey) < minY ||
                Math.min(cy, ey) > maxY
              )
                continue
              const cX = (cx - ax) * kx
              const cY = (cy - ay) * ky
              const eX = (ex - ax) * kx
              const eY = (ey - ay) * ky
              // offsets of c and e from the line through ab (times len): both beyond the tolerance
              // on one side, so is every point of cd
              const oc = dx * cY - dy * cX
              const oe = dx * eY - dy * eX
              if ((oc > tolL && oe > tolL) || (oc < -tolL && oe < -tolL)) continue
              // the projections of c and e on ab, as fractions of ab, and the stretch of ab they share
              const tc = (cX * dx + cY * dy) / len2
              const te = (eX * dx + eY * dy) / len2
              let lo = Math.max(0, Math.min(tc, te))
              let hi = Math.min(1, Math.max(tc, te))
              if (!(hi > lo)) continue
              // over that stretch cd's offset from ab is linear in the projection: keep the part
              // where it is 2 cm or less either way, wherever the vertices of either edge lie (edges
              // parting from a shared vertex at a small angle run within 2 cm for 2 cm / tan θ).
              // Equal offsets at c and e are within 2 cm all along, or were skipped above
              if (oe !== oc) {
                const k = (te - tc) / (oe - oc)
                const t1 = tc - (tolL + oc) * k
                const t2 = tc + (tolL - oc) * k
                const from = t1 < t2 ? t1 : t2
                const to = t1 < t2 ? t2 : t1
                if (from > lo) lo = from
                if (to < hi) hi = to
                if (!(hi > lo)) continue
              }
              // a stretch overlapping or meeting the last one (consecutive edges of b) joins it
              if (spans > 0 && lo <= spanHi[spans - 1] && hi >= spanLo[spans - 1]) {
                if (lo < spanLo[spans - 1]) spanLo[spans - 1] = lo
                if (hi > spanHi[spans - 1]) spanHi[spans - 1] = hi
                continue
              }
              if (spans === spanLo.length) {
                const lo2 = new Float64Array(2 * spans)
                const hi2 = new Float64Array(2 * spans)
                lo2.set(spanLo)
                hi2.set(spanHi)
                spanLo = lo2
                spanHi = hi2
              }
              spanLo[spans] = lo
              spanHi[spans] = hi
              spans++
            }
        if (spans === 1) total += (spanHi[0] - spanLo[0]) * len
        else if (spans > 1) total += unionLength(spans) * len
      }
  return total
}

/**
 * The length of the union of the first n stretches [spanLo[k], spanHi[k]]: both ends sorted on
 * their own, then swept (the union covers what lies between a start and the end that brings the
 * count of open stretches back to 0).
 */
function unionLength(n: number): number {
  sortPrefix(spanLo, n)
  sortPrefix(spanHi, n)
  let sum = 0
  let open = 0
  let from = 0
  for (let i = 0, k = 0; i < n || k < n; ) {
    if (i < n && spanLo[i] <= spanHi[k]) {
      if (open++ === 0) from = spanLo[i]
      i++
    } else {
      if (--open === 0) sum += spanHi[k] - from
      k++
    }
  }
  return sum
}

/** Sorts the first n entries of `v` ascending in place (insertion sort: n is a handful). */
function sortPrefix(v: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const x = v[i]
    let j = i - 1
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j]
      j--
    }
    v[j + 1] = x
  }
}
