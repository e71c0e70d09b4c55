/**
 * Parcels by place: those holding a point (as records, or written as bytes), the first of them
 * (the batch), the nearest within a distance, and those intersecting a box (paged by id).
 */
import { containsPointEncoded } from '../../data/geometry-blob.js'
import { SPECIFICITY } from '../../data/parcels-format.js'
import { beyondReach, degreesAround, metresPerDegree } from '../../geo/geodesic.js'
import { bboxOf, distanceToPointM, intersectsBox, type BBox } from '../../geo/polygon.js'
import { round } from '../../geo/round.js'
import type { JsonBytes } from '../../http/json-bytes.js'
import { accept, passes, type Filter } from './filter.js'
import { currentRow } from './lookups.js'
import { mostSpecificFirst, specificityOf } from './order.js'
import { toRecord, writeRecord, type ParcelRecord, type Row } from './records.js'
import type { ParcelStore } from './store.js'

/** The parcels at a point, most specific first, as an answer writes them (no record objects). */
export interface FoundParcels {
  readonly count: number
  /** Writes the records as a JSON array, the bytes `JSON.stringify` gives for `at()`. */
  write(w: JsonBytes): void
}

/** Whether candidate i holds the point: decided by the prefilter, else by its stored geometry. */
function holds(s: ParcelStore, i: number, lon: number, lat: number, inside: number[]): boolean {
  return inside.includes(i) || containsPointEncoded(s.st.geom.get(i + 1) as Buffer, lon, lat)
}

/** Index items (0-based) of the parcels whose closed polygon holds the point, filter applied. */
function containing(s: ParcelStore, lon: number, lat: number, f: Filter): number[] {
  const inside: number[] = []
  return s.points.candidates(lon, lat, f, inside).filter((i) => holds(s, i, lon, lat, inside))
}

/** Rows of every parcel containing the point (boundary included), most specific first. */
export function rowsAt(s: ParcelStore, lon: number, lat: number, f: Filter): Row[] {
  return mostSpecificFirst(containing(s, lon, lat, f).map((i) => s.rowOf(i + 1)))
}

/** Rows at a point written as a JSON array of records. */
export class FoundRows implements FoundParcels {
  readonly count: number

  constructor(
    private readonly rows: Row[],
    private readonly versionJson: string,
  ) {
    this.count = rows.length
  }

  write(w: JsonBytes): void {
    const rows = this.rows
    w.ascii('[')
    for (let k = 0; k < rows.length; k++) {
      if (k) w.ascii(',')
      writeRecord(w, rows[k], this.versionJson)
    }
    w.ascii(']')
  }
}

/**
 * The row `firstAt` answers with: the first of `rowsAt`, reading only the rows of the most
 * specific layer present (an LPI's versions share a layer, so the order among them is the same).
 */
export function firstRowAt(s: ParcelStore, lon: number, lat: number, f: Filter): Row | null {
  // candidates by layer specificity; the first level holding the point decides, so the
  // farm and portion beneath an erf are never read
  const sure: number[] = []
  const hits = s.points.candidates(lon, lat, f, sure).sort(s.bySpecificity)
  for (let k = 0; k < hits.length; ) {
    const level = specificityOf(s.flags, hits[k])
    const inside: number[] = []
    for (; k < hits.length && specificityOf(s.flags, hits[k]) === level; k++) {
      if (holds(s, hits[k], lon, lat, sure)) inside.push(hits[k])
    }
    if (inside.length === 1) return s.rowOf(inside[0] + 1)
    if (inside.length) return mostSpecificFirst(inside.map((i) => s.rowOf(i + 1)))[0]
  }
  return null
}

