/**
 * The geometry blob codec: how every domain of a dataset (parcels, encumbrances, jurisdiction)
 * stores a polygon or multipolygon in SQLite, written by build-index and read by the server.
 *
 * Blobs are little-endian Int32, coordinates scaled by 1e7 (the 7 decimals responses carry,
 * about 1 cm). Layout: polygon count, then per polygon its ring count, then per ring its position
 * count followed by x, y pairs. Rings are stored closed, exterior counter-clockwise, holes
 * clockwise (RFC 7946).
 */
import { metresPerDegree } from '../geo/geodesic.js'
import {
  type BBox,
  onSegment,
  pointSegmentM,
  segmentsCrossXY,
  type MultiPolygon,
  type Polygon,
  type Ring,
} from '../geo/polygon.js'

export type { MultiPolygon, Polygon, Ring }

/** Coordinates are stored as integers of 1e-7 degrees. */
export const COORD_SCALE = 1e7

export function encodeGeometry(mp: MultiPolygon): Buffer {
  let n = 1
  for (const poly of mp) {
    n += 1
    for (const ring of poly) n += 1 + ring.length * 2
  }
  const out = new Int32Array(n)
  let k = 0
  out[k++] = mp.length
  for (const poly of mp) {
    out[k++] = poly.length
    for (const ring of poly) {
      out[k++] = ring.length
      for (const [x, y] of ring) {
        out[k++] = Math.round(x * COORD_SCALE)
        out[k++] = Math.round(y * COORD_SCALE)
      }
    }
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
}

/** The blob as 32-bit integers: a view when it is 4-byte aligned, else a copy. */
export function int32View(blob: Uint8Array): Int32Array {
  return blob.byteOffset % 4 === 0
    ? new Int32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2)
    : new Int32Array(blob.slice().buffer)
}

/**
 * Closed-set point in polygon on an encoded geometry, without decoding it to arrays: the same
 * answer as `containsPoint(decodeGeometry(blob), x, y)` (vertices are divided back to degrees
 * exactly as decodeGeometry does), for the `/at` hot path.
 */
export function containsPointEncoded(blob: Uint8Array, x: number, y: number): boolean {
  const a = int32View(blob)
  let k = 0
  const np = a[k++]
  for (let p = 0; p < np; p++) {
    const nr = a[k++]
    let state = 1 // 1 in this polygon so far, -1 outside its shell or in a hole
    for (let r = 0; r < nr; r++) {
      const len = a[k++]
      const start = k
      k += 2 * len
      if (state !== 1) continue // past the decision for this polygon: skip the other rings
      let inside = false
      let onEdge = false
      for (let i = 0, j = len - 1; i < len; j = i++) {
        const xi = a[start + 2 * i] / COORD_SCALE
        const yi = a[start + 2 * i + 1] / COORD_SCALE
        const xj = a[start + 2 * j] / COORD_SCALE
        const yj = a[start + 2 * j + 1] / COORD_SCALE
        if (onSegment(x, y, xi, yi, xj, yj)) {
          onEdge = true
          break
        }
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
      }
      if (onEdge) return true
      // the shell must hold the point, a hole must not
      if (r === 0 ? !inside : inside) state = -1
    }
    if (state === 1) return true
  }
  return false
}

/**
 * Whether an encoded geometry and a box share a point (closed sets), without decoding it: the
 * same answer as `intersectsBox(decodeGeometry(blob), b)`, in the same three steps (a shell
 * vertex in the box, a box corner in the geometry, an edge crossing a side of the box), for the
 * box lookups, which test every candidate of a page.
 */
