/**
 * The parcel domain: the six cadastre layers of every province, beacons and General Plans, to one
 * SQLite file + a Flatbush over every parcel + a flags array + the point prefilter
 * (parcels-prefilter.ts) + the LPI hash index (lpi-hash.ts), with what the endpoints need precomputed (touching
 * neighbours, beacon
 * ring positions, General Plan links, coverage ledger).
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import Flatbush from 'flatbush'
import { encodeLpiHash, lpiBucketHash, lpiFingerprint } from '../../src/data/lpi-hash.js'
import type { DomainManifest, LayerStats } from '../../src/data/manifest.js'
import {
  FLAG_HIDDEN,
  PARCEL_FILES,
  PARCEL_INDEX_SQL,
  PARCEL_LAYERS,
  PARCEL_SCHEMA_SQL,
  layerCode,
} from '../../src/data/parcels-format.js'
import { encodeGeometry } from '../../src/data/geometry-blob.js'
import { PREFILTER_STRIDE } from '../../src/data/parcels-prefilter.js'
import type { ProvinceCode } from '../../src/data/provinces.js'
import { NEIGHBOUR_PASS_SQL, computeRelations } from './parcel-relations.js'
import {
  FIX_LABEL,
  FIX_REORIENTED,
  FIX_REPAIRED,
  prepareParcels,
  type LayerItem,
  type PreparedChunk,
} from './parcel-rows.js'
import { VersionLedger, rejectEarlierConflicts } from './parcel-versions.js'
import { countLines, createProgress, layerLines } from '../progress.js'
import type { RejectLog } from '../reject-log.js'
import { provinceDirs } from '../sources/province-dirs.js'
import { findLayerFile, readLayer } from '../sources/read-layer.js'
import { OrderedWorkerPool, buildThreads, workerScript } from '../threads.js'
import { AreaColumnCheck } from '../transform/area-column.js'
import { outsideCountry } from '../../src/geo/country-extent.js'
import { normaliseDate } from '../transform/dates.js'
import { normalisePolygonGeometry } from '../transform/polygon-geometry.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { GrowableF64 } from '../write/growable.js'
import { finishDb, openScratchDb } from '../write/sqlite-writer.js'

function grownU32(a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2)
  b.set(a)
  return b
}

/** Source rows per chunk of the layer pass. */
const CHUNK = 512
/** Below this many bytes of cadastre layers the pass stays in the thread (a worker takes ~0.1 s to start). */
const WORKER_MIN_BYTES = 8 * 2 ** 20

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
  // the relation pass's scratch table first: the order tables are created in fixes the order of
  // ANALYZE's sqlite_stat1 rows, and this one gives the bytes datasets had before the schema
  // moved to parcels-format.ts
  db.exec(NEIGHBOUR_PASS_SQL)
  db.exec(PARCEL_SCHEMA_SQL)
  const insert =
    db.prepare(`INSERT INTO parcel VALUES (@id, @type, @province, @lpi, @sourceKey, @parcelNumber, @portion, @tagValue, @majorRegion, @majorCode,
    @minorRegion, @minorCode, @lstatus, @wstatus, @extentSqm, @labelLat, @labelLon, @dateStamp, @hidden, @geom)`)
  const insertCoverage = db.prepare('INSERT INTO coverage VALUES (?, ?, ?, ?, ?)')
  const boxes = new GrowableF64()
  let flags = new Uint8Array(1 << 16)
  // per parcel, the LPI hash index's two hashes of its LPI (lpi-hash.ts)
  let lpiBuckets = new Uint32Array(1 << 16)
  let lpiPrints = new Uint32Array(1 << 16)
  let prefilter = new Uint8Array((1 << 16) * PREFILTER_STRIDE)
  const layers: Record<string, LayerStats> = {}
  // per parcel kept, what normalising changed (FIX_* bits): a row a later conflict rejects takes
  // its fixes out of its layer's counts (rejectEarlierConflicts)
  let fixOf = new Uint8Array(1 << 16)
  let n = 0
  // same LPI, same source key: duplicates dropped, conflicts rejected (parcel-versions.ts)
  const ledger = new VersionLedger(db)
  const lateRejects: { id: number; ref: string; reason: string }[] = []

  // the rows of every layer are checked, normalised, encoded and described in chunks: on a
  // worker thread when the export is large, while this thread reads on and inserts the
  // finished chunks in row order (ids follow source order either way)
  const files = provinces.flatMap(({ code, dir }) =>
    PARCEL_LAYERS.flatMap((layer) => {
      const file = findLayerFile(dir, layer.file)
      return file ? [{ code, layer, file }] : []
    }),
  )
  const script = workerScript('parcel-worker')
  const { threads, forced } = buildThreads()
  const bytes = files.reduce((sum, f) => sum + statSync(f.file).size, 0)
  // as many workers as threads, though this thread reads and inserts: it needs about a third of
  // the CPU a row costs, and on 2 cores one worker left it idle half the time (a national
  // province: 27 s in the thread, 22 s with one worker, 16-18 s with two)
  let take: (c: PreparedChunk) => void = () => {}
  const pool =
    script && threads >= 2 && (forced || bytes >= WORKER_MIN_BYTES)
      ? new OrderedWorkerPool<PreparedChunk>(script, threads, null, (c) => take(c))
      : null
  if (pool) log(`parcels: layers prepared on ${threads} worker threads`)

  db.exec('BEGIN')
  try {
    for (const { code, layer, file } of files) {
      const name = `parcels/${code}/${layer.file}`
      const progress = createProgress(name, await countLines(file), { part: true })
      let rows = 0
      let repaired = 0
      let reoriented = 0
      let duplicates = 0
      let labelsReplaced = 0
      const areas = new AreaColumnCheck()
      // the source references of the chunks in flight, oldest first (chunks finish in order)
      const refQueue: string[][] = []
      take = (c) => {
        const refs = refQueue.shift()!
        let r = 0
        for (let k = 0; k < c.reasons.length; k++) {
          const reason = c.reasons[k]
          if (reason !== null) {
            rejects.reject(name, refs[k], reason)
            continue
          }
          const rec = c.recs[r]
          const from = r ? c.ends[r - 1] : 0
          r++
          // the statement's parameters are the record's fields
          insert.run({
            ...rec,
            id: n + 1,
            hidden: rec.hidden ? 1 : 0,
            geom: Buffer.from(c.geoms.buffer, c.geoms.byteOffset + from, c.ends[r - 1] - from),
          })
          const bucket = lpiBucketHash(rec.lpi)
          const print = lpiFingerprint(rec.lpi)
          const verdict = ledger.check(n + 1, refs[k], rec, bucket, print)
          if (!verdict.keep) {
            if (verdict.duplicate) duplicates++
            else {
              rejects.reject(name, refs[k], verdict.reason)
              for (const e of verdict.earlier) lateRejects.push(e)
            }
            continue
          }
          n++
          rows++
          // counted for the rows kept only (not a duplicate, nor a row a conflict rejected)
          const fix = c.fixes[r - 1]
          if (fix & FIX_REPAIRED) repaired++
          if (fix & FIX_REORIENTED) reoriented++
          if (fix & FIX_LABEL) labelsReplaced++
          if (n > fixOf.length) {
            const f = new Uint8Array(fixOf.length * 2)
            f.set(fixOf)
            fixOf = f
          }
          fixOf[n - 1] = fix
          if (rec.areaFromSource) areas.add(n, rec.extentSqm, rec.geodesicSqm)
          boxes.push4(
            c.boxes[4 * (r - 1)],
            c.boxes[4 * (r - 1) + 1],
            c.boxes[4 * (r - 1) + 2],
            c.boxes[4 * (r - 1) + 3],
          )
          if (n > flags.length) {
            const f = new Uint8Array(flags.length * 2)
            f.set(flags)
            flags = f
          }
          flags[n - 1] = layerCode(rec.type) | (rec.hidden ? FLAG_HIDDEN : 0)
          if (n > lpiBuckets.length) {
            lpiBuckets = grownU32(lpiBuckets)
            lpiPrints = grownU32(lpiPrints)
          }
          lpiBuckets[n - 1] = bucket
          lpiPrints[n - 1] = print
          if (n * PREFILTER_STRIDE > prefilter.length) {
            const p = new Uint8Array(prefilter.length * 2)
            p.set(prefilter)
            prefilter = p
          }
          prefilter.set(
            c.prefilter.subarray((r - 1) * PREFILTER_STRIDE, r * PREFILTER_STRIDE),
            (n - 1) * PREFILTER_STRIDE,
          )
        }
      }
      let items: LayerItem[] = []
      let refs: string[] = []
      const flush = async () => {
        if (!items.length) return
        refQueue.push(refs)
        if (pool) await pool.submit({ message: { items, type: layer.type, province: code } })
        else take(prepareParcels(items, layer.type, code))
        items = []
        refs = []
      }
      // on workers, a GeoJSONSeq feature is parsed there too
      for await (const row of readLayer(file, { pointLayer: false, deferJson: pool !== null })) {
        progress.tick()
        refs.push(row.ref)
        items.push(
          row.ok === 'json'
            ? { text: row.text }
            : row.ok
              ? { properties: row.properties, geometry: row.geometry }
              : { reason: row.reason },
        )
        if (items.length === CHUNK) await flush()
      }
      await flush()
      await pool?.drain()
      const off = areas.offRatio()
      if (off !== null) {
        log(areas.warning(name, 'geom_area', off))
        const serve = db.prepare('UPDATE parcel SET extent_sqm = ? WHERE id = ?')
        for (let k = 0; k < areas.ids.length; k++) serve.run(areas.geodesic[k], areas.ids[k])
      }
      // the layer's counts are said once final, after the conflicts found in later layers
      progress.done()
      insertCoverage.run(code, layer.type, rows, repaired, rejects.count(name))
      layers[`${code}/${layer.file}`] = {
        rows,
        rejected: rejects.count(name),
        repaired,
        reoriented,
        duplicates,
        labels_replaced: labelsReplaced,
      }
    }
  } finally {
    await pool?.close()
  }
  n -= rejectEarlierConflicts(db, ledger, lateRejects, rejects, layers, log, n, {
    boxes: boxes.a,
    flags,
    lpiBuckets,
    lpiPrints,
    prefilter,
    fixes: fixOf,
  })
  const totals = logParcelLayers(
    files.map(({ code, layer }) => `${code}/${layer.file}`),
    layers,
    log,
  )
  boxes.n = n * 4
  db.exec('COMMIT')
  if (n === 0) {
    db.close()
    return null
  }

  // over shared memory: the relation pass's worker threads read it without a copy each
  const index = new Flatbush(n, 16, Float64Array, SharedArrayBuffer)
  for (let i = 0; i < n; i++) index.add(boxes.a[i * 4], boxes.a[i * 4 + 1], boxes.a[i * 4 + 2], boxes.a[i * 4 + 3])
  index.finish()

  // ---- beacons and General Plans, then one pass over every parcel: touching neighbours, beacon
  // positions, General Plan links
  await loadBeacons(provinces, db, rejects, layers, insertCoverage)
  await loadGeneralPlans(provinces, db, rejects, layers, insertCoverage)
  const pairs = await computeRelations(db, scratch, index, boxes.a, n, log)

  db.exec(PARCEL_INDEX_SQL)
  finishDb(db, scratch, ds.pathOf(PARCEL_FILES.sqlite))
  ds.addFile(PARCEL_FILES.sqlite, 'sqlite')
  ds.writeBinary(PARCEL_FILES.flatbush, 'flatbush', new Uint8Array(index.data))
  ds.writeBinary(PARCEL_FILES.flags, 'u8', flags.subarray(0, n))
  ds.writeBinary(PARCEL_FILES.prefilter, 'u8', prefilter.subarray(0, n * PREFILTER_STRIDE))
  ds.writeBinary(PARCEL_FILES.lpiHash, 'lpi-hash', encodeLpiHash(lpiBuckets, lpiPrints, n))
  for (const line of layerLines('parcels', layers)) log(line)
  log(
    `parcels: ${n} records, ${totals.repaired} geometries repaired, ${totals.duplicates} exact duplicates dropped, ` +
      `${totals.labelsReplaced} source label points outside their parcel replaced, ${pairs} touching pairs`,
  )
  return { dataset_version: exportInfo.export_id, as_of: exportInfo.as_of, layers }
}

