/**
 * Lookups that need no spatial search: a record by id or uid, a parcel's overlaps and their
 * summary (joins on the overlaps computed at build time), the parcels a record affects, the
 * attribute search and the coverage table.
 *
 * @module
 */
import {
  ENCUMBRANCE_CLASSES,
  LINE_CLASSES,
  RELATIONSHIPS,
  polygonsAsLines,
  type EncumbranceClass,
} from '../../data/encumbrance-format.js'
import { decodeGeometry } from '../../data/geometry-blob.js'
import type { BBox } from '../../geo/polygon.js'
import type { ParcelRef } from './parcels.js'
import { COLUMNS, toRow, type EncumbranceRow, type Overlap } from './records.js'
import type { EncumbranceStore } from './store.js'

export interface SearchFilters {
  province?: string
  classes?: EncumbranceClass[]
  easeType?: string
  easeTypeNormalised?: string
  /** Exact, or with `*` wildcards (validated by the schema: letters, digits, `/ - . space`). */
  sgNumber?: string
  /** `current` (default), `any`, or one status. */
  recordStatus: string
  bbox?: BBox
}

/** Rows an unanchored `sg_number` wildcard may scan per page (by id); the page then ends early with a cursor. */
export const SEARCH_SCAN_WINDOW = 200_000

/** Per class, the number of a parcel's overlaps, and the largest share of the parcel. */
export interface ParcelSummary {
  counts: Partial<Record<EncumbranceClass, number>>
  highestPct: number
}

export interface CoverageRow {
  province: string
  class: EncumbranceClass
  records: number
  current: number
  unspecified: number
  unlisted: number
  repaired: number
  rejected: number
  /** from the manifest (datasets built before the counts: 0) */
  reoriented: number
  duplicates: number
}

/** The record of an id (ids come from the indexes and overlaps: it exists). */
export function recordById(s: EncumbranceStore, id: number): EncumbranceRow {
  return toRow(s.st.byId.get(id) as unknown[])
}

export function recordByUid(s: EncumbranceStore, uid: number): EncumbranceRow | null {
  const r = s.st.byUid.get(uid) as unknown[] | undefined
  return r ? toRow(r) : null
}

/** The overlaps of a parcel, most impact first (share of the parcel, then overlap length), then by uid. */
export function overlapsOfParcel(s: EncumbranceStore, parcelId: number): { row: EncumbranceRow; overlap: Overlap }[] {
  const out = (s.st.overlapsOfParcel.all(parcelId) as unknown[][]).map((a) => {
    // relationship, overlap_sqm, overlap_m, pct, clip, clip_is_line, then COLUMNS
    const row = toRow(a, 6)
    const o: Overlap = { relationship: RELATIONSHIPS[a[0] as number] }
    const overlapSqm = a[1] as number | null
    if (LINE_CLASSES.has(row.cls)) {
      o.overlapSqm = overlapSqm
      o.overlapM = (a[2] as number | null) ?? 0
    } else o.overlapSqm = overlapSqm ?? 0
    if (a[3] !== null) o.pct = a[3] as number
    const clip = a[4] as Buffer | null
    if (clip) {
      const g = decodeGeometry(clip)
      o.clip = a[5] ? { lines: polygonsAsLines(g) } : { mp: g }
    }
    return { row, overlap: o }
  })
  return out.sort(
    (a, b) =>
      (b.overlap.pct ?? 0) - (a.overlap.pct ?? 0) ||
      (b.overlap.overlapM ?? 0) - (a.overlap.overlapM ?? 0) ||
      a.row.uid - b.row.uid,
  )
}

export function summaryOfParcel(s: EncumbranceStore, parcelId: number): ParcelSummary {
  const overlaps = s.st.overlapClasses.all(parcelId) as [number, number | null][]
  const classOfId = s.classOfId
  const perClass = new Uint32Array(ENCUMBRANCE_CLASSES.length)
  let highestPct = 0
  for (const [encId, pct] of overlaps) {
    const c = encId >= 1 && encId <= classOfId.length ? classOfId[encId - 1] : 0
    // a record in no class list (a dataset without one of the class indexes): ask SQLite
    if (c === 0) return summaryOfParcelBySql(s, parcelId)
    perClass[c - 1]++
    if (pct !== null && pct > highestPct) highestPct = pct
  }
  const counts: Partial<Record<EncumbranceClass, number>> = {}
  for (let c = 0; c < perClass.length; c++) if (perClass[c]) counts[ENCUMBRANCE_CLASSES[c]] = perClass[c]
  return { counts, highestPct }
}

const classOrder = (c: EncumbranceClass) => ENCUMBRANCE_CLASSES.indexOf(c)

