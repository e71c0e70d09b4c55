/**
 * The parcel domain: the six cadastre layers of every province, beacons and General Plans, to one
 * SQLite file + a Flatbush over every parcel + a flags array + the point prefilter
 * (parcels-prefilter.ts), with what the endpoints need precomputed (touching neighbours, beacon
 * ring positions, General Plan links, coverage ledger).
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Flatbush from 'flatbush'
import KDBush from 'kdbush'
import type { DomainManifest, LayerStats } from '../src/data/manifest.js'
import {
  FLAG_HIDDEN,
  PARCEL_FILES,
  PARCEL_LAYERS,
  decodeGeometry,
  encodeGeometry,
  layerCode,
  type MultiPolygon,
} from '../src/data/parcels-format.js'
import { PREFILTER_STRIDE, describeParcel } from '../src/data/parcels-prefilter.js'
import { provinceCode, type ProvinceCode } from '../src/data/provinces.js'
import { metresPerDegree } from '../src/geo/geodesic.js'
import { bboxOf, containsPoint, coversPolygon, locatePoint, sharedBoundaryM } from '../src/geo/polygon.js'
import { countLines, createProgress } from './progress.js'
import type { RejectLog } from './reject-log.js'
import { findLayerFile, readLayer } from './sources/read-layer.js'
import { normaliseDate, normaliseParcel, normalisePolygonGeometry } from './transform/parcels.js'
import type { DatasetWriter } from './write/dataset-writer.js'
import { GrowableF64 } from './write/growable.js'
import { finishDb, openScratchDb } from './write/sqlite-writer.js'

/** Beacons attach to boundaries passing within this distance (SOURCE-FORMATS.md). */
const BEACON_SNAP_M = 0.5
/** Shared boundary shorter than this is a vertex contact, not touching. */
const MIN_SHARED_M = 0.001

/** Province folders of the export, resolved to codes, in code order (ids follow source order; the PostGIS bench loads in the same order). */
export function provinceDirs(cadastre: string): { code: ProvinceCode; dir: string }[] {
  let names: string[]
  try {
    names = readdirSync(cadastre)
  } catch {
    return []
  }
  const out: { code: ProvinceCode; dir: string }[] = []
  for (const name of names.sort()) {
    const dir = join(cadastre, name)
    if (!statSync(dir).isDirectory()) continue
    const code = provinceCode(name)
    if (code) out.push({ code, dir })
  }
  return out.sort((a, b) => a.code.localeCompare(b.code))
}