/**
 * Says the final counts (after the conflicts found later have taken their rows out: the
 * manifest's counts) of each parcel layer file that rejected rows, one line each (the others are
 * in the summed lines of `layerLines`, build-index/progress.ts), and returns the totals.
 */
function logParcelLayers(
  keys: string[],
  layers: Record<string, LayerStats>,
  log: (line: string) => void,
): { repaired: number; duplicates: number; labelsReplaced: number } {
  const totals = { repaired: 0, duplicates: 0, labelsReplaced: 0 }
  for (const key of keys) {
    const l = layers[key]
    if (l.rejected > 0)
      log(
        `parcels/${key}: ${l.rows} parcels, ${l.repaired} repaired, ${l.reoriented} re-oriented, ` +
          `${l.duplicates} duplicates dropped, ${l.labels_replaced} label points replaced, ${l.rejected} rejected`,
      )
    totals.repaired += l.repaired
    totals.duplicates += l.duplicates ?? 0
    totals.labelsReplaced += l.labels_replaced ?? 0
  }
  return totals
}

/** Inserts every province's beacons, ids 1.. in source order. */
async function loadBeacons(
  provinces: { code: ProvinceCode; dir: string }[],
  db: ReturnType<typeof openScratchDb>,
  rejects: RejectLog,
  layers: Record<string, LayerStats>,
  insertCoverage: { run: (...a: unknown[]) => unknown },
): Promise<void> {
  const ins = db.prepare('INSERT INTO beacon VALUES (?, ?, ?, ?, ?, ?, ?)')
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
      if (g?.type !== 'Point') {
        rejects.reject(name, r.ref, 'beacon geometry is not a Point')
        continue
      }
      if (id === null || id === undefined || String(id).trim() === '') {
        rejects.reject(name, r.ref, 'beacon_id is blank')
        continue
      }
      const outside = outsideCountry(g.coordinates, 'SOUTH_AFRICA')
      if (outside) {
        rejects.reject(name, r.ref, outside)
        continue
      }
      row++
      count++
      const [x, y] = g.coordinates
      ins.run(
        row,
        String(id).trim(),
        r.properties.name ?? null,
        r.properties.description ?? null,
        normaliseDate(r.properties.date_stamp),
        y,
        x,
      )
    }
    insertCoverage.run(code, 'BEACON', count, 0, rejects.count(name))
    layers[`${code}/beacon`] = { rows: count, rejected: rejects.count(name), repaired: 0 }
  }
  db.exec('COMMIT')
}