/** {@link summaryOfParcel} with the classes read from the records' rows. */
export function summaryOfParcelBySql(s: EncumbranceStore, parcelId: number): ParcelSummary {
  const counts: Partial<Record<EncumbranceClass, number>> = {}
  let highestPct = 0
  const rows = s.st.summaryOfParcel.all(parcelId) as { class: EncumbranceClass; n: number; pct: number | null }[]
  rows.sort((a, b) => classOrder(a.class) - classOrder(b.class))
  for (const r of rows) {
    counts[r.class] = r.n
    if (r.pct !== null && r.pct > highestPct) highestPct = r.pct
  }
  return { counts, highestPct }
}

/** The current parcels a record meets (overlaps computed at build time), by parcel id. */
export function affectedParcels(s: EncumbranceStore, encId: number): { parcel: ParcelRef; overlap: Overlap }[] {
  const parcels = s.parcels
  if (!parcels) return []
  return (
    s.st.affected.all(encId) as {
      parcel_id: number
      relationship: number
      overlap_sqm: number | null
      overlap_m: number | null
      pct: number | null
    }[]
  ).map((a) => ({
    parcel: parcels.ref(a.parcel_id),
    overlap: {
      relationship: RELATIONSHIPS[a.relationship],
      overlapSqm: a.overlap_sqm,
      ...(a.overlap_m !== null ? { overlapM: a.overlap_m } : {}),
      ...(a.pct !== null ? { pct: a.pct } : {}),
    },
  }))
}

/** A `sg_number` wildcard pattern as a GLOB pattern and its literal prefix and suffix. */
export function sgPattern(p: string): { glob: string; prefix: string; suffix: string; exact: boolean } {
  const star = p.indexOf('*')
  if (star < 0) return { glob: p, prefix: p, suffix: p, exact: true }
  return { glob: p, prefix: p.slice(0, star), suffix: p.slice(p.lastIndexOf('*') + 1), exact: false }
}

/** A page of /search: filters in SQL (bound parameters only), by id after `afterId`. */
export function search(
  s: EncumbranceStore,
  f: SearchFilters,
  limit: number,
  afterId: number,
): { rows: EncumbranceRow[]; next: number | null; windowEnd: number | null } {
  const where: string[] = ['id > ?']
  const args: (string | number)[] = [afterId]
  if (f.province) {
    where.push('province = ?')
    args.push(f.province)
  }
  if (f.classes?.length) {
    where.push(`class IN (${f.classes.map(() => '?').join(', ')})`)
    args.push(...f.classes)
  }
  if (f.easeTypeNormalised) {
    where.push('ease_type_normalised = ?')
    args.push(f.easeTypeNormalised)
  }
  if (f.easeType !== undefined) {
    where.push('upper(trim(ease_type)) = ?')
    args.push(f.easeType.trim().toUpperCase())
  }
  if (f.recordStatus === 'current') where.push('record_status IS NULL')
  else if (f.recordStatus !== 'any') {
    where.push('record_status = ?')
    args.push(f.recordStatus)
  }
  if (f.bbox) {
    where.push('max_x >= ? AND min_x <= ? AND max_y >= ? AND min_y <= ?')
    args.push(f.bbox.minX, f.bbox.maxX, f.bbox.minY, f.bbox.maxY)
  }
  let windowEnd: number | null = null
  if (f.sgNumber !== undefined) {
    const p = sgPattern(f.sgNumber)
    if (p.exact) {
      where.push('sg_number = ?')
      args.push(p.glob)
    } else {
      // GLOB with a literal prefix uses the sg_number index (SQLite's LIKE/GLOB optimisation),
      // a literal suffix the index of the reversed number; neither: a window of ids per page
      where.push('sg_number GLOB ?')
      args.push(p.glob)
      if (!p.prefix && p.suffix) {
        where.push('sg_reversed GLOB ?')
        args.push([...p.suffix].reverse().join('') + '*')
      } else if (!p.prefix) {
        windowEnd = afterId + SEARCH_SCAN_WINDOW
        where.push('id <= ?')
        args.push(windowEnd)
      }
    }
  }
  const sql = `SELECT ${COLUMNS} FROM encumbrance WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`
  const raw = s.db
    .prepare(sql)
    .raw(true)
    .all(...args, limit + 1) as unknown[][]
  const rows = raw.slice(0, limit).map((a) => toRow(a))
  if (raw.length > limit) return { rows, next: rows[rows.length - 1].id, windowEnd: null }
  // a window that ended before the table did: the next page continues after it
  if (windowEnd !== null && windowEnd < s.maxId) return { rows, next: windowEnd, windowEnd }
  return { rows, next: null, windowEnd: null }
}

export function coverage(s: EncumbranceStore): CoverageRow[] {
  return (s.st.coverage.all() as Omit<CoverageRow, 'reoriented' | 'duplicates'>[]).map((r) => {
    const stats = s.layers[`${r.province}/${r.class}`]
    return { ...r, reoriented: stats?.reoriented ?? 0, duplicates: stats?.duplicates ?? 0 }
  })
}
