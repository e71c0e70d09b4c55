/**
 * Reads of the encumbrance domain (src/data/encumbrance-format.ts) and, for the parcel-facing
 * operations, of the parcel domain's files (the parcel feature itself is not imported; the
 * parcel index is shared through the dataset).
 *
 * Parcel operations are joins on the overlaps computed at build time; `/at`, `/within`, the
 * heat map and the tiles search the per-class Flatbush indexes; `/intersect` computes overlaps
 * with the caller's geometry on the fly.
 *
 * @module
 */
import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import {
  ENCUMBRANCE_CLASSES,
  ENCUMBRANCE_FILES,
  FLAG_LINE,
  FLAG_NOT_CURRENT,
  HEAT_CELL_DEG,
  LINE_CLASSES,
  RELATIONSHIPS,
  polygonsAsLines,
  type EncumbranceClass,
  type Relationship,
} from '../../data/encumbrance-format.js'
import type { OpenDataset } from '../../data/open-dataset.js'
import {
  FLAG_HIDDEN,
  FLAG_LAYER_MASK,
  PARCEL_FILES,
  PARCEL_TYPES,
  SPECIFICITY,
  layerCode,
  lpiRowReader,
  publishedVersion,
  sharedParcelFlags,
  sharedParcelIndex,
  type ParcelType,
} from '../../data/parcels-format.js'
import { containsPointEncoded, decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { metresPerDegree } from '../../geo/geodesic.js'
import { cellsAlongLines, cellsOverPolygon } from '../../geo/cells.js'
import { distanceToLinesM, linesMeetBox, segmentMeetsBox, type Lines } from '../../geo/lines.js'
import { lineLineOverlap, lineOverlap } from '../../geo/overlay/line-overlap.js'
import { areaSqm } from '../../geo/overlay/measure.js'
import { polygonOverlap } from '../../geo/overlay/polygon-overlap.js'
import { PreparedLines, PreparedPolygon } from '../../geo/overlay/prepared.js'
import { NEAR_BOX_M } from '../../geo/overlay/tolerance.js'
import { distanceToPointM, intersectsBox, type BBox } from '../../geo/polygon.js'
import { round } from '../../geo/round.js'

/** One row of `encumbrance`, as the queries use it. */
export interface EncumbranceRow {
  id: number
  uid: number
  cls: EncumbranceClass
  easeType: string
  easeTypeNormalised: string
  sgNumber: string | null
  province: string
  extentSqm: number | null
  lengthM: number | null
  widthM: number | null
  dateStamp: string | null
  recordStatus: string | null
  bbox: BBox
  geom: Buffer
  areaGeom: Buffer | null
}

/** Stored geometry: an area's polygons or a line's lines. */
export type StoredGeometry = { mp: MultiPolygon } | { lines: Lines }

/** A record with its decoded geometry. */
export interface Drawn {
  row: EncumbranceRow
  geometry: StoredGeometry
}

/** A parcel as the encumbrance answers name it. */
export interface ParcelRef {
  id: number
  lpi: string
  parcel_type: ParcelType
  province: string
  extent_sqm: number
}

/** How one encumbrance meets a parcel or the caller's geometry. */
export interface Overlap {
  relationship: Relationship
  overlapSqm?: number | null
  overlapM?: number
  pct?: number
  /** The clipped piece when the relationship is `crosses` (areas: polygons; lines: lines). */
  clip?: { mp: MultiPolygon } | { lines: Lines }
}

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
/** /intersect stops listing after this many parcels or encumbrances and says so. */
export const INTERSECT_MAX_PARCELS = 10_000
export const INTERSECT_MAX_ENCUMBRANCES = 5_000

const COLUMNS = `id, uid, class, ease_type, ease_type_normalised, sg_number, province, extent_sqm, length_m, width_m, date_stamp,
  record_status, min_x, min_y, max_x, max_y, geom, area_geom`

/**
 * A record from the raw array of a statement selecting COLUMNS from column `k` on: statements run
 * with `.raw(true)`, since better-sqlite3 builds a row object property by property, a third of
 * an encumbrance row's read (its 18 columns: 7.2 µs as an object against 5.4 µs as an array and
 * this literal, national scale).
 */
function toRow(a: unknown[], k = 0): EncumbranceRow {
  return {
    id: a[k] as number,
    uid: a[k + 1] as number,
    cls: a[k + 2] as EncumbranceClass,
    easeType: a[k + 3] as string,
    easeTypeNormalised: a[k + 4] as string,
    sgNumber: a[k + 5] as string | null,
    province: a[k + 6] as string,
    extentSqm: a[k + 7] as number | null,
    lengthM: a[k + 8] as number | null,
    widthM: a[k + 9] as number | null,
    dateStamp: a[k + 10] as string | null,
    recordStatus: a[k + 11] as string | null,
    bbox: { minX: a[k + 12] as number, minY: a[k + 13] as number, maxX: a[k + 14] as number, maxY: a[k + 15] as number },
    geom: a[k + 16] as Buffer,
    areaGeom: a[k + 17] as Buffer | null,
  }
}

/** A `sg_number` wildcard pattern as a GLOB pattern and its literal prefix and suffix. */
export function sgPattern(p: string): { glob: string; prefix: string; suffix: string; exact: boolean } {
  const star = p.indexOf('*')
  if (star < 0) return { glob: p, prefix: p, suffix: p, exact: true }
  return { glob: p, prefix: p.slice(0, star), suffix: p.slice(p.lastIndexOf('*') + 1), exact: false }
}

export type EncumbranceQueries = ReturnType<typeof createEncumbranceQueries>

export function createEncumbranceQueries(ds: OpenDataset) {
  const manifest = ds.domain('encumbrances')!
  const version = manifest.dataset_version
  const asOf = manifest.as_of
  const db: Database.Database = ds.sqlite(ENCUMBRANCE_FILES.sqlite)
  const flags = new Uint8Array(ds.arrayBuffer(ENCUMBRANCE_FILES.flags))
  const indexes = ENCUMBRANCE_CLASSES.flatMap((cls) =>
    ds.has(ENCUMBRANCE_FILES.flatbush(cls))
      ? [{ cls, index: Flatbush.from(ds.arrayBuffer(ENCUMBRANCE_FILES.flatbush(cls))), ids: new Uint32Array(ds.arrayBuffer(ENCUMBRANCE_FILES.ids(cls))) }]
      : [],
  )
  // the class of every record (index id - 1: 1 + its place in ENCUMBRANCE_CLASSES; 0 unknown),
  // from the per-class id lists, so a parcel's summary counts its overlaps by class without
  // reading each overlapping record's row (one random row read each, about half the summary)
  const classOfId = new Uint8Array(flags.length)
  for (const { cls, ids } of indexes) {
    const c = ENCUMBRANCE_CLASSES.indexOf(cls) + 1
    for (let k = 0; k < ids.length; k++) if (ids[k] >= 1 && ids[k] <= classOfId.length) classOfId[ids[k] - 1] = c
  }
  const st = {
    byId: db.prepare(`SELECT ${COLUMNS} FROM encumbrance WHERE id = ?`).raw(true),
    byUid: db.prepare(`SELECT ${COLUMNS} FROM encumbrance WHERE uid = ?`).raw(true),
    overlapsOfParcel: db.prepare(
      `SELECT o.relationship, o.overlap_sqm, o.overlap_m, o.pct, o.geom AS clip, o.clip_is_line, ${COLUMNS.replace(/(\w+)/g, 'e.$1')}
       FROM parcel_overlap o JOIN encumbrance e ON e.id = o.encumbrance_id WHERE o.parcel_id = ?`,
    ).raw(true),
    overlapClasses: db.prepare('SELECT encumbrance_id, pct FROM parcel_overlap WHERE parcel_id = ?').raw(true),
    summaryOfParcel: db.prepare(
      `SELECT e.class AS class, count(*) AS n, max(o.pct) AS pct FROM parcel_overlap o JOIN encumbrance e ON e.id = o.encumbrance_id
       WHERE o.parcel_id = ? GROUP BY e.class`,
    ),
    affected: db.prepare('SELECT parcel_id, relationship, overlap_sqm, overlap_m, pct FROM parcel_overlap WHERE encumbrance_id = ? ORDER BY parcel_id'),
    coverage: db.prepare('SELECT province, class, records, current, unspecified, unlisted, repaired, rejected FROM coverage ORDER BY province, class'),
  }
  const classOrder = (c: EncumbranceClass) => ENCUMBRANCE_CLASSES.indexOf(c)
  const lineOf = (r: EncumbranceRow): Lines | null => (LINE_CLASSES.has(r.cls) ? polygonsAsLines(decodeGeometry(r.geom)) : null)
  const areaOf = (r: EncumbranceRow): MultiPolygon | null => (LINE_CLASSES.has(r.cls) ? null : decodeGeometry(r.geom))

  // ---- parcels (read from the parcel domain's files)
  const hasParcels = ds.domain('parcels') !== null
  const parcelDb = hasParcels ? ds.sqlite(PARCEL_FILES.sqlite) : null
  const parcelIndex = hasParcels ? sharedParcelIndex(ds) : null
  const parcelFlags = hasParcels ? sharedParcelFlags(ds) : null
  const pst = parcelDb && {
    // every visible version; parcelByLpi picks one (see there)
    byLpi: lpiRowReader<ParcelRef & { wstatus: string | null }>(ds, parcelDb, 'id, lpi, parcel_type, province, extent_sqm, wstatus', true),
    // the parcel type comes from the flags; a raw array and one literal (see parcelRef)
    ref: parcelDb.prepare('SELECT lpi, province, extent_sqm FROM parcel WHERE id = ?').raw(true),
    geom: parcelDb.prepare('SELECT geom FROM parcel WHERE id = ?').pluck(),
  }
  const PARENT_FARM = layerCode('PARENT_FARM')

  /**
   * A parcel's reference by id (`/intersect` lists up to 10,000): read as a raw array, as an
   * object built property by property by better-sqlite3 cost about a third more.
   */
  function parcelRef(id: number): ParcelRef {
    const a = pst!.ref.get(id) as [string, string, number]
    return { id, lpi: a[0], parcel_type: PARCEL_TYPES[parcelFlags![id - 1] & FLAG_LAYER_MASK], province: a[1], extent_sqm: a[2] }
  }

  function parcelGeometry(id: number): MultiPolygon {
    return decodeGeometry(pst!.geom.get(id) as Buffer)
  }

  /** The current parcel of an LPI (the parcel service's default filter, publishedVersion), or null. */
  function parcelByLpi(lpi: string): ParcelRef | null {
    const p = pst && publishedVersion(pst.byLpi(lpi))
    return p ? { id: p.id, lpi: p.lpi, parcel_type: p.parcel_type, province: p.province, extent_sqm: p.extent_sqm } : null
  }

  /** The most specific current parcel holding the point (DECISIONS.md "most specific first"), or null. */
  function parcelAt(lon: number, lat: number): ParcelRef | null {
    if (!parcelIndex || !parcelFlags || !pst) return null
    const hits = parcelIndex.search(lon, lat, lon, lat, (i) => !(parcelFlags[i] & FLAG_HIDDEN))
    let best: { id: number; spec: number; area: number } | null = null
    for (const i of hits) {
      const spec = SPECIFICITY[PARCEL_TYPES[parcelFlags[i] & FLAG_LAYER_MASK]]
      if (best && spec > best.spec) continue
      const blob = pst.geom.get(i + 1) as Buffer
      if (!containsPointEncoded(blob, lon, lat)) continue
      const ref = parcelRef(i + 1)
      if (!best || spec < best.spec || ref.extent_sqm < best.area || (ref.extent_sqm === best.area && i + 1 < best.id)) best = { id: i + 1, spec, area: ref.extent_sqm }
    }
    return best ? parcelRef(best.id) : null
  }

  /** The overlaps of a parcel, most impact first (share of the parcel, then overlap length), then by uid. */
  function overlapsOfParcel(parcelId: number): { row: EncumbranceRow; overlap: Overlap }[] {
    const out = (st.overlapsOfParcel.all(parcelId) as unknown[][]).map((a) => {
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
    return out.sort((a, b) => (b.overlap.pct ?? 0) - (a.overlap.pct ?? 0) || (b.overlap.overlapM ?? 0) - (a.overlap.overlapM ?? 0) || a.row.uid - b.row.uid)
  }

  function summaryOfParcel(parcelId: number): { counts: Partial<Record<EncumbranceClass, number>>; highestPct: number } {
    const overlaps = st.overlapClasses.all(parcelId) as [number, number | null][]
    const perClass = new Uint32Array(ENCUMBRANCE_CLASSES.length)
    let highestPct = 0
    for (const [encId, pct] of overlaps) {
      const c = encId >= 1 && encId <= classOfId.length ? classOfId[encId - 1] : 0
      // a record in no class list (a dataset without one of the class indexes): ask SQLite
      if (c === 0) return summaryOfParcelBySql(parcelId)
      perClass[c - 1]++
      if (pct !== null && pct > highestPct) highestPct = pct
    }
    const counts: Partial<Record<EncumbranceClass, number>> = {}
    for (let c = 0; c < perClass.length; c++) if (perClass[c]) counts[ENCUMBRANCE_CLASSES[c]] = perClass[c]
    return { counts, highestPct }
  }

  /** {@link summaryOfParcel} with the classes read from the records' rows. */
  function summaryOfParcelBySql(parcelId: number): { counts: Partial<Record<EncumbranceClass, number>>; highestPct: number } {
    const counts: Partial<Record<EncumbranceClass, number>> = {}
    let highestPct = 0
    const rows = st.summaryOfParcel.all(parcelId) as { class: EncumbranceClass; n: number; pct: number | null }[]
    rows.sort((a, b) => classOrder(a.class) - classOrder(b.class))
    for (const r of rows) {
      counts[r.class] = r.n
      if (r.pct !== null && r.pct > highestPct) highestPct = r.pct
    }
    return { counts, highestPct }
  }

  function byUid(uid: number): EncumbranceRow | null {
    const r = st.byUid.get(uid) as unknown[] | undefined
    return r ? toRow(r) : null
  }

  function byId(id: number): EncumbranceRow {
    return toRow(st.byId.get(id) as unknown[])
  }

  function affectedParcels(encId: number): { parcel: ParcelRef; overlap: Overlap }[] {
    if (!pst) return []
    return (st.affected.all(encId) as { parcel_id: number; relationship: number; overlap_sqm: number | null; overlap_m: number | null; pct: number | null }[]).map((a) => ({
      parcel: parcelRef(a.parcel_id),
      overlap: {
        relationship: RELATIONSHIPS[a.relationship],
        overlapSqm: a.overlap_sqm,
        ...(a.overlap_m !== null ? { overlapM: a.overlap_m } : {}),
        ...(a.pct !== null ? { pct: a.pct } : {}),
      },
    }))
  }

  /** Ids of current records of `classes` whose box meets `b`, filtered by `keep`, ascending. */
  function idsInBox(b: BBox, classes: readonly EncumbranceClass[], keep: (id: number) => boolean = () => true): number[] {
    const out: number[] = []
    for (const { cls, index, ids } of indexes) {
      if (!classes.includes(cls)) continue
      for (const i of index.search(b.minX, b.minY, b.maxX, b.maxY)) {
        const id = ids[i]
        if (!(flags[id - 1] & FLAG_NOT_CURRENT) && keep(id)) out.push(id)
      }
    }
    return out.sort((a, b2) => a - b2)
  }

  /** The record's stored geometry: its surveyed lines, or its polygons. */
  function geometryOf(r: EncumbranceRow): StoredGeometry {
    const lines = lineOf(r)
    return lines ? { lines } : { mp: areaOf(r)! }
  }

  /** The record's geometry when it meets the box, else null (decoded once for the test and the answer). */
  function geometryInBox(r: EncumbranceRow, b: BBox): StoredGeometry | null {
    const g = geometryOf(r)
    return ('lines' in g ? linesMeetBox(g.lines, b) : intersectsBox(g.mp, b)) ? g : null
  }

  /**
   * Current records within `radiusM` of the point (0: containing it), nearest first then by id.
   * A dimensioned line counts from the edge of its strip.
   */
  function at(lon: number, lat: number, radiusM: number, classes: readonly EncumbranceClass[]): { row: EncumbranceRow; distanceM: number }[] {
    const m = metresPerDegree(lat)
    // the widest strip half-width in the data is well under 100 m; boxes are padded for it
    const padX = (radiusM + 100) / m.lon
    const padY = (radiusM + 100) / m.lat
    const out: { row: EncumbranceRow; distanceM: number }[] = []
    for (const id of idsInBox({ minX: lon - padX, minY: lat - padY, maxX: lon + padX, maxY: lat + padY }, classes)) {
      const r = byId(id)
      let d: number
      if (r.areaGeom) d = distanceToPointM(decodeGeometry(r.areaGeom), lon, lat)
      else if (flags[id - 1] & FLAG_LINE) d = distanceToLinesM(lineOf(r)!, lon, lat)
      else d = distanceToPointM(areaOf(r)!, lon, lat)
      if (d <= radiusM) out.push({ row: r, distanceM: d })
    }
    return out.sort((a, b) => a.distanceM - b.distanceM || a.row.id - b.row.id)
  }

  /** A page of current records meeting the box, by id after `afterId`. */
  function within(b: BBox, classes: readonly EncumbranceClass[], limit: number, afterId: number): { rows: Drawn[]; next: number | null } {
    const rows: Drawn[] = []
    for (const id of idsInBox(b, classes, (id) => id > afterId)) {
      const r = byId(id)
      const geometry = geometryInBox(r, b)
      if (!geometry) continue
      if (rows.length === limit) return { rows, next: rows[rows.length - 1].row.id }
      rows.push({ row: r, geometry })
    }
    return { rows, next: null }
  }

  /** A page of /search: filters in SQL (bound parameters only), by id after `afterId`. */
  function search(f: SearchFilters, limit: number, afterId: number): { rows: EncumbranceRow[]; next: number | null; windowEnd: number | null } {
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
    const raw = db.prepare(sql).raw(true).all(...args, limit + 1) as unknown[][]
    const rows = raw.slice(0, limit).map((a) => toRow(a))
    if (raw.length > limit) return { rows, next: rows[rows.length - 1].id, windowEnd: null }
    // a window that ended before the table did: the next page continues after it
    if (windowEnd !== null && windowEnd < maxId) return { rows, next: windowEnd, windowEnd }
    return { rows, next: null, windowEnd: null }
  }
  const maxId = (db.prepare('SELECT max(id) FROM encumbrance').pluck().get() as number | null) ?? 0

  /**
   * /intersect for a route (lines) or an area: the current encumbrances it meets, relationship
   * of each to the caller's geometry, and the current parcels except parent farms whose interior
   * it enters (DECISIONS.md "Encumbrances").
   */
  function intersect(geometry: { lines: Lines } | { mp: MultiPolygon }, classes: readonly EncumbranceClass[]) {
    const isRoute = 'lines' in geometry
    const prepLines = isRoute ? new PreparedLines(geometry.lines) : null
    const prepArea = isRoute ? null : new PreparedPolygon(geometry.mp)
    const boxes = isRoute ? cellsAlongLines(geometry.lines) : cellsOverPolygon(geometry.mp)

    const encIds = new Set<number>()
    if (isRoute) {
      // as for parcels below: only records whose box meets a piece of the route are read
      const pieces = routePieces(geometry.lines)
      for (const { cls, index, ids } of indexes) {
        if (!classes.includes(cls)) continue
        for (const [ax, ay, bx, by] of pieces) {
          const hit = (i: number, x0: number, y0: number, x1: number, y1: number) =>
            !(flags[ids[i] - 1] & FLAG_NOT_CURRENT) && segmentMeetsBox(ax, ay, bx, by, { minX: x0, minY: y0, maxX: x1, maxY: y1 })
          for (const i of index.search(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by), hit)) encIds.add(ids[i])
        }
      }
    } else {
      // and for an area, only records whose box it comes near (the cells along its edges hold
      // many that it does not reach)
      for (const { cls, index, ids } of indexes) {
        if (!classes.includes(cls)) continue
        const near = (i: number, x0: number, y0: number, x1: number, y1: number) =>
          !encIds.has(ids[i]) && !(flags[ids[i] - 1] & FLAG_NOT_CURRENT) && prepArea!.nearBox(x0, y0, x1, y1, NEAR_BOX_M)
        for (const b of boxes) for (const i of index.search(b.minX, b.minY, b.maxX, b.maxY, near)) encIds.add(ids[i])
      }
    }
    const encumbrances: { row: EncumbranceRow; overlap: Overlap }[] = []
    let encTruncated = false
    for (const id of [...encIds].sort((a, b) => a - b)) {
      const r = byId(id)
      const o = isRoute ? routeMeets(prepLines!, r) : areaMeets(prepArea!, geometry.mp, r)
      if (!o) continue
      if (encumbrances.length === INTERSECT_MAX_ENCUMBRANCES) {
        encTruncated = true
        break
      }
      encumbrances.push({ row: r, overlap: o })
    }

    const parcels: { parcel: ParcelRef; overlapM?: number; overlapSqm?: number }[] = []
    let parcelsTruncated = false
    if (parcelIndex && parcelFlags && pst) {
      const ok = (i: number) => !(parcelFlags[i] & FLAG_HIDDEN) && (parcelFlags[i] & FLAG_LAYER_MASK) !== PARENT_FARM
      // a route's candidates are the parcels whose box meets one of its pieces (not every parcel
      // of the 500 m cells it passes: in a township that is ten times as many geometry reads)
      const cands = new Set<number>()
      if (isRoute) {
        for (const [ax, ay, bx, by] of routePieces(geometry.lines)) {
          const hit = (i: number, x0: number, y0: number, x1: number, y1: number) => ok(i) && segmentMeetsBox(ax, ay, bx, by, { minX: x0, minY: y0, maxX: x1, maxY: y1 })
          for (const i of parcelIndex.search(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by), hit)) cands.add(i)
        }
      } else {
        const near = (i: number, x0: number, y0: number, x1: number, y1: number) => !cands.has(i) && ok(i) && prepArea!.nearBox(x0, y0, x1, y1, NEAR_BOX_M)
        for (const b of boxes) for (const i of parcelIndex.search(b.minX, b.minY, b.maxX, b.maxY, near)) cands.add(i)
      }
      for (const i of [...cands].sort((a, b) => a - b)) {
        const mp = parcelGeometry(i + 1)
        let item: { parcel: ParcelRef; overlapM?: number; overlapSqm?: number } | null = null
        if (prepLines) {
          const o = lineOverlap(prepLines, mp)
          if (o && o.relationship !== 'touches' && o.overlapM > 0) item = { parcel: parcelRef(i + 1), overlapM: round2(o.overlapM) }
        } else {
          const o = polygonOverlap(prepArea!, mp)
          if (o && o.relationship !== 'touches' && o.overlapSqm > 0) item = { parcel: parcelRef(i + 1), overlapSqm: round2(o.overlapSqm) }
        }
        if (!item) continue
        if (parcels.length === INTERSECT_MAX_PARCELS) {
          parcelsTruncated = true
          break
        }
        parcels.push(item)
      }
    }
    return {
      encumbrances,
      parcels,
      encTruncated,
      parcelsTruncated,
      lengthM: prepLines?.lengthM ?? null,
      areaSqm: prepArea?.areaSqm ?? null,
      parcelsAvailable: hasParcels,
    }
  }

  /** An encumbrance against a route: relationship of the encumbrance to the route, length along it. */
  function routeMeets(route: PreparedLines, r: EncumbranceRow): Overlap | null {
    const lines = lineOf(r)
    if (lines) {
      const o = lineLineOverlap(route, lines)
      if (!o) return null
      const out: Overlap = { relationship: o.relationship, overlapM: round2(o.overlapM) }
      if (!r.widthM) out.overlapSqm = null
      return out
    }
    const o = lineOverlap(route, areaOf(r)!)
    if (!o) return null
    // lineOverlap tells how the route lies in the area; the answer is the area's relation to the route
    const rel: Relationship = o.relationship === 'within' ? 'contains' : o.relationship
    return { relationship: rel, overlapM: round2(o.relationship === 'touches' ? o.boundaryM : o.overlapM) }
  }

  /** An encumbrance against an area: relationship of the encumbrance to the area, overlap in m² (and m for lines). */
  function areaMeets(area: PreparedPolygon, mp: MultiPolygon, r: EncumbranceRow): Overlap | null {
    const lines = lineOf(r)
    if (lines) {
      const o = lineOverlap(lines, mp)
      if (!o) return null
      if (o.relationship === 'touches') return { relationship: 'touches', overlapSqm: 0, overlapM: round2(o.boundaryM) }
      let sqm: number | null = null
      if (r.areaGeom) {
        const s = polygonOverlap(decodeGeometry(r.areaGeom), mp)
        sqm = s && s.relationship !== 'touches' ? round2(s.overlapSqm) : 0
      }
      return { relationship: o.relationship, overlapSqm: sqm, overlapM: round2(o.overlapM) }
    }
    const o = polygonOverlap(area, decodeGeometry(r.geom))
    // polygonOverlap(a, b) tells how the caller's area a lies to the record b; the answer is b's relation to a
    if (o && (o.relationship === 'within' || o.relationship === 'contains')) o.relationship = o.relationship === 'within' ? 'contains' : 'within'
    if (!o) return null
    return { relationship: o.relationship, overlapSqm: o.relationship === 'touches' ? 0 : round2(o.overlapSqm) }
  }

  /** Density cells: current records per cell of `k` × 0.01°, per class, inside the viewport. */
  const heatStmt = db.prepare('SELECT cx, cy, n FROM heat_cell WHERE class = ? AND cy BETWEEN ? AND ? AND cx BETWEEN ? AND ?')
  function heatCells(b: BBox, k: number, classes: readonly EncumbranceClass[]) {
    const cell = HEAT_CELL_DEG
    const cx0 = Math.floor(b.minX / cell)
    const cy0 = Math.floor(b.minY / cell)
    const cx1 = Math.floor(b.maxX / cell)
    const cy1 = Math.floor(b.maxY / cell)
    const cells = new Map<string, { gx: number; gy: number; count: number; byClass: Partial<Record<EncumbranceClass, number>> }>()
    for (const cls of classes) {
      for (const r of heatStmt.iterate(cls, cy0, cy1, cx0, cx1) as Iterable<{ cx: number; cy: number; n: number }>) {
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

  /** Current records of one class meeting a box, by id, at most `max` (+1 to tell truncation). */
  function inBox(cls: EncumbranceClass, b: BBox, max: number): Drawn[] {
    const out: Drawn[] = []
    for (const id of idsInBox(b, [cls])) {
      const r = byId(id)
      const geometry = geometryInBox(r, b)
      if (!geometry) continue
      out.push({ row: r, geometry })
      if (out.length > max) break
    }
    return out
  }

  function coverage() {
    return st.coverage.all() as { province: string; class: EncumbranceClass; records: number; current: number; unspecified: number; unlisted: number; repaired: number; rejected: number }[]
  }

  return {
    version,
    asOf,
    hasParcels,
    classes: indexes.map((i) => i.cls),
    parcelByLpi,
    parcelAt,
    parcelGeometry,
    parcelArea: (id: number) => areaSqm(parcelGeometry(id)),
    overlapsOfParcel,
    summaryOfParcel,
    summaryOfParcelBySql,
    byUid,
    affectedParcels,
    at,
    within,
    search,
    intersect,
    heatCells,
    inBox,
    coverage,
    lineOf,
    areaOf,
    geometryOf,
  }
}

const round2 = (v: number) => round(v, 2)

/** Longest piece of a route searched with one box, degrees (about 250 m: a longer diagonal's box holds too much). */
const ROUTE_PIECE_DEG = 0.0025

/** The route cut into pieces of at most ROUTE_PIECE_DEG, as [ax, ay, bx, by]. */
function routePieces(lines: Lines): [number, number, number, number][] {
  const out: [number, number, number, number][] = []
  for (const l of lines)
    for (let i = 0; i + 1 < l.length; i++) {
      const [ax, ay] = l[i]
      const [bx, by] = l[i + 1]
      const k = Math.max(1, Math.ceil(Math.max(Math.abs(bx - ax), Math.abs(by - ay)) / ROUTE_PIECE_DEG))
      for (let j = 0; j < k; j++) out.push([ax + ((bx - ax) * j) / k, ay + ((by - ay) * j) / k, ax + ((bx - ax) * (j + 1)) / k, ay + ((by - ay) * (j + 1)) / k])
    }
  return out
}

