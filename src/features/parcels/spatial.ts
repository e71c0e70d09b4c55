/**
 * Parcels by place: those holding a point (as records, or written as bytes), the first of them
 * (the batch), the nearest within a distance, and those intersecting a box (paged by id).
 */
import { containsPointEncoded, intersectsBoxEncoded } from '../../data/geometry-blob.js'
import { SPECIFICITY } from '../../data/parcels-format.js'
import { beyondReach, degreesAround, metresPerDegree } from '../../geo/geodesic.js'
import { bboxOf, distanceToPointM, type BBox } from '../../geo/polygon.js'
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

/**
 * Parcels intersecting the box, by id, after `afterId`; `more` says whether another page exists.
 *
 * A parcel whose index box lies inside the query box intersects it without its geometry being
 * read (the index box is the parcel's own); the others are tested on their stored geometry as
 * encoded (intersectsBoxEncoded, the answer intersectsBox gives after decoding). Most of a
 * township box's erven are the first kind, and the farms and portions around them, which have
 * the most vertices, are never decoded.
 */
export function within(s: ParcelStore, box: BBox, afterId: number, pageSize: number, f: Filter): ParcelPage {
  const hits = boxHits(s, box, afterId, f)
  return pageOf(s, hits.ids, meetsBox(s, box, hits.inside), afterId, pageSize, keepEvery)
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
  const current = (r: Row) => currentRow(s, r.lpi, f)?.id === r.id
  if (every) return pageOf(s, idsAfter(s, afterId, f), meetsAny, afterId, pageSize, current)
  const hits = boxHits(s, box, afterId, f)
  return pageOf(s, hits.ids, meetsBox(s, box, hits.inside), afterId, pageSize, current)
}

const keepEvery = () => true
const meetsAny = () => true

/**
 * Ids of the parcels whose index box meets `box`, passing the filter, after `afterId`,
 * ascending; and those whose index box lies inside `box` (Flatbush hands each item's box to the
 * filter), which meet it whatever their shape.
 */
function boxHits(s: ParcelStore, box: BBox, afterId: number, f: Filter): { ids: number[]; inside: Set<number> } {
  const pass = accept(s.flags, f)
  const inside = new Set<number>()
  const ids: number[] = []
  s.index.search(box.minX, box.minY, box.maxX, box.maxY, (i, x0, y0, x1, y1) => {
    if (i + 1 <= afterId || !pass(i)) return false
    ids.push(i + 1)
    if (x0 >= box.minX && y0 >= box.minY && x1 <= box.maxX && y1 <= box.maxY) inside.add(i + 1)
    return false
  })
  return { ids: ids.sort((a, b) => a - b), inside }
}

/** Whether parcel `id`'s boundary meets `box`: at once for those `inside` it, else on its encoded geometry. */
function meetsBox(s: ParcelStore, box: BBox, inside: Set<number>): (id: number) => boolean {
  return (id) => inside.has(id) || intersectsBoxEncoded(s.st.geom.get(id) as Buffer, box)
}

/** Ids of every parcel passing the filter after `afterId`, ascending, read as needed. */
function* idsAfter(s: ParcelStore, afterId: number, f: Filter): Generator<number> {
  for (let id = afterId + 1; id <= s.index.numItems; id++) if (passes(s.flags, f, id - 1)) yield id
}

/**
 * The first `pageSize` of `ids` whose boundary `meets` the query and whose row `keep`s, as
 * records; one more found means another page.
 */
function pageOf(
  s: ParcelStore,
  ids: Iterable<number>,
  meets: (id: number) => boolean,
  afterId: number,
  pageSize: number,
  keep: (r: Row) => boolean,
): ParcelPage {
  const parcels: ParcelRecord[] = []
  let lastId = afterId
  for (const id of ids) {
    if (!meets(id)) continue
    // the row is read before the page is known to be full only when `keep` needs it
    const row = keep === keepEvery ? null : s.rowOf(id)
    if (row !== null && !keep(row)) continue
    if (parcels.length === pageSize) return { parcels, lastId, more: true }
    parcels.push(toRecord(row ?? s.rowOf(id), s.version))
    lastId = id
  }
  return { parcels, lastId, more: false }
}