export async function buildParcels(
  source: string,
  ds: DatasetWriter,
  rejects: RejectLog,
  exportInfo: { export_id: string; as_of: string },
  log: (line: string) => void,
): Promise<DomainManifest | null> {
  const cadastre = join(source, 'south_africa', 'cadastre')
  const provinces = provinceDirs(cadastre)
  if (!provinces.length) return null

  const scratch = ds.pathOf(PARCEL_FILES.sqlite + '.scratch')
  const db = openScratchDb(scratch)
  db.exec(`
    CREATE TABLE parcel (
      id INTEGER PRIMARY KEY, parcel_type TEXT NOT NULL, province TEXT NOT NULL, lpi TEXT NOT NULL, source_key TEXT,
      parcel_number INTEGER, portion INTEGER, tag_value TEXT, major_region TEXT, major_code TEXT, minor_region TEXT, minor_code TEXT,
      lstatus TEXT NOT NULL, wstatus TEXT, extent_sqm REAL NOT NULL, label_lat REAL NOT NULL, label_lon REAL NOT NULL, date_stamp TEXT,
      hidden INTEGER NOT NULL, geom BLOB NOT NULL);
    CREATE TABLE neighbour (parcel_id INTEGER NOT NULL, neighbour_id INTEGER NOT NULL, shared_m REAL NOT NULL, PRIMARY KEY (parcel_id, neighbour_id)) WITHOUT ROWID;
    CREATE TABLE neighbour_pass (a INTEGER NOT NULL, b INTEGER NOT NULL, shared_m REAL NOT NULL);
    CREATE TABLE beacon (id INTEGER PRIMARY KEY, beacon_id TEXT NOT NULL, name TEXT, description TEXT, date_stamp TEXT, latitude REAL NOT NULL, longitude REAL NOT NULL);
    CREATE TABLE parcel_beacon (parcel_id INTEGER NOT NULL, beacon_row INTEGER NOT NULL, ring_position REAL NOT NULL, PRIMARY KEY (parcel_id, ring_position, beacon_row)) WITHOUT ROWID;
    CREATE TABLE general_plan (id INTEGER PRIMARY KEY, sg_number TEXT NOT NULL, description TEXT, date_stamp TEXT, province TEXT NOT NULL, geom BLOB NOT NULL);
    CREATE TABLE parcel_general_plan (parcel_id INTEGER NOT NULL, plan_id INTEGER NOT NULL, PRIMARY KEY (parcel_id, plan_id)) WITHOUT ROWID;
    CREATE TABLE coverage (province TEXT NOT NULL, layer TEXT NOT NULL, records INTEGER NOT NULL, repaired INTEGER NOT NULL, rejected INTEGER NOT NULL, PRIMARY KEY (province, layer)) WITHOUT ROWID;
  `)
  const insert = db.prepare(`INSERT INTO parcel VALUES (@id, @type, @province, @lpi, @sourceKey, @parcelNumber, @portion, @tagValue, @majorRegion, @majorCode,
    @minorRegion, @minorCode, @lstatus, @wstatus, @extentSqm, @labelLat, @labelLon, @dateStamp, @hidden, @geom)`)
  const insertCoverage = db.prepare('INSERT INTO coverage VALUES (?, ?, ?, ?, ?)')
  const boxes = new GrowableF64()
  let flags = new Uint8Array(1 << 16)
  let prefilter = new Uint8Array((1 << 16) * PREFILTER_STRIDE)
  const layers: Record<string, LayerStats> = {}
  let n = 0
  let totalRepaired = 0

  db.exec('BEGIN')
  for (const { code, dir } of provinces) {
    for (const layer of PARCEL_LAYERS) {
      const file = findLayerFile(dir, layer.file)
      if (!file) continue
      const name = `parcels/${code}/${layer.file}`
      const progress = createProgress(name, await countLines(file))
      let rows = 0
      let repaired = 0
      for await (const row of readLayer(file, { pointLayer: false })) {
        progress.tick()
        if (!row.ok) {
          rejects.reject(name, row.ref, row.reason)
          continue
        }
        const r = normaliseParcel(row.properties, row.geometry, layer.type, code)
        if (!r.ok) {
          rejects.reject(name, row.ref, r.reason)
          continue
        }
        n++
        rows++
        if (r.repaired) repaired++
        const rec = r.rec
        const b = bboxOf(rec.geometry)
        boxes.push4(b.minX, b.minY, b.maxX, b.maxY)
        if (n > flags.length) {
          const f = new Uint8Array(flags.length * 2)
          f.set(flags)
          flags = f
        }
        flags[n - 1] = layerCode(rec.type) | (rec.hidden ? FLAG_HIDDEN : 0)
        const geom = encodeGeometry(rec.geometry)
        if (n * PREFILTER_STRIDE > prefilter.length) {
          const p = new Uint8Array(prefilter.length * 2)
          p.set(prefilter)
          prefilter = p
        }
        // described against the box the Flatbush index will hold (the same doubles)
        describeParcel(geom, b.minX, b.minY, b.maxX, b.maxY, prefilter, (n - 1) * PREFILTER_STRIDE)
        insert.run({
          id: n,
          type: rec.type,
          province: rec.province,
          lpi: rec.lpi,
          sourceKey: rec.sourceKey,
          parcelNumber: rec.parcelNumber,
          portion: rec.portion,
          tagValue: rec.tagValue,
          majorRegion: rec.majorRegion,
          majorCode: rec.majorCode,
          minorRegion: rec.minorRegion,
          minorCode: rec.minorCode,
          lstatus: rec.lstatus,
          wstatus: rec.wstatus,
          extentSqm: rec.extentSqm,
          labelLat: rec.labelLat,
          labelLon: rec.labelLon,
          dateStamp: rec.dateStamp,
          hidden: rec.hidden ? 1 : 0,
          geom,
        })
      }
      progress.done(`${rows} parcels, ${repaired} repaired, ${rejects.count(name)} rejected`)
      insertCoverage.run(code, layer.type, rows, repaired, rejects.count(name))
      layers[`${code}/${layer.file}`] = { rows, rejected: rejects.count(name), repaired }
      totalRepaired += repaired
    }
  }
  db.exec('COMMIT')
  if (n === 0) {
    db.close()
    return null
  }

  const index = new Flatbush(n, 16, Float64Array)
  for (let i = 0; i < n; i++) index.add(boxes.a[i * 4], boxes.a[i * 4 + 1], boxes.a[i * 4 + 2], boxes.a[i * 4 + 3])
  index.finish()

  // ---- beacons and General Plans
  const beacons = await loadBeacons(provinces, db, rejects, layers, insertCoverage)
  const plans = await loadGeneralPlans(provinces, db, rejects, layers, insertCoverage)

  // ---- one pass over every parcel: touching neighbours, beacon positions, General Plan links
  const getGeom = db.prepare('SELECT geom, lpi FROM parcel WHERE id = ?')
  // a two-generation cache: when the young map fills it becomes the old one and the previous old
  // one is dropped. O(1) per lookup. (Evicting the oldest entry of one Map with
  // keys().next() walks the deleted slots at the front of V8's table on every miss: at national
  // scale that made the pass ~8 times slower per parcel than at sample scale.)
  type Cached = { mp: MultiPolygon; lpi: string }
  let young = new Map<number, Cached>()
  let old = new Map<number, Cached>()
  const geomOf = (id: number): Cached => {
    let g = young.get(id)
    if (g) return g
    g = old.get(id)
    if (!g) {
      const row = getGeom.get(id) as { geom: Buffer; lpi: string }
      g = { mp: decodeGeometry(row.geom), lpi: row.lpi }
    }
    if (young.size >= 100_000) {
      old = young
      young = new Map()
    }
    young.set(id, g)
    return g
  }
  // pairs are appended once (a < b) while the pass runs; both directions go into the keyed table
  // in key order at the end (inserting b -> a as found is a random B-tree insert per pair,
  // which at national scale, 13 M pairs, dominated the pass)
  const insNeighbour = db.prepare('INSERT INTO neighbour_pass VALUES (?, ?, ?)')
  const insBeacon = db.prepare('INSERT OR IGNORE INTO parcel_beacon VALUES (?, ?, ?)')
  const insPlan = db.prepare('INSERT OR IGNORE INTO parcel_general_plan VALUES (?, ?)')
  const progress = createProgress('parcels/relations', n)
  let pairs = 0
  db.exec('BEGIN')
  for (let id = 1; id <= n; id++) {
    progress.tick()
    const me = geomOf(id)
    const i = id - 1
    const hits = index.search(boxes.a[i * 4], boxes.a[i * 4 + 1], boxes.a[i * 4 + 2], boxes.a[i * 4 + 3])
    for (const j of hits) {
      const other = j + 1
      if (other <= id) continue
      const them = geomOf(other)
      if (them.lpi === me.lpi) continue
      const shared = sharedBoundaryM(me.mp, them.mp)
      if (shared < MIN_SHARED_M) continue
      // a parcel never neighbours one that contains it or that it contains
      if (coversPolygon(me.mp, them.mp) || coversPolygon(them.mp, me.mp)) continue
      const s = Math.round(shared * 100) / 100
      insNeighbour.run(id, other, s)
      pairs++
    }
    if (beacons) attachBeacons(id, me.mp, beacons, insBeacon)
    if (plans) linkPlans(id, me.mp, plans, insPlan)
  }
  db.exec(`INSERT INTO neighbour SELECT a, b, shared_m FROM neighbour_pass UNION ALL SELECT b, a, shared_m FROM neighbour_pass ORDER BY 1, 2;
    DROP TABLE neighbour_pass;`)
  db.exec('COMMIT')
  progress.done(`${pairs} touching pairs`)

  db.exec(`
    CREATE INDEX parcel_lpi ON parcel (lpi);
    CREATE INDEX parcel_source_key ON parcel (source_key);
  `)
  finishDb(db, scratch, ds.pathOf(PARCEL_FILES.sqlite))
  ds.addFile(PARCEL_FILES.sqlite, 'sqlite')
  ds.writeBinary(PARCEL_FILES.flatbush, 'flatbush', new Uint8Array(index.data))
  ds.writeBinary(PARCEL_FILES.flags, 'u8', flags.subarray(0, n))
  ds.writeBinary(PARCEL_FILES.prefilter, 'u8', prefilter.subarray(0, n * PREFILTER_STRIDE))
  log(`parcels: ${n} records, ${totalRepaired} geometries repaired, ${pairs} touching pairs`)
  return { dataset_version: exportInfo.export_id, as_of: exportInfo.as_of, layers }
}

