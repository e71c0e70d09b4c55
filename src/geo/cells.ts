/**
 * Searching an index along a long, thin geometry (a corridor, a river, a 200 km route): its own
 * box would hold whole cities, so only the cells of a grid that the geometry meets are searched.
 * Cells are found by walking each segment's own cells (cost ~ length / cell), plus, for
 * polygons, the cells whose centre lies inside (cost ~ box cells × vertices, small for the
 * areas this is used for).
 */
import { linesBox, segmentMeetsBox, type Lines } from './lines.js'
import type { BBox, MultiPolygon } from './polygon.js'

/** Cell side in degrees (about 500 m). */
export const SEARCH_CELL_DEG = 0.005

const small = (b: BBox, cell: number) => b.maxX - b.minX <= cell * 2 && b.maxY - b.minY <= cell * 2

/** Adds the cells segment a-b passes through to `out` (keys `cx,cy`). */
function segmentCells(a: [number, number], b: [number, number], cell: number, out: Map<string, BBox>): void {
  const x0 = Math.floor(Math.min(a[0], b[0]) / cell)
  const x1 = Math.floor(Math.max(a[0], b[0]) / cell)
  const y0 = Math.floor(Math.min(a[1], b[1]) / cell)
  const y1 = Math.floor(Math.max(a[1], b[1]) / cell)
  for (let cy = y0; cy <= y1; cy++)
    for (let cx = x0; cx <= x1; cx++) {
      const key = `${cx},${cy}`
      if (out.has(key)) continue
      const box = { minX: cx * cell, minY: cy * cell, maxX: (cx + 1) * cell, maxY: (cy + 1) * cell }
      if (segmentMeetsBox(a[0], a[1], b[0], b[1], box)) out.set(key, box)
    }
}

/** Boxes covering the lines: their own box when small, else the grid cells they pass through. */
export function cellsAlongLines(lines: Lines, cell = SEARCH_CELL_DEG): BBox[] {
  const box = linesBox(lines)
  if (small(box, cell)) return [box]
  const out = new Map<string, BBox>()
  for (const l of lines) for (let i = 0; i + 1 < l.length; i++) segmentCells(l[i], l[i + 1], cell, out)
  return [...out.values()]
}

/**
 * Boxes covering the polygons: their own box when small, else the cells their rings pass through and the cells inside
 * them.
 */
export function cellsOverPolygon(mp: MultiPolygon, cell = SEARCH_CELL_DEG): BBox[] {
  const box = linesBox(mp.map((p) => p[0]))
  if (small(box, cell)) return [box]
  const out = new Map<string, BBox>()
  for (const poly of mp)
    for (const ring of poly) for (let i = 0; i + 1 < ring.length; i++) segmentCells(ring[i], ring[i + 1], cell, out)
  // cells no edge passes through are wholly inside or wholly outside: their centre tells which,
  // read off one scanline per row of cells (even-odd crossings of every ring at the row's centre)
  const xs: number[] = []
  for (let cy = Math.floor(box.minY / cell); cy <= Math.floor(box.maxY / cell); cy++) {
    const y = (cy + 0.5) * cell
    xs.length = 0
    for (const poly of mp)
      for (const ring of poly)
        for (let i = 0; i + 1 < ring.length; i++) {
          const [ax, ay] = ring[i]
          const [bx, by] = ring[i + 1]
          if (ay > y !== by > y) xs.push(ax + ((y - ay) * (bx - ax)) / (by - ay))
        }
    xs.sort((a, b) => a - b)
    for (let k = 0; k + 1 < xs.length; k += 2) {
      for (let cx = Math.ceil(xs[k] / cell - 0.5); (cx + 0.5) * cell <= xs[k + 1]; cx++) {
        const key = `${cx},${cy}`
        if (!out.has(key))
          out.set(key, { minX: cx * cell, minY: cy * cell, maxX: (cx + 1) * cell, maxY: (cy + 1) * cell })
      }
    }
  }
  return [...out.values()]
}
