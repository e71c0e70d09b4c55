/**
 * Searches of the per-class Flatbush indexes: a page of current records meeting a box
 * (`/within`), and one class's records in a box (heat-map boundaries, tiles). Those at a point
 * (`/at`) are point-search.ts.
 *
 * A dimensioned line meets a box where its strip does (docs/decisions.md "Geometry tolerances"),
 * as `/at` and `/intersect` measure it: the index holds the strip's box (the build widens it,
 * build-encumbrances.ts, so no search here pads), and a candidate whose centreline misses the box
 * is tested on its strip (strip.ts, full precision: flat ends, so a box past an end within half a
 * width of the line is not met). The answers still carry the centreline.
 *
 * @module
 */
import { FLAG_NOT_CURRENT, type EncumbranceClass } from '../../data/encumbrance-format.js'
import { linesMeetBox } from '../../geo/lines.js'
import { intersectsBox, type BBox } from '../../geo/polygon.js'
import { recordById } from './lookups.js'
import { geometryOf, type Drawn, type EncumbranceRow, type StoredGeometry } from './records.js'
import type { EncumbranceStore } from './store.js'
import { stripOf } from './strip.js'

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

/**
 * The record's stored geometry when the record meets the box, else null: an area's polygons, an
 * undimensioned line's lines, a dimensioned line's strip (its centreline inside the box settles it
 * without building the strip).
 */
export function geometryInBox(s: EncumbranceStore, r: EncumbranceRow, b: BBox): StoredGeometry | null {
  const g = geometryOf(r)
  if (!('lines' in g)) return intersectsBox(g.mp, b) ? g : null
  if (linesMeetBox(g.lines, b)) return g
  const strip = stripOf(s, r)
  return strip && intersectsBox(strip, b) ? g : null
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
    const geometry = geometryInBox(s, r, b)
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
    const geometry = geometryInBox(s, r, b)
    if (!geometry) continue
    out.push({ row: r, geometry })
    if (out.length > max) break
  }
  return out
}