export function intersectsBoxEncoded(blob: Uint8Array, b: BBox): boolean {
  const a = int32View(blob)
  // shell vertices in the box
  let k = 0
  const np = a[k++]
  for (let p = 0; p < np; p++) {
    const nr = a[k++]
    for (let r = 0; r < nr; r++) {
      const len = a[k++]
      if (r === 0)
        for (let i = k, end = k + 2 * len; i < end; i += 2) {
          const x = a[i] / COORD_SCALE
          const y = a[i + 1] / COORD_SCALE
          if (x >= b.minX && x <= b.maxX && y >= b.minY && y <= b.maxY) return true
        }
      k += 2 * len
    }
  }
  const cx = [b.minX, b.maxX, b.maxX, b.minX]
  const cy = [b.minY, b.minY, b.maxY, b.maxY]
  for (let c = 0; c < 4; c++) if (containsPointEncoded(blob, cx[c], cy[c])) return true
  // an edge of any ring across a side of the box
  k = 1
  for (let p = 0; p < np; p++) {
    const nr = a[k++]
    for (let r = 0; r < nr; r++) {
      const len = a[k++]
      for (let i = k, end = k + 2 * (len - 1); i < end; i += 2) {
        const x0 = a[i] / COORD_SCALE
        const y0 = a[i + 1] / COORD_SCALE
        const x1 = a[i + 2] / COORD_SCALE
        const y1 = a[i + 3] / COORD_SCALE
        for (let c = 0; c < 4; c++) {
          const d = (c + 1) % 4
          if (segmentsCrossXY(x0, y0, x1, y1, cx[c], cy[c], cx[d], cy[d])) return true
        }
      }
      k += 2 * len
    }
  }
  return false
}

/**
 * Metres from a point to an encoded geometry, without decoding it: the same number as
 * `distanceToPointM(decodeGeometry(blob), x, y)` (0 inside or on it, else to the nearest edge;
 * vertices divided back to degrees as decodeGeometry does, the same segment distance).
 */
export function distanceToPointEncodedM(blob: Uint8Array, x: number, y: number): number {
  return containsPointEncoded(blob, x, y) ? 0 : edgeDistanceM(blob, x, y, false)
}

/**
 * Metres from a point to the lines of an encoded geometry (lines stored as one-ring polygons,
 * encumbrance-format.ts `linesAsPolygons`), without decoding it: the same number as
 * `distanceToLinesM(polygonsAsLines(decodeGeometry(blob)), x, y)`.
 */
export function distanceToLinesEncodedM(blob: Uint8Array, x: number, y: number): number {
  return edgeDistanceM(blob, x, y, true)
}

/** The least segment distance over every ring, or over the first ring of each polygon (lines). */
function edgeDistanceM(blob: Uint8Array, x: number, y: number, firstRings: boolean): number {
  const a = int32View(blob)
  const m = metresPerDegree(y)
  let best = Infinity
  let k = 0
  const np = a[k++]
  for (let p = 0; p < np; p++) {
    const nr = a[k++]
    for (let r = 0; r < nr; r++) {
      const len = a[k++]
      const start = k
      k += 2 * len
      if (firstRings && r > 0) continue
      for (let i = start, end = start + 2 * (len - 1); i < end; i += 2) {
        const d = pointSegmentM(
          x,
          y,
          a[i] / COORD_SCALE,
          a[i + 1] / COORD_SCALE,
          a[i + 2] / COORD_SCALE,
          a[i + 3] / COORD_SCALE,
          m.lon,
          m.lat,
        )
        if (d < best) best = d
      }
    }
  }
  return best
}

export function decodeGeometry(blob: Uint8Array): MultiPolygon {
  // a view where aligned: the arrays below copy every value out of it
  const a = int32View(blob)
  let k = 0
  const mp: MultiPolygon = []
  const np = a[k++]
  for (let p = 0; p < np; p++) {
    const poly: Polygon = []
    const nr = a[k++]
    for (let r = 0; r < nr; r++) {
      const len = a[k++]
      const ring: Ring = new Array(len)
      for (let i = 0; i < len; i++) {
        ring[i] = [a[k] / COORD_SCALE, a[k + 1] / COORD_SCALE]
        k += 2
      }
      poly.push(ring)
    }
    mp.push(poly)
  }
  return mp
}
