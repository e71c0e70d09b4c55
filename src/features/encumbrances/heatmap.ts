/**
 * Density cells of the heat map: current records per cell of `k` × HEAT_CELL_DEG, per class,
 * summed from the `heat_cell` table counted at build time.
 *
 * @module
 */
import { HEAT_CELL_DEG, type EncumbranceClass } from '../../data/encumbrance-format.js'
import type { BBox } from '../../geo/polygon.js'
import type { EncumbranceStore } from './store.js'

/** One density cell: its column and row in cells of `k` × HEAT_CELL_DEG, and its counts. */
export interface HeatCell {
  gx: number
  gy: number
  count: number
  byClass: Partial<Record<EncumbranceClass, number>>
}

/** Density cells: current records per cell of `k` × 0.01°, per class, inside the viewport. */
export function heatCells(s: EncumbranceStore, b: BBox, k: number, classes: readonly EncumbranceClass[]): HeatCell[] {
  const cell = HEAT_CELL_DEG
  const cx0 = Math.floor(b.minX / cell)
  const cy0 = Math.floor(b.minY / cell)
  const cx1 = Math.floor(b.maxX / cell)
  const cy1 = Math.floor(b.maxY / cell)
  const cells = new Map<string, HeatCell>()
  for (const cls of classes) {
    for (const r of s.st.heatCells.iterate(cls, cy0, cy1, cx0, cx1) as Iterable<{
      cx: number
      cy: number
      n: number
    }>) {
      const gx = Math.floor(r.cx / k)
      const gy = Math.floor(r.cy / k)
      const key = `${gx},${gy}`
      let c = cells.get(key)
      if (!c) cells.set(key, (c = { gx, gy, count: 0, byClass: {} }))
      c.count += r.n
      c.byClass[cls] = (c.byClass[cls] ?? 0) + r.n
    }
  }
  return [...cells.values()]
}