/** The closest parcel within `maxM` metres (boundary distance), obeying the filter; ties: most specific, then id. */
export function nearest(
  s: ParcelStore,
  lon: number,
  lat: number,
  maxM: number,
  f: Filter,
): (ParcelRecord & { distance_meters: number }) | null {
  // nothing to find far from every parcel (a pole, the sea): no search at all
  if (beyondReach(s.index, lon, lat, maxM)) return null
  const m = metresPerDegree(lat)
  const minScale = Math.min(m.lat, m.lon)
  const pad = degreesAround(lat, maxM)
  const maxDeg = Math.hypot(pad.lon, pad.lat)
  let best: { id: number; d: number } | null = null
  for (let k = 16; ; k *= 4) {
    const ids = s.index.neighbors(lon, lat, k, maxDeg, accept(s.flags, f))
    let stopped = false
    for (const i of ids) {
      const mp = s.geomOf(i + 1)
      const b = bboxOf(mp)
      const dx = Math.max(b.minX - lon, 0, lon - b.maxX)
      const dy = Math.max(b.minY - lat, 0, lat - b.maxY)
      if (best && Math.hypot(dx, dy) * minScale > best.d) {
        stopped = true
        break
      }
      const d = distanceToPointM(mp, lon, lat)
      if (d > maxM) continue
      if (!best || d < best.d || (d === best.d && tieBreak(s, i + 1, best.id) < 0)) best = { id: i + 1, d }
    }
    if (stopped || ids.length < k) break
  }
  if (!best) return null
  return { ...toRecord(s.rowOf(best.id), s.version), distance_meters: round(best.d, 2) }
}

function tieBreak(s: ParcelStore, a: number, b: number): number {
  const ra = s.rowOf(a)
  const rb = s.rowOf(b)
  return SPECIFICITY[ra.parcel_type] - SPECIFICITY[rb.parcel_type] || a - b
}

/** A page of parcels by id: the records, the last id served, whether another page exists. */
export interface ParcelPage {
  parcels: ParcelRecord[]
  lastId: number
  more: boolean
}

/** Parcels intersecting the box, by id, after `afterId`; `more` says whether another page exists. */
export function within(s: ParcelStore, box: BBox, afterId: number, pageSize: number, f: Filter): ParcelPage {
  return pageOf(s, idsInBox(s, box, afterId, f), box, afterId, pageSize, keepEvery)
}

/**
 * The current version of each LPI (the one `/parcels/{lpi}` lists first: lookups.ts), by id
 * after `afterId`: those meeting the box, or every one when `box` is null or holds every parcel
 * (a GIS client zoomed out to the whole country). Then they are read in id order straight from
 * the flags, no index search: a page costs its own rows, wherever it starts; a box that holds
 * only some parcels costs an index search and a sort of its hits per page. An LPI appears once,
 * so its LPI names the parcel (the OGC API collection's feature id).
 */
export function currentVersions(
  s: ParcelStore,
  box: BBox | null,
  afterId: number,
  pageSize: number,
  f: Filter,
): ParcelPage {
  const i = s.index
  const every = box === null || (box.minX <= i.minX && box.minY <= i.minY && box.maxX >= i.maxX && box.maxY >= i.maxY)
  const ids = every ? idsAfter(s, afterId, f) : idsInBox(s, box, afterId, f)
  return pageOf(s, ids, every ? null : box, afterId, pageSize, (r) => currentRow(s, r.lpi, f)?.id === r.id)
}

const keepEvery = () => true

/** Ids of the parcels whose box meets `box`, passing the filter, after `afterId`, ascending. */
function idsInBox(s: ParcelStore, box: BBox, afterId: number, f: Filter): number[] {
  const ids = s.index
    .search(box.minX, box.minY, box.maxX, box.maxY, accept(s.flags, f))
    .map((i) => i + 1)
    .filter((id) => id > afterId)
  return ids.sort((a, b) => a - b)
}

/** Ids of every parcel passing the filter after `afterId`, ascending, read as needed. */
function* idsAfter(s: ParcelStore, afterId: number, f: Filter): Generator<number> {
  for (let id = afterId + 1; id <= s.index.numItems; id++) if (passes(s.flags, f, id - 1)) yield id
}

/**
 * The first `pageSize` of `ids` whose row `keep`s and whose boundary meets `box` (any, when
 * null), as records; one more found means another page.
 */
function pageOf(
  s: ParcelStore,
  ids: Iterable<number>,
  box: BBox | null,
  afterId: number,
  pageSize: number,
  keep: (r: Row) => boolean,
): ParcelPage {
  const parcels: ParcelRecord[] = []
  let lastId = afterId
  for (const id of ids) {
    if (box !== null && !intersectsBox(s.geomOf(id), box)) continue
    // the row is read before the page is known to be full only when `keep` needs it
    const row = keep === keepEvery ? null : s.rowOf(id)
    if (row !== null && !keep(row)) continue
    if (parcels.length === pageSize) return { parcels, lastId, more: true }
    parcels.push(toRecord(row ?? s.rowOf(id), s.version))
    lastId = id
  }
  return { parcels, lastId, more: false }
}
