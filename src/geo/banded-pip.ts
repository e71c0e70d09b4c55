/**
 * Point-in-polygon for large polygons (municipal and province boundaries of thousands of
 * vertices), answered in about constant time: each polygon's edges are bucketed into horizontal
 * bands over its box, so a test reads only the edges whose y-span meets the point's band.
 *
 * Same closed-set answer as `containsPoint` in polygon.ts (a point within ON_EDGE_DEG of an
 * edge is inside; otherwise even-odd crossings over the polygon's rings, which for valid
 * polygons equals "in the shell and in no hole"), with the same floating-point tests.
 */
import { ON_EDGE_DEG, onSegment, type MultiPolygon } from './polygon.js'

/** Edges per band aimed for. */
const EDGES_PER_BAND = 4
const MAX_BANDS = 4096

interface BandedPart {
  minX: number
  minY: number
  maxX: number
  maxY: number
  /**
   * edge i runs (xy[4i], xy[4i + 1]) -> (xy[4i + 2], xy[4i + 3]): the four numbers of an edge
   * side by side (one cache line, where four arrays took four)
   */
  xy: Float64Array
  bands: number
  bandH: number
  /** CSR: edges of band k are edges[offsets[k] .. offsets[k + 1]) */
  offsets: Uint32Array
  edges: Uint32Array
}

export class BandedPolygon {
  private readonly parts: BandedPart[]

  constructor(mp: MultiPolygon) {
    this.parts = mp.map((poly) => {
      let n = 0
      for (const ring of poly) n += ring.length
      const xy = new Float64Array(4 * n)
      let e = 0
      let minX = Infinity
      let minY = Infinity
      let maxX = -Infinity
      let maxY = -Infinity
      for (const ring of poly) {
        // every edge i -> j of the ring, including the closing one, as containsPoint walks them
        for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
          xy[4 * e] = ring[i][0]
          xy[4 * e + 1] = ring[i][1]
          xy[4 * e + 2] = ring[j][0]
          xy[4 * e + 3] = ring[j][1]
          e++
          if (ring[i][0] < minX) minX = ring[i][0]
          if (ring[i][1] < minY) minY = ring[i][1]
          if (ring[i][0] > maxX) maxX = ring[i][0]
          if (ring[i][1] > maxY) maxY = ring[i][1]
        }
      }
      const bands = Math.max(1, Math.min(MAX_BANDS, Math.ceil(n / EDGES_PER_BAND)))
      const bandH = (maxY - minY) / bands || 1
      const bandOf = (y: number) => Math.max(0, Math.min(bands - 1, Math.floor((y - minY) / bandH)))
      const counts = new Uint32Array(bands + 1)
      const span = (i: number): [number, number] => {
        // widened by the on-edge tolerance so a point within it of an edge finds the edge
        const lo = Math.min(xy[4 * i + 1], xy[4 * i + 3]) - 2 * ON_EDGE_DEG
        const hi = Math.max(xy[4 * i + 1], xy[4 * i + 3]) + 2 * ON_EDGE_DEG
        return [bandOf(lo), bandOf(hi)]
      }
      for (let i = 0; i < n; i++) {
        const [b0, b1] = span(i)
        for (let b = b0; b <= b1; b++) counts[b + 1]++
      }
      for (let b = 0; b < bands; b++) counts[b + 1] += counts[b]
      const offsets = counts.slice()
      const fill = counts.slice(0, bands)
      const edges = new Uint32Array(offsets[bands])
      for (let i = 0; i < n; i++) {
        const [b0, b1] = span(i)
        for (let b = b0; b <= b1; b++) edges[fill[b]++] = i
      }
      return { minX, minY, maxX, maxY, xy, bands, bandH, offsets, edges }
    })
  }

  /** Closed-set containment. */
  contains(x: number, y: number): boolean {
    const tol = 2 * ON_EDGE_DEG
    for (const p of this.parts) {
      if (x < p.minX - tol || x > p.maxX + tol || y < p.minY - tol || y > p.maxY + tol) continue
      const band = Math.max(0, Math.min(p.bands - 1, Math.floor((y - p.minY) / p.bandH)))
      let inside = false
      const xy = p.xy
      for (let k = p.offsets[band], end = p.offsets[band + 1]; k < end; k++) {
        const e = 4 * p.edges[k]
        const xi = xy[e]
        const yi = xy[e + 1]
        const xj = xy[e + 2]
        const yj = xy[e + 3]
        if (onSegment(x, y, xi, yi, xj, yj)) return true
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
      }
      if (inside) return true
    }
    return false
  }
}