interface BeaconSet {
  index: KDBush
  xy: Float64Array
  rows: Int32Array
}

async function loadBeacons(
  provinces: { code: ProvinceCode; dir: string }[],
  db: ReturnType<typeof openScratchDb>,
  rejects: RejectLog,
  layers: Record<string, LayerStats>,
  insertCoverage: { run: (...a: unknown[]) => unknown },
): Promise<BeaconSet | null> {
  const ins = db.prepare('INSERT INTO beacon VALUES (?, ?, ?, ?, ?, ?, ?)')
  const xy: number[] = []
  let row = 0
  db.exec('BEGIN')
  for (const { code, dir } of provinces) {
    const file = findLayerFile(dir, 'beacon')
    if (!file) continue
    const name = `parcels/${code}/beacon`
    let count = 0
    for await (const r of readLayer(file, { pointLayer: true })) {
      if (!r.ok) {
        rejects.reject(name, r.ref, r.reason)
        continue
      }
      const g = r.geometry
      const id = r.properties.beacon_id
      if (!g || g.type !== 'Point') {
        rejects.reject(name, r.ref, 'beacon geometry is not a Point')
        continue
      }
      if (id === null || id === undefined || String(id).trim() === '') {
        rejects.reject(name, r.ref, 'beacon_id is blank')
        continue
      }
      row++
      count++
      const [x, y] = g.coordinates
      ins.run(row, String(id).trim(), r.properties.name ?? null, r.properties.description ?? null, normaliseDate(r.properties.date_stamp), y, x)
      xy.push(x, y)
    }
    insertCoverage.run(code, 'BEACON', count, 0, rejects.count(name))
    layers[`${code}/beacon`] = { rows: count, rejected: rejects.count(name), repaired: 0 }
  }
  db.exec('COMMIT')
  if (!row) return null
  const index = new KDBush(row, 64, Float64Array)
  for (let i = 0; i < row; i++) index.add(xy[i * 2], xy[i * 2 + 1])
  index.finish()
  return { index, xy: Float64Array.from(xy), rows: Int32Array.from({ length: row }, (_, i) => i + 1) }
}