/** Inserts every province's General Plans, ids 1.. in source order. */
async function loadGeneralPlans(
  provinces: { code: ProvinceCode; dir: string }[],
  db: ReturnType<typeof openScratchDb>,
  rejects: RejectLog,
  layers: Record<string, LayerStats>,
  insertCoverage: { run: (...a: unknown[]) => unknown },
): Promise<void> {
  const ins = db.prepare('INSERT INTO general_plan VALUES (?, ?, ?, ?, ?, ?)')
  let plans = 0
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
      const sg =
        r.properties.sg_no === null || r.properties.sg_no === undefined ? '' : String(r.properties.sg_no).trim()
      if (!sg) {
        rejects.reject(name, r.ref, 'sg_no is blank')
        continue
      }
      const g = normalisePolygonGeometry(r.geometry)
      if (!g.ok) {
        rejects.reject(name, r.ref, g.reason)
        continue
      }
      const outside = outsideCountry(r.geometry!.coordinates, 'SOUTH_AFRICA')
      if (outside) {
        rejects.reject(name, r.ref, outside)
        continue
      }
      if (g.repaired) repaired++
      plans++
      count++
      ins.run(
        plans,
        sg,
        r.properties.description ?? null,
        normaliseDate(r.properties.date_stamp),
        code,
        encodeGeometry(g.mp),
      )
    }
    insertCoverage.run(code, 'GENERAL_PLAN', count, repaired, rejects.count(name))
    layers[`${code}/general_plan`] = { rows: count, rejected: rejects.count(name), repaired }
  }
  db.exec('COMMIT')
}
