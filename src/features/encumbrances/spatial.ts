/**
 * Searches of the per-class Flatbush indexes: current records at a point (`/at`), a page of
 * those meeting a box (`/within`), and one class's records in a box (heat-map boundaries, tiles).
 *
 * @module
 */
import { FLAG_LINE, FLAG_NOT_CURRENT, type EncumbranceClass } from '../../data/encumbrance-format.js'
import { decodeGeometry } from '../../data/geometry-blob.js'
import { degreesAround } from '../../geo/geodesic.js'
import { distanceToLinesM } from '../../geo/lines.js'
import { distanceToPointM, type BBox } from '../../geo/polygon.js'
import { recordById } from './lookups.js'
import { areaOf, geometryInBox, lineOf, type Drawn, type EncumbranceRow } from './records.js'
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

/**
 * Current records within `radiusM` of the point (0: containing it), nearest first then by id.
 * A dimensioned line counts from the edge of its strip.
 */
export function recordsAt(
  s: EncumbranceStore,
  lon: number,
  lat: number,
  radiusM: number,
  classes: readonly EncumbranceClass[],
): { row: EncumbranceRow; distanceM: number }[] {
  // a dimensioned line is indexed by its strip's box (build-encumbrances.ts), so the radius is
  // the whole pad; bounded near a pole (degreesAround)
  const pad = degreesAround(lat, radiusM)
  const padX = pad.lon
  const padY = pad.lat
  const out: { row: EncumbranceRow; distanceM: number }[] = []
  for (const id of idsInBox(s, { minX: lon - padX, minY: lat - padY, maxX: lon + padX, maxY: lat + padY }, classes)) {
    const r = recordById(s, id)
    let d: number
    if (r.areaGeom) d = distanceToPointM(decodeGeometry(r.areaGeom), lon, lat)
    else if (s.flags[id - 1] & FLAG_LINE) d = distanceToLinesM(lineOf(r)!, lon, lat)
    else d = distanceToPointM(areaOf(r)!, lon, lat)
    if (d <= radiusM) out.push({ row: r, distanceM: d })
  }
  return out.sort((a, b) => a.distanceM - b.distanceM || a.row.id - b.row.id)
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