/** Beacons within 0.5 m of the parcel's exterior ring(s), with the fraction of ring length at which they sit. */
function attachBeacons(id: number, mp: MultiPolygon, b: BeaconSet, ins: { run: (...a: unknown[]) => unknown }): void {
  const m = metresPerDegree(mp[0][0][0][1])
  const padX = (BEACON_SNAP_M * 2) / m.lon
  const padY = (BEACON_SNAP_M * 2) / m.lat
  // exterior rings of every polygon, measured as one path (ring_position from the first vertex)
  const rings = mp.map((p) => p[0])
  let total = 0
  for (const r of rings) for (let i = 0; i < r.length - 1; i++) total += Math.hypot((r[i + 1][0] - r[i][0]) * m.lon, (r[i + 1][1] - r[i][1]) * m.lat)
  if (total === 0) return
  let along = 0
  const seen = new Set<number>()
  for (const r of rings) {
    for (let i = 0; i < r.length - 1; i++) {
      const [ax, ay] = r[i]
      const [bx, by] = r[i + 1]
      const segLen = Math.hypot((bx - ax) * m.lon, (by - ay) * m.lat)
      const hits = b.index.range(Math.min(ax, bx) - padX, Math.min(ay, by) - padY, Math.max(ax, bx) + padX, Math.max(ay, by) + padY)
      for (const h of hits) {
        if (seen.has(h)) continue
        const px = b.xy[h * 2]
        const py = b.xy[h * 2 + 1]
        const dx = (bx - ax) * m.lon
        const dy = (by - ay) * m.lat
        const qx = (px - ax) * m.lon
        const qy = (py - ay) * m.lat
        const len2 = dx * dx + dy * dy
        let t = len2 === 0 ? 0 : (qx * dx + qy * dy) / len2
        t = t < 0 ? 0 : t > 1 ? 1 : t
        if (Math.hypot(qx - t * dx, qy - t * dy) > BEACON_SNAP_M) continue
        seen.add(h)
        const pos = Math.min(1, (along + t * segLen) / total)
        ins.run(id, b.rows[h], Math.round(pos * 1e6) / 1e6)
      }
      along += segLen
    }
  }
}

