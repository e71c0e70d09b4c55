/**
 * The parcel prefilter (`parcels/parcels.prefilter.u8`): per parcel a few bytes, kept in memory,
 * that answer most point-in-parcel tests without reading the geometry from SQLite.
 *
 * Flatbush hits a point to every parcel whose box holds it; at national scale most of those do
 * not hold the point (a street ring's box covers the whole block it surrounds, a rotated erf's box
 * its neighbours' corners), and each SQLite geometry read costs about 2 us. The prefilter
 * describes each parcel, relative to its Flatbush box, by
 *
 * - an oriented box: an angle θ in [0°, 90°) and the parcel's extent along the rotated axes
 *   u = x cos θ + y sin θ, v = y cos θ - x sin θ (rounded outwards); a point outside it is outside
 *   the parcel;
 * - one inner box in the same rotated frame (rounded inwards) that no edge of the parcel crosses,
 *   marked as inside (the parcel holds all of it) or outside (e.g. the hole of a street ring).
 *
 * Everything is at least {@link PREFILTER_MARGIN_DEG} from the parcel's boundary, far more than
 * the rounding of these sums or of the ray-casting test, so a decided answer is always the one
 * `containsPointEncoded` gives on the stored geometry (closed set: the boundary is inside);
 * anything else (points near an edge) is left undecided and read from SQLite.
 *
 * Layout: {@link PREFILTER_STRIDE} bytes per parcel, item i (= Flatbush item, parcel id i + 1) at
 * byte i * stride:
 *
 * | byte | meaning |
 * |---|---|
 * | 0 | θ: the angle is θ / 256 · 90° |
 * | 1 | inner box kind: 0 none, 1 inside the parcel, 2 outside it |
 * | 2, 3 | oriented box along u: its low and high side, in 255ths of the u range of the Flatbush box's corners [U0, U1]
 * (low = U0 + b2 · du, high = U1 - (255 - b3) · du, du = (U1 - U0) / 255: 0 and 255 are the Flatbush box's own sides) |
 * | 4, 5 | the same along v |
 * | 6, 7 | inner box along u, in 255ths of the oriented box's u range (from its low side) |
 * | 8, 9 | the same along v |
 *
 * A parcel the writer cannot describe safely gets θ 0, oriented box 0 255 0 255 and no inner box:
 * always undecided. The reader takes the Flatbush box from the index search, so the file holds no
 * coordinates of its own.
 *
 * This module holds the layout and the reader; the writer (`describeParcel`, the search for the
 * boxes) is parcels-prefilter-writer.ts, and both derive the thresholds with {@link thresholds}.
 */

export const PREFILTER_STRIDE = 10
/** Distance (degrees, about 11 cm) every decided region keeps from the parcel's boundary. */
export const PREFILTER_MARGIN_DEG = 1e-6

export const PREFILTER_OUTSIDE = -1
export const PREFILTER_UNKNOWN = 0
export const PREFILTER_INSIDE = 1
export type PrefilterAnswer = -1 | 0 | 1

/** Byte 1's values (the writer's, parcels-prefilter-writer.ts, and the reader's below). */
export const KIND_NONE = 0
export const KIND_INSIDE = 1
export const KIND_OUTSIDE = 2

/** cos and sin of the 256 angles, computed the same way by writer and reader. */
export const COS = new Float64Array(256)
export const SIN = new Float64Array(256)
for (let q = 0; q < 256; q++) {
  const a = (q / 256) * (Math.PI / 2)
  COS[q] = Math.cos(a)
  SIN[q] = Math.sin(a)
}

/**
 * The thresholds both sides derive from the bytes: oriented box (uLo, uHi, vLo, vHi) from the
 * Flatbush box, inner box from the oriented box. One function, so writer and reader compute
 * bit-identical values.
 */
export function thresholds(
  d: Uint8Array,
  o: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  out: Float64Array,
): void {
  const c = COS[d[o]]
  const s = SIN[d[o]]
  // c, s >= 0: the box's corners with the least and greatest u and v
  const U0 = x0 * c + y0 * s
  const U1 = x1 * c + y1 * s
  const V0 = y0 * c - x1 * s
  const V1 = y1 * c - x0 * s
  const du = (U1 - U0) / 255
  const dv = (V1 - V0) / 255
  // counted from the nearer end, so that 0 and 255 give the box's own sides exactly
  const uLo = U0 + d[o + 2] * du
  const uHi = U1 - (255 - d[o + 3]) * du
  const vLo = V0 + d[o + 4] * dv
  const vHi = V1 - (255 - d[o + 5]) * dv
  const da = (uHi - uLo) / 255
  const db = (vHi - vLo) / 255
  out[0] = uLo
  out[1] = uHi
  out[2] = vLo
  out[3] = vHi
  out[4] = uLo + d[o + 6] * da
  out[5] = uLo + d[o + 7] * da
  out[6] = vLo + d[o + 8] * db
  out[7] = vLo + d[o + 9] * db
}

/**
 * Reader: answers for item `i` at (x, y), which must lie in the item's Flatbush box (x0, y0, x1,
 * y1): -1 outside the parcel, 1 inside (boundary included), 0 undecided (read the geometry).
 */
export function createPrefilter(
  d: Uint8Array,
): (i: number, x: number, y: number, x0: number, y0: number, x1: number, y1: number) => PrefilterAnswer {
  return (i, x, y, x0, y0, x1, y1) => {
    const o = i * PREFILTER_STRIDE
    const c = COS[d[o]]
    const s = SIN[d[o]]
    // as in thresholds(), inlined: this runs for every index hit. A point in the box has
    // U0 <= u <= U1 and V0 <= v <= V1 (rounding is monotonic), so sides at 0 or 255 reject nothing
    const U0 = x0 * c + y0 * s
    const U1 = x1 * c + y1 * s
    const du = (U1 - U0) / 255
    const u = x * c + y * s
    const uLo = U0 + d[o + 2] * du
    const uHi = U1 - (255 - d[o + 3]) * du
    if (u < uLo || u > uHi) return PREFILTER_OUTSIDE
    const V0 = y0 * c - x1 * s
    const V1 = y1 * c - x0 * s
    const dv = (V1 - V0) / 255
    const v = y * c - x * s
    const vLo = V0 + d[o + 4] * dv
    const vHi = V1 - (255 - d[o + 5]) * dv
    if (v < vLo || v > vHi) return PREFILTER_OUTSIDE
    const kind = d[o + 1]
    if (kind === KIND_NONE) return PREFILTER_UNKNOWN
    const da = (uHi - uLo) / 255
    if (u < uLo + d[o + 6] * da || u > uLo + d[o + 7] * da) return PREFILTER_UNKNOWN
    const db = (vHi - vLo) / 255
    if (v < vLo + d[o + 8] * db || v > vLo + d[o + 9] * db) return PREFILTER_UNKNOWN
    return kind === KIND_INSIDE ? PREFILTER_INSIDE : PREFILTER_OUTSIDE
  }
}
