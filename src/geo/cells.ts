/**
 * Searching an index along a long, thin geometry (a corridor, a river, a 200 km route): its own
 * box would hold whole cities, so only the cells of a grid that the geometry meets are searched.
 * Cells are found by walking each segment's own cells (cost ~ length / cell), plus, for
 * polygons, the cells whose centre lies inside (cost ~ box cells × vertices, small for the
 * areas this is used for).
 */
import { linesBox, type Lines } from './lines.js'
import type { BBox, MultiPolygon } from './polygon.js'

/** Cell side in degrees (about 500 m). */
export const SEARCH_CELL_DEG = 0.005

const small = (b: BBox, cell: number) => b.maxX - b.minX <= cell * 2 && b.maxY - b.minY <= cell * 2

/**
 * Adds the cells segment a-b passes through to `out` (keys `cx,cy`), column by column: the
 * segment's y-range within each column of cells gives its cells there, so the cost is the cells
 * it crosses, not the cells of its box (a long diagonal edge would otherwise cost its box's
 * area). Ranges are widened by a hair, so a segment on a cell edge or through a corner takes
 * every cell it touches (a superset of the closed-box test, never fewer).
 */
function segmentCells(a: [number, number], b: [number, number], cell: number, out: Map<string, BBox>): void {
  const [ax, ay] = a[0] <= b[0] ? a : b
  const [bx, by] = a[0] <= b[0] ? b : a
  const eps = cell * 1e-9
  const x0 = Math.floor((ax - eps) / cell)
  const x1 = Math.floor((bx + eps) / cell)
  for (let cx = x0; cx <= x1; cx++) {
    // the part of the segment within this column
    const lo = Math.min(bx, Math.max(ax, cx * cell))
    const hi = Math.max(ax, Math.min(bx, (cx + 1) * cell))
    const yAt = (x: number) => (bx === ax ? ay : ay + ((by - ay) * (x - ax)) / (bx - ax))
    const ya = bx === ax ? Math.min(ay, by) : Math.min(yAt(lo), yAt(hi))
    const yb = bx === ax ? Math.max(ay, by) : Math.max(yAt(lo), yAt(hi))
    for (let cy = Math.floor((ya - eps) / cell); cy <= Math.floor((yb + eps) / cell); cy++) {
      const key = `${cx},${cy}`
      if (!out.has(key))
        out.set(key, { minX: cx * cell, minY: cy * cell, maxX: (cx + 1) * cell, maxY: (cy + 1) * cell })
    }
  }
}

/**
 * The work {@link cellsAlongLines} or {@link cellsOverPolygon} does for these rings or lines, in
 * cell steps: about the cells their edges cross (the columns and rows each edge spans). Callers
 * check it against a budget before building the cells, so the cost of a caller's geometry is
 * bounded by its limits, not by its shape.
 */
export function cellWork(parts: readonly (readonly [number, number][])[], cell = SEARCH_CELL_DEG): number {
  let work = 0
  for (const p of parts)
    for (let i = 0; i + 1 < p.length; i++)
      work += Math.abs(p[i + 1][0] - p[i][0]) / cell + Math.abs(p[i + 1][1] - p[i][1]) / cell + 2
  return work
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
  // read off one scanline per row of cells (even-odd crossings of every ring at the row's centre);
  // each edge adds its crossing to the rows it spans, so the cost is the rows edges span, not
  // rows x edges
  const row0 = Math.floor(box.minY / cell)
  const rows: number[][] = Array.from({ length: Math.floor(box.maxY / cell) - row0 + 1 }, () => [])
  for (const poly of mp)
    for (const ring of poly)
      for (let i = 0; i + 1 < ring.length; i++) {
        const [ax, ay] = ring[i]
        const [bx, by] = ring[i + 1]
        if (ay === by) continue
        const from = Math.ceil(Math.min(ay, by) / cell - 0.5 - 1e-12)
        const to = Math.floor(Math.max(ay, by) / cell - 0.5)
        for (let cy = Math.max(from, row0); cy <= to && cy - row0 < rows.length; cy++) {
          const y = (cy + 0.5) * cell
          if (ay > y !== by > y) rows[cy - row0].push(ax + ((y - ay) * (bx - ax)) / (by - ay))
        }
      }
  for (let r = 0; r < rows.length; r++) {
    const xs = rows[r].sort((a, b) => a - b)
    const cy = row0 + r
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