interface PlanSet {
  index: Flatbush
  geoms: MultiPolygon[]
}

async function loadGeneralPlans(
  provinces: { code: ProvinceCode; dir: string }[],
  db: ReturnType<typeof openScratchDb>,
  rejects: RejectLog,
  layers: Record<string, LayerStats>,
  insertCoverage: { run: (...a: unknown[]) => unknown },
): Promise<PlanSet | null> {
  const ins = db.prepare('INSERT INTO general_plan VALUES (?, ?, ?, ?, ?, ?)')
  const geoms: MultiPolygon[] = []
  db.exec('BEGIN')
  for (const { code, dir } of provinces) {
    const file = findLayerFile(dir, 'general_plan')
    if (!file) continue
    const name = `parcels/${code}/general_plan`
    let count = 0
    let repaired = 0
    for await (const r of readLayer(file, { pointLayer: false })) {
      if (!r.ok) {
        rejects.reject(name, r.ref, r.reason)
        continue
      }
      const sg = r.properties.sg_no === null || r.properties.sg_no === undefined ? '' : String(r.properties.sg_no).trim()
      if (!sg) {
        rejects.reject(name, r.ref, 'sg_no is blank')
        continue
      }
      const g = normalisePolygonGeometry(r.geometry)
      if (!g.ok) {
        rejects.reject(name, r.ref, g.reason)
        continue
      }
      if (g.repaired) repaired++
      geoms.push(g.mp)
      count++
      ins.run(geoms.length, sg, r.properties.description ?? null, normaliseDate(r.properties.date_stamp), code, encodeGeometry(g.mp))
    }
    insertCoverage.run(code, 'GENERAL_PLAN', count, repaired, rejects.count(name))
    layers[`${code}/general_plan`] = { rows: count, rejected: rejects.count(name), repaired }
  }
  db.exec('COMMIT')
  if (!geoms.length) return null
  const index = new Flatbush(geoms.length, 16, Float64Array)
  for (const g of geoms) {
    const b = bboxOf(g)
    index.add(b.minX, b.minY, b.maxX, b.maxY)
  }
  index.finish()
  return { index, geoms }
}

/**
 * A General Plan covers a parcel when they share interior area (DECISIONS.md): a vertex or the
 * box centre of one strictly inside the other, or one covering the other.
 */
export function sharesInterior(a: MultiPolygon, b: MultiPolygon): boolean {
  const strictlyIn = (mp: MultiPolygon, x: number, y: number) => locatePoint(mp, x, y) === 1
  for (const poly of a) for (const [x, y] of poly[0]) if (strictlyIn(b, x, y)) return true
  for (const poly of b) for (const [x, y] of poly[0]) if (strictlyIn(a, x, y)) return true
  const ba = bboxOf(a)
  const cx = (ba.minX + ba.maxX) / 2
  const cy = (ba.minY + ba.maxY) / 2
  if (containsPoint(a, cx, cy) && strictlyIn(b, cx, cy)) return true
  return coversPolygon(b, a) && coversPolygon(a, b)
}

function linkPlans(id: number, mp: MultiPolygon, plans: PlanSet, ins: { run: (...a: unknown[]) => unknown }): void {
  const b = bboxOf(mp)
  for (const j of plans.index.search(b.minX, b.minY, b.maxX, b.maxY)) if (sharesInterior(mp, plans.geoms[j])) ins.run(id, j + 1)
}

