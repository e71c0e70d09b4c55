import type Database from 'better-sqlite3'
import type Flatbush from 'flatbush'
import type { OpenDataset } from '../../data/open-dataset.js'
import {
  FLAG_HIDDEN,
  FLAG_LAYER_MASK,
  LEGAL_STATUS,
  PARCEL_FILES,
  PARCEL_LAYERS,
  PARCEL_TYPES,
  SPECIFICITY,
  WORK_STATUS,
  layerCode,
  type ParcelType,
} from '../../data/parcels-format.js'
import { lpiRowReader, sharedParcelFlags, sharedParcelIndex } from '../../data/parcel-readers.js'
import { containsPointEncoded, decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { PREFILTER_STRIDE, createPrefilter } from '../../data/parcels-prefilter.js'
import { PROVINCES, type ProvinceCode } from '../../data/provinces.js'
import { metresPerDegree } from '../../geo/geodesic.js'
import type { JsonBytes } from '../../http/json-bytes.js'
import { bboxOf, coversPolygon, distanceToPointM, intersectsBox, polygonDistanceM, type BBox } from '../../geo/polygon.js'
import { round } from '../../geo/round.js'

export interface ParcelRecord {
  id: number
  parcel_type: ParcelType
  province: string
  source_key?: string
  dataset_version: string
  lpi: string
  parcel_number?: number
  portion?: number
  tag_value?: string
  major_region?: string
  major_code?: string
  minor_region?: string
  minor_code?: string
  legal_status: { code: string; label: string }
  work_status?: { code: string; label: string }
  extent_sqm: number
  label_point: { latitude: number; longitude: number }
  date_stamp?: string
}

interface Row {
  id: number
  parcel_type: ParcelType
  province: ProvinceCode
  lpi: string
  source_key: string | null
  parcel_number: number | null
  portion: number | null
  tag_value: string | null
  major_region: string | null
  major_code: string | null
  minor_region: string | null
  minor_code: string | null
  lstatus: string
  wstatus: string | null
  extent_sqm: number
  label_lat: number
  label_lon: number
  date_stamp: string | null
  hidden: number
  /** true for rows held by the row cache (see rowOf): only those keep their record's JSON */
  cached?: boolean
  /** the record's JSON, kept on cached rows once written (see writeRecord) */
  json?: Uint8Array
}

/** The parcels at a point, most specific first, as an answer writes them (no record objects). */
export interface FoundParcels {
  readonly count: number
  /** Writes the records as a JSON array, the bytes `JSON.stringify` gives for `at()`. */
  write(w: JsonBytes): void
}

export interface Filter {
  /** include_status=all */
  all: boolean
  type?: ParcelType
}

const COLUMNS = `id, parcel_type, province, lpi, source_key, parcel_number, portion, tag_value, major_region, major_code,
  minor_region, minor_code, lstatus, wstatus, extent_sqm, label_lat, label_lon, date_stamp, hidden`
/**
 * COLUMNS less those known without SQLite (the id; parcel_type and hidden are in the flags): each
 * column read costs ~0.2 us a row.
 */
const ROW_COLUMNS = `province, lpi, source_key, parcel_number, portion, tag_value, major_region, major_code,
  minor_region, minor_code, lstatus, wstatus, extent_sqm, label_lat, label_lon, date_stamp`
const versionRank = (r: Row) => r.hidden * 10 + ({ C: 0, P: 1, H: 2 }[r.wstatus ?? 'C'] ?? 0)
/**
 * Versions of one LPI: visible first, then current (C or blank), proposed, historic; newest first
 * (no date last, as SQLite's `date_stamp DESC`); then by id. Sorted in JS: an `ORDER BY` made
 * SQLite build a temporary B-tree on every lookup.
 */
const byVersion = (a: Row, b: Row) => versionRank(a) - versionRank(b) || newerFirst(a.date_stamp ?? '', b.date_stamp ?? '') || a.id - b.id
/** Descending by code unit, as SQLite compares text ('' for no date: last). */
const newerFirst = (x: string, y: string) => (x === y ? 0 : x > y ? -1 : 1)
/** Ascending by code unit, as SQLite's BINARY collation orders these ASCII keys. */
const ascending = (x: string, y: string) => (x === y ? 0 : x < y ? -1 : 1)

/** Rows per generation of the shared-parcel row cache. */
const ROW_CACHE = 50_000


export type ParcelQueries = ReturnType<typeof createParcelQueries>

/** Parcel lookups over one open dataset; statements prepared once. */
export function createParcelQueries(ds: OpenDataset) {
  const manifest = ds.domain('parcels')!
  const version = manifest.dataset_version
  const loadedAt = new Date().toISOString()
  const db: Database.Database = ds.sqlite(PARCEL_FILES.sqlite)
  const index = sharedParcelIndex(ds)
  const flags = sharedParcelFlags(ds)
  // absent from datasets built before it: every candidate's geometry is then read
  const prefilter = ds.has(PARCEL_FILES.prefilter)
    ? loadPrefilter(new Uint8Array(ds.arrayBuffer(PARCEL_FILES.prefilter)), index.numItems)
    : null
  const st = {
    // raw arrays: better-sqlite3 builds row objects property by property, slower than the
    // literal in rowOf (3.8 vs 6.5 us a row at national scale)
    row: db.prepare(`SELECT ${ROW_COLUMNS} FROM parcel WHERE id = ?`).raw(true),
    geom: db.prepare('SELECT geom FROM parcel WHERE id = ?').pluck(),
    byKey: db.prepare(`SELECT ${COLUMNS} FROM parcel WHERE source_key = ?`),
    touching: db.prepare('SELECT neighbour_id, shared_m FROM neighbour WHERE parcel_id = ? ORDER BY neighbour_id'),
    // beacons and plans come unsorted and are sorted in JS (ring position, then beacon id; SG
    // number): an ORDER BY here made SQLite build a temporary B-tree per request
    beacons: db.prepare(
      `SELECT b.beacon_id, b.name, b.description, b.date_stamp, b.latitude, b.longitude, pb.ring_position
       FROM parcel_beacon pb JOIN beacon b ON b.id = pb.beacon_row WHERE pb.parcel_id = ?`,
    ),
    plans: db.prepare(
      `SELECT g.sg_number, g.description, g.date_stamp FROM parcel_general_plan pg JOIN general_plan g ON g.id = pg.plan_id
       WHERE pg.parcel_id = ?`,
    ),
    coverage: db.prepare('SELECT province, layer, records, repaired, rejected FROM coverage'),
  }

  // every version of an LPI, sorted in JS (byVersion)
  const rowsOfLpi = lpiRowReader<Row>(ds, db, COLUMNS, false)
  const passes = (f: Filter, i: number): boolean => {
    const fl = flags[i]
    if (!f.all && fl & FLAG_HIDDEN) return false
    if (f.type !== undefined && (fl & FLAG_LAYER_MASK) !== layerCode(f.type)) return false
    return true
  }
  const accept = (f: Filter) => (i: number) => passes(f, i)
  const geomOf = (id: number): MultiPolygon => decodeGeometry(st.geom.get(id) as Buffer)
  // rows of the large shared parcels (farms, portions, holdings, streets, public places) are read
  // again and again: every /at in a township returns its farm and portion. A two-generation cache
  // of them (O(1), at most 2 x ROW_CACHE rows, a few tens of MB) skips that read; erven, the
  // bulk of the cadastre and rarely repeated, are not cached
  const ERF = layerCode('ERF')
  let youngRows = new Map<number, Row>()
  let oldRows = new Map<number, Row>()
  const rowOf = (id: number): Row => {
    if ((flags[id - 1] & FLAG_LAYER_MASK) === ERF) return readRow(id)
    let r = youngRows.get(id) ?? oldRows.get(id)
    if (!r) {
      r = readRow(id)
      r.cached = true
    }
    if (youngRows.size >= ROW_CACHE) {
      oldRows = youngRows
      youngRows = new Map()
    }
    youngRows.set(id, r)
    return r
  }
  const readRow = (id: number): Row => {
    const a = st.row.get(id) as unknown[] | undefined
    if (!a) throw new Error(`parcel ${id} is in the index but not in ${PARCEL_FILES.sqlite}`)
    const fl = flags[id - 1]
    // the order of ROW_COLUMNS
    return {
      id,
      parcel_type: PARCEL_TYPES[fl & FLAG_LAYER_MASK],
      province: a[0] as ProvinceCode,
      lpi: a[1] as string,
      source_key: a[2] as string | null,
      parcel_number: a[3] as number | null,
      portion: a[4] as number | null,
      tag_value: a[5] as string | null,
      major_region: a[6] as string | null,
      major_code: a[7] as string | null,
      minor_region: a[8] as string | null,
      minor_code: a[9] as string | null,
      lstatus: a[10] as string,
      wstatus: a[11] as string | null,
      extent_sqm: a[12] as number,
      label_lat: a[13] as number,
      label_lon: a[14] as number,
      date_stamp: a[15] as string | null,
      hidden: fl & FLAG_HIDDEN ? 1 : 0,
      cached: false,
    }
  }
  /**
   * Index hits at a point that may hold it, filter applied: the prefilter drops the parcels it
   * proves do not hold the point and adds to `inside` those it proves do (their geometry need not
   * be read); the rest are undecided. One filter function for every search (no closure per
   * query): the search is synchronous, so the query's state can live here.
   */
  let hitLon = 0
  let hitLat = 0
  let hitFilter: Filter = { all: false }
  let hitInside: number[] = []
  const prefiltered =
    prefilter &&
    ((i: number, x0: number, y0: number, x1: number, y1: number): boolean => {
      if (!passes(hitFilter, i)) return false
      const r = prefilter(i, hitLon, hitLat, x0, y0, x1, y1)
      if (r > 0) hitInside.push(i)
      return r >= 0
    })
  const candidates = (lon: number, lat: number, f: Filter, inside: number[]): number[] => {
    if (!prefiltered) return index.search(lon, lat, lon, lat, accept(f))
    hitLon = lon
    hitLat = lat
    hitFilter = f
    hitInside = inside
    return index.search(lon, lat, lon, lat, prefiltered)
  }
  /** Whether candidate i holds the point: decided by the prefilter, else by its stored geometry. */
  const holds = (i: number, lon: number, lat: number, inside: number[]): boolean =>
    inside.includes(i) || containsPointEncoded(st.geom.get(i + 1) as Buffer, lon, lat)
  /** Index items (0-based) of the parcels whose closed polygon holds the point, filter applied. */
  const containing = (lon: number, lat: number, f: Filter): number[] => {
    const inside: number[] = []
    return candidates(lon, lat, f, inside).filter((i) => holds(i, lon, lat, inside))
  }
  // specificity by layer code, so sorting index hits needs no string lookups
  const levelOfCode = new Uint8Array(FLAG_LAYER_MASK + 1)
  PARCEL_TYPES.forEach((t, code) => (levelOfCode[code] = SPECIFICITY[t]))
  const specificityOf = (i: number) => levelOfCode[flags[i] & FLAG_LAYER_MASK]
  const bySpecificity = (a: number, b: number) => specificityOf(a) - specificityOf(b) || a - b

  function toRecord(r: Row): ParcelRecord {
    // fields in the order the spec lists them; absent fields are omitted, never null
    const p: Record<string, unknown> = { id: r.id, parcel_type: r.parcel_type, province: PROVINCES[r.province] }
    if (r.source_key) p.source_key = r.source_key
    p.dataset_version = version
    p.lpi = r.lpi
    if (r.parcel_number !== null) p.parcel_number = r.parcel_number
    if (r.portion !== null) p.portion = r.portion
    if (r.tag_value) p.tag_value = r.tag_value
    if (r.major_region) p.major_region = r.major_region
    if (r.major_code) p.major_code = r.major_code
    if (r.minor_region) p.minor_region = r.minor_region
    if (r.minor_code) p.minor_code = r.minor_code
    p.legal_status = { code: r.lstatus, label: LEGAL_STATUS[r.lstatus] ?? r.lstatus }
    if (r.wstatus) p.work_status = { code: r.wstatus, label: WORK_STATUS[r.wstatus] ?? r.wstatus }
    p.extent_sqm = round(r.extent_sqm, 2)
    p.label_point = { latitude: round(r.label_lat, 7), longitude: round(r.label_lon, 7) }
    if (r.date_stamp) p.date_stamp = r.date_stamp
    return p as unknown as ParcelRecord
  }

  const versionJson = JSON.stringify(version)
  /**
   * `JSON.stringify(toRecord(r))` written as bytes, field for field (a test holds the two equal).
   * Rows of the row cache (farms, portions and the other shared parcels, repeated in answer
   * after answer) keep their bytes, so they are written once per cache generation.
   */
  function writeRecord(w: JsonBytes, r: Row): void {
    if (r.json) {
      w.bytes(r.json)
      return
    }
    const mark = w.mark()
    w.ascii('{"id":').int(r.id).ascii(',"parcel_type":"').ascii(r.parcel_type).ascii('","province":').string(PROVINCES[r.province])
    if (r.source_key) w.ascii(',"source_key":').string(r.source_key)
    w.ascii(',"dataset_version":').ascii(versionJson).ascii(',"lpi":').string(r.lpi)
    if (r.parcel_number !== null) w.ascii(',"parcel_number":').int(r.parcel_number)
    if (r.portion !== null) w.ascii(',"portion":').int(r.portion)
    if (r.tag_value) w.ascii(',"tag_value":').string(r.tag_value)
    if (r.major_region) w.ascii(',"major_region":').string(r.major_region)
    if (r.major_code) w.ascii(',"major_code":').string(r.major_code)
    if (r.minor_region) w.ascii(',"minor_region":').string(r.minor_region)
    if (r.minor_code) w.ascii(',"minor_code":').string(r.minor_code)
    w.ascii(',"legal_status":{"code":').string(r.lstatus).ascii(',"label":').string(LEGAL_STATUS[r.lstatus] ?? r.lstatus).ascii('}')
    if (r.wstatus) w.ascii(',"work_status":{"code":').string(r.wstatus).ascii(',"label":').string(WORK_STATUS[r.wstatus] ?? r.wstatus).ascii('}')
    w.ascii(',"extent_sqm":').rounded(r.extent_sqm, 2)
    w.ascii(',"label_point":{"latitude":').rounded(r.label_lat, 7).ascii(',"longitude":').rounded(r.label_lon, 7).ascii('}')
    if (r.date_stamp) w.ascii(',"date_stamp":').string(r.date_stamp)
    w.ascii('}')
    // a row read for one answer only (an erf, a lookup by LPI) is not kept, so neither are its bytes
    if (r.cached) r.json = w.since(mark)
  }

  /** DECISIONS.md: most specific layer first; within a layer the smaller parcel; versions of one LPI current first. */
  function mostSpecificFirst(rows: Row[]): Row[] {
    // the usual answer: one row, or rows of distinct LPIs (no versions to order among them)
    if (rows.length < 2) return rows
    if (distinctLpis(rows)) return rows.sort(byLayerSizeId)
    const groups = new Map<string, Row[]>()
    for (const r of rows) {
      const g = groups.get(r.lpi)
      if (g) g.push(r)
      else groups.set(r.lpi, [r])
    }
    const list = [...groups.values()].map((g) => g.sort(byVersion))
    list.sort((a, b) => SPECIFICITY[a[0].parcel_type] - SPECIFICITY[b[0].parcel_type] || a[0].extent_sqm - b[0].extent_sqm || a[0].id - b[0].id)
    return list.flat()
  }

  function distinctLpis(rows: Row[]): boolean {
    for (let a = 1; a < rows.length; a++) for (let b = 0; b < a; b++) if (rows[a].lpi === rows[b].lpi) return false
    return true
  }
  function byLayerSizeId(a: Row, b: Row): number {
    return SPECIFICITY[a.parcel_type] - SPECIFICITY[b.parcel_type] || a.extent_sqm - b.extent_sqm || a.id - b.id
  }

  /** The row `firstAt` answers with (see there). */
  function firstRowAt(lon: number, lat: number, f: Filter): Row | null {
    // candidates by layer specificity; the first level holding the point decides, so the
    // farm and portion beneath an erf are never read
    const sure: number[] = []
    const hits = candidates(lon, lat, f, sure).sort(bySpecificity)
    for (let k = 0; k < hits.length; ) {
      const level = specificityOf(hits[k])
      const inside: number[] = []
      for (; k < hits.length && specificityOf(hits[k]) === level; k++) {
        if (holds(hits[k], lon, lat, sure)) inside.push(hits[k])
      }
      if (inside.length === 1) return rowOf(inside[0] + 1)
      if (inside.length) return mostSpecificFirst(inside.map((i) => rowOf(i + 1)))[0]
    }
    return null
  }

  function writeOrNull(w: JsonBytes, r: Row | null): boolean {
    if (!r) {
      w.ascii('null')
      return false
    }
    writeRecord(w, r)
    return true
  }

  function rowsAt(lon: number, lat: number, f: Filter): Row[] {
    return mostSpecificFirst(containing(lon, lat, f).map((i) => rowOf(i + 1)))
  }

  function visibleVersions(rows: Row[], f: Filter): Row[] {
    return f.all ? rows : rows.filter((r) => !r.hidden)
  }

  /** The current (first) visible version of an LPI, or null. */
  function current(lpi: string, f: Filter): Row | null {
    return visibleVersions(rowsOfLpi(lpi).sort(byVersion), f)[0] ?? null
  }

  return {
    version,
    asOf: manifest.as_of,
    loadedAt,
    toRecord,

    /** Every parcel containing the point (boundary included), most specific first. */
    at(lon: number, lat: number, f: Filter): ParcelRecord[] {
      return rowsAt(lon, lat, f).map(toRecord)
    },

    /** `at()` for an answer written as bytes: the same records in the same order, no objects. */
    found(lon: number, lat: number, f: Filter): FoundParcels {
      const rows = rowsAt(lon, lat, f)
      return {
        count: rows.length,
        write(w: JsonBytes) {
          w.ascii('[')
          for (let k = 0; k < rows.length; k++) {
            if (k) w.ascii(',')
            writeRecord(w, rows[k])
          }
          w.ascii(']')
        },
      }
    },

    /** The closest parcel within `maxM` metres (boundary distance), obeying the filter; ties: most specific, then id. */
    nearest(lon: number, lat: number, maxM: number, f: Filter): (ParcelRecord & { distance_meters: number }) | null {
      const m = metresPerDegree(lat)
      const minScale = Math.min(m.lat, m.lon)
      const maxDeg = maxM / minScale
      let best: { id: number; d: number } | null = null
      for (let k = 16; ; k *= 4) {
        const ids = index.neighbors(lon, lat, k, maxDeg, accept(f))
        let stopped = false
        for (const i of ids) {
          const mp = geomOf(i + 1)
          const b = bboxOf(mp)
          const dx = Math.max(b.minX - lon, 0, lon - b.maxX)
          const dy = Math.max(b.minY - lat, 0, lat - b.maxY)
          if (best && Math.hypot(dx, dy) * minScale > best.d) {
            stopped = true
            break
          }
          const d = distanceToPointM(mp, lon, lat)
          if (d > maxM) continue
          if (!best || d < best.d || (d === best.d && tieBreak(i + 1, best.id) < 0)) best = { id: i + 1, d }
        }
        if (stopped || ids.length < k) break
      }
      if (!best) return null
      return { ...toRecord(rowOf(best.id)), distance_meters: round(best.d, 2) }
    },

    /** Records of an LPI (current first); empty when none is visible. */
    byLpi(lpi: string, f: Filter): ParcelRecord[] {
      return visibleVersions(rowsOfLpi(lpi).sort(byVersion), f).map(toRecord)
    },

    bySourceKey(key: string, f: Filter): ParcelRecord[] {
      return visibleVersions((st.byKey.all(key) as Row[]).sort(byVersion), f).map(toRecord)
    },

    /** The current version's record and boundary. */
    geometry(lpi: string, f: Filter): { parcel: ParcelRecord; geometry: MultiPolygon } | null {
      const r = current(lpi, f)
      return r ? { parcel: toRecord(r), geometry: geomOf(r.id) } : null
    },

    /** Subject (current version) and its neighbours: touching from the precomputed table, or within a distance. */
    neighbours(lpi: string, mode: 'touching' | 'within', distanceM: number, limit: number, f: Filter) {
      const r = current(lpi, f)
      if (!r) return null
      const ok = accept({ all: f.all })
      const out: { parcel: ParcelRecord; distance_meters: number; shared_boundary_meters: number }[] = []
      if (mode === 'touching') {
        for (const n of st.touching.all(r.id) as { neighbour_id: number; shared_m: number }[]) {
          if (!ok(n.neighbour_id - 1)) continue
          out.push({ parcel: toRecord(rowOf(n.neighbour_id)), distance_meters: 0, shared_boundary_meters: n.shared_m })
        }
        out.sort((a, b) => b.shared_boundary_meters - a.shared_boundary_meters || a.parcel.id - b.parcel.id)
      } else {
        const mine = geomOf(r.id)
        const b = bboxOf(mine)
        const m = metresPerDegree((b.minY + b.maxY) / 2)
        const padX = (distanceM / m.lon) * 1.01
        const padY = (distanceM / m.lat) * 1.01
        const shared = new Map((st.touching.all(r.id) as { neighbour_id: number; shared_m: number }[]).map((n) => [n.neighbour_id, n.shared_m]))
        for (const i of index.search(b.minX - padX, b.minY - padY, b.maxX + padX, b.maxY + padY, ok)) {
          const id = i + 1
          if (id === r.id) continue
          const other = rowOf(id)
          if (other.lpi === r.lpi) continue
          const theirs = geomOf(id)
          if (coversPolygon(theirs, mine) || coversPolygon(mine, theirs)) continue
          const d = polygonDistanceM(mine, theirs)
          if (d > distanceM) continue
          out.push({ parcel: toRecord(other), distance_meters: round(d, 2), shared_boundary_meters: shared.get(id) ?? 0 })
        }
        out.sort((a, b2) => a.distance_meters - b2.distance_meters || a.parcel.id - b2.parcel.id)
      }
      return { parcel: toRecord(r), neighbours: out.slice(0, limit) }
    },

    beacons(lpi: string, f: Filter) {
      const r = current(lpi, f)
      if (!r) return null
      const rows = st.beacons.all(r.id) as { beacon_id: string; name: string | null; description: string | null; date_stamp: string | null; latitude: number; longitude: number; ring_position: number }[]
      rows.sort((a, b) => a.ring_position - b.ring_position || ascending(a.beacon_id, b.beacon_id))
      const beacons = rows.map((b) => ({
        beacon_id: b.beacon_id,
        ...(b.name ? { name: b.name } : {}),
        ...(b.description ? { description: b.description } : {}),
        latitude: round(b.latitude, 7),
        longitude: round(b.longitude, 7),
        ring_position: b.ring_position,
        ...(b.date_stamp ? { date_stamp: b.date_stamp } : {}),
      }))
      return { parcel: toRecord(r), beacons }
    },

    generalPlans(lpi: string, f: Filter) {
      const r = current(lpi, f)
      if (!r) return null
      const rows = st.plans.all(r.id) as { sg_number: string; description: string | null; date_stamp: string | null }[]
      rows.sort((a, b) => ascending(a.sg_number, b.sg_number))
      const plans = rows.map((g) => ({
        sg_number: g.sg_number,
        ...(g.description ? { description: g.description } : {}),
        ...(g.date_stamp ? { date_stamp: g.date_stamp } : {}),
      }))
      return { parcel: toRecord(r), general_plans: plans }
    },

    /** Parcels intersecting the box, by id, after `afterId`; `more` says whether another page exists. */
    within(box: BBox, afterId: number, pageSize: number, f: Filter): { parcels: ParcelRecord[]; lastId: number; more: boolean } {
      const ids = index.search(box.minX, box.minY, box.maxX, box.maxY, accept(f)).map((i) => i + 1).filter((id) => id > afterId)
      ids.sort((a, b) => a - b)
      const parcels: ParcelRecord[] = []
      let lastId = afterId
      for (const id of ids) {
        if (!intersectsBox(geomOf(id), box)) continue
        if (parcels.length === pageSize) return { parcels, lastId, more: true }
        parcels.push(toRecord(rowOf(id)))
        lastId = id
      }
      return { parcels, lastId, more: false }
    },

    coverage() {
      const rows = new Map((st.coverage.all() as { province: ProvinceCode; layer: string; records: number; repaired: number; rejected: number }[]).map((r) => [`${r.province}/${r.layer}`, r]))
      const layers = [...PARCEL_LAYERS.map((l) => l.type as string), 'BEACON', 'GENERAL_PLAN']
      const out = []
      for (const code of Object.keys(PROVINCES) as ProvinceCode[]) {
        for (const layer of layers) {
          const r = rows.get(`${code}/${layer}`)
          out.push({
            province: code,
            province_name: PROVINCES[code],
            layer,
            present: Boolean(r),
            records: r?.records ?? 0,
            geometries_repaired: r?.repaired ?? 0,
            rows_rejected: r?.rejected ?? 0,
            dataset_version: version,
            loaded_at: loadedAt,
          })
        }
      }
      return out
    },

    /**
     * Batch: the most specific published parcel at each point. The first answer of `at`, reading
     * only the rows of the most specific layer present (an LPI's versions share a layer, so the
     * order among them is the same as in `at`).
     */
    firstAt(lon: number, lat: number, f: Filter): ParcelRecord | null {
      const r = firstRowAt(lon, lat, f)
      return r ? toRecord(r) : null
    },

    /** Batch answers as bytes: `firstAt`'s record (or `null`) as JSON.stringify writes it; true when found. */
    writeFirstAt(w: JsonBytes, lon: number, lat: number, f: Filter): boolean {
      return writeOrNull(w, firstRowAt(lon, lat, f))
    },

    /** `currentRecord`'s record (or `null`) as JSON.stringify writes it; true when found. */
    writeCurrent(w: JsonBytes, lpi: string, f: Filter): boolean {
      return writeOrNull(w, current(lpi, f))
    },

    currentRecord(lpi: string, f: Filter): ParcelRecord | null {
      const r = current(lpi, f)
      return r ? toRecord(r) : null
    },
  }

  function tieBreak(a: number, b: number): number {
    const ra = rowOf(a)
    const rb = rowOf(b)
    return SPECIFICITY[ra.parcel_type] - SPECIFICITY[rb.parcel_type] || a - b
  }
}

/**
 * A listed file of the dataset read straight into a fresh (8-byte aligned) ArrayBuffer: one copy
 * from the page cache, where `ds.arrayBuffer` reads into a Buffer and copies that again. For the
 * 300 MB national Flatbush that saves ~0.2 s of start-up, more than the prefilter costs to load.
 */

/** The prefilter over the index's items; its size must match (one entry per parcel). */
function loadPrefilter(bytes: Uint8Array, items: number) {
  if (bytes.length !== items * PREFILTER_STRIDE) {
    throw new Error(`${PARCEL_FILES.prefilter} holds ${bytes.length} bytes, expected ${items * PREFILTER_STRIDE} for ${items} parcels`)
  }
  return createPrefilter(bytes)
}

export { PARCEL_TYPES }
