/**
 * Searches of the per-class Flatbush indexes: a page of current records meeting a box
 * (`/within`), and one class's records in a box (heat-map boundaries, tiles). Those at a point
 * (`/at`) are point-search.ts.
 *
 * @module
 */
import { FLAG_NOT_CURRENT, type EncumbranceClass } from '../../data/encumbrance-format.js'
import type { BBox } from '../../geo/polygon.js'
import { recordById } from './lookups.js'
import { geometryInBox, type Drawn } from './records.js'
import type { EncumbranceStore } from './store.js'

const keepAll = () => true

/** Ids of current records of `classes` whose box meets `b`, filtered by `keep`, ascending. */
export function idsInBox(
  s: EncumbranceStore,
  b: BBox,
  classes: readonly EncumbranceClass[],
  keep: (id: number) => boolean = keepAll,
): number[] {
  const out: number[] = []
  const flags = s.flags
  for (const { cls, index, ids } of s.indexes) {
    if (!classes.includes(cls)) continue
    for (const i of index.search(b.minX, b.minY, b.maxX, b.maxY)) {
      const id = ids[i]
      if (!(flags[id - 1] & FLAG_NOT_CURRENT) && keep(id)) out.push(id)
    }
  }
  return out.sort((a, b2) => a - b2)
}

/** A page of current records meeting the box, by id after `afterId`. */
export function recordsWithin(
  s: EncumbranceStore,
  b: BBox,
  classes: readonly EncumbranceClass[],
  limit: number,
  afterId: number,
): { rows: Drawn[]; next: number | null } {
  const rows: Drawn[] = []
  for (const id of idsInBox(s, b, classes, (id) => id > afterId)) {
    const r = recordById(s, id)
    const geometry = geometryInBox(r, b)
    if (!geometry) continue
    if (rows.length === limit) return { rows, next: rows[rows.length - 1].row.id }
    rows.push({ row: r, geometry })
  }
  return { rows, next: null }
}

/** Current records of one class meeting a box, by id, at most `max` (+1 to tell truncation). */
export function recordsInBox(s: EncumbranceStore, cls: EncumbranceClass, b: BBox, max: number): Drawn[] {
  const out: Drawn[] = []
  for (const id of idsInBox(s, b, [cls])) {
    const r = recordById(s, id)
    const geometry = geometryInBox(r, b)
    if (!geometry) continue
    out.push({ row: r, geometry })
    if (out.length > max) break
  }
  return out
}
