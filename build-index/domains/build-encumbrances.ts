/**
 * The encumbrance domain: every `south_africa/encumbrances/<PROV>/<class>` layer to one SQLite
 * file, a Flatbush per class, a flags array and the `/at` prefilter (src/data/encumbrance-format.ts), then the overlap
 * of every current encumbrance with every current parcel it meets, so `/parcel/{lpi}`,
 * `/summary` and `/batch` are a join, not a geometry computation.
 *
 * Records are streamed to the scratch database as they are read (national exports hold long
 * corridors of hundreds of vertices); the overlap pass reads them back one at a time.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import Flatbush from 'flatbush'
import {
  ENCUMBRANCE_CLASSES,
  ENCUMBRANCE_FILES,
  ENCUMBRANCE_INDEX_SQL,
  ENCUMBRANCE_SCHEMA_SQL,
  FLAG_LINE,
  FLAG_NOT_CURRENT,
  HEAT_CELL_DEG,
  linesAsPolygons,
  polygonsAsLines,
  type EncumbranceClass,
} from '../../src/data/encumbrance-format.js'
import type { DomainManifest, LayerStats } from '../../src/data/manifest.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { decodeGeometry, encodeGeometry, type MultiPolygon } from '../../src/data/geometry-blob.js'
import { PREFILTER_STRIDE } from '../../src/data/parcels-prefilter.js'
import { describeLines, describeParcel } from '../../src/data/parcels-prefilter-writer.js'
import { bufferLines } from '../../src/geo/overlay/buffer.js'
import { areaSqm, lineLengthM } from '../../src/geo/overlay/measure.js'
import { linesBox } from '../../src/geo/lines.js'
import { bboxOf, type BBox } from '../../src/geo/polygon.js'
import { computeOverlaps } from './encumbrance-overlaps.js'
import { countLines, createProgress, layerLines } from '../progress.js'
import type { RejectLog } from '../reject-log.js'
import { provinceDirs } from '../sources/province-dirs.js'
import { findLayerFile, readLayer } from '../sources/read-layer.js'
import { AreaColumnCheck } from '../transform/area-column.js'
import { normaliseEncumbrance, type EncumbranceRecord } from '../transform/encumbrances.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { GrowableF64 } from '../write/growable.js'
import { finishDb, openScratchDb } from '../write/sqlite-writer.js'
import { round } from '../../src/geo/round.js'

const round2 = (v: number) => round(v, 2)

interface CoverageRow {
  records: number
  current: number
  unspecified: number
  unlisted: number
  repaired: number
  rejected: number
}

export async function buildEncumbrances(
  source: string,
  ds: DatasetWriter,
  rejects: RejectLog,
  exportInfo: { export_id: string; as_of: string },
  log: (line: string) => void,
): Promise<DomainManifest | null> {
  const provinces = provinceDirs(`${source}/south_africa/encumbrances`)
  if (!provinces.length) return null

  const scratch = ds.pathOf(ENCUMBRANCE_FILES.sqlite + '.scratch')
  const db = openScratchDb(scratch)
  db.exec(ENCUMBRANCE_SCHEMA_SQL)
  const insert =
    db.prepare(`INSERT INTO encumbrance VALUES (@id, @uid, @cls, @easeType, @easeTypeNormalised, @listed, @sgNumber, @sgReversed, @province,
    @extent, @length, @width, @dateStamp, @status, @minX, @minY, @maxX, @maxY, @geom, @areaGeom)`)
  const insertCoverage = db.prepare('INSERT INTO coverage VALUES (?, ?, ?, ?, ?, ?, ?, ?)')

  const boxes = new GrowableF64()
  let flags = new Uint8Array(1 << 14)
  let prefilter = new Uint8Array(flags.length * PREFILTER_STRIDE)
  const classRange: Partial<Record<EncumbranceClass, [number, number]>> = {}
  // per uid: where it was first seen and a digest of that row, to tell an exact duplicate (dropped,
  // counted) from a second record reusing the uid (rejected) (docs/decisions.md "Ingest integrity")
  const seenUid = new Map<number, { ref: string; digest: string }>()
  const layers: Record<string, LayerStats> = {}
  const heat = new Map<string, number>()
  let n = 0

  db.exec('BEGIN')
  for (const cls of ENCUMBRANCE_CLASSES) {
    const first = n + 1
    for (const { code, dir } of provinces) {
      const file = findLayerFile(dir, cls)
      if (!file) continue
      const name = `encumbrances/${code}/${cls}`
      const progress = createProgress(name, await countLines(file), { part: true })
      const cov: CoverageRow = { records: 0, current: 0, unspecified: 0, unlisted: 0, repaired: 0, rejected: 0 }
      let reoriented = 0
      let duplicates = 0
      const areas = new AreaColumnCheck()
      for await (const row of readLayer(file, { pointLayer: false })) {
        progress.tick()
        if (!row.ok) {
          rejects.reject(name, row.ref, row.reason)
          continue
        }
        const r = normaliseEncumbrance(row.properties, row.geometry, cls, code)
        if (!r.ok) {
          rejects.reject(name, row.ref, r.reason)
          continue
        }
        const rec = r.rec
        const digest = rowDigest(cls, row.properties, row.geometry)
        const dup = seenUid.get(rec.uid)
        if (dup) {
          if (dup.digest === digest) duplicates++
          else rejects.reject(name, row.ref, `uid ${rec.uid} was already used by ${dup.ref}`)
          continue
        }
        let strip: MultiPolygon | null = null
        if (rec.lines && rec.widthM) {
          try {
            // from the centreline as stored (1e-7°), as the overlap pass and the server build it
            strip = bufferLines(
              polygonsAsLines(decodeGeometry(encodeGeometry(linesAsPolygons(rec.lines)))),
              rec.widthM / 2,
            )
          } catch (err) {
            rejects.reject(
              name,
              row.ref,
              `the ${rec.widthM} m strip of this dimensioned line could not be computed (${(err as Error).message.slice(0, 80)})`,
            )
            continue
          }
        }
        seenUid.set(rec.uid, { ref: row.ref, digest })
        n++
        // a dimensioned line is indexed by its strip's box, so every search that meets the strip finds it
        const b = rec.mp ? bboxOf(rec.mp) : strip ? bboxOf(strip) : linesBox(rec.lines!)
        boxes.push4(b.minX, b.minY, b.maxX, b.maxY)
        if (n > flags.length) {
          const f = new Uint8Array(flags.length * 2)
          f.set(flags)
          flags = f
          const p = new Uint8Array(flags.length * PREFILTER_STRIDE)
          p.set(prefilter)
          prefilter = p
        }
        flags[n - 1] = (rec.status ? FLAG_NOT_CURRENT : 0) | (rec.lines ? FLAG_LINE : 0)
        const stored = rowOf(n, rec, b, strip)
        insert.run(stored)
        // what /at measures (the strip, the polygons, the lines), against the box the index holds
        const describe = stored.areaGeom || rec.mp ? describeParcel : describeLines
        describe(stored.areaGeom ?? stored.geom, b.minX, b.minY, b.maxX, b.maxY, prefilter, (n - 1) * PREFILTER_STRIDE)
        if (rec.mp && rec.geomArea) areas.add(n, rec.geomArea, areaSqm(rec.mp))
        cov.records++
        if (!rec.status) {
          cov.current++
          const k = `${cls}|${Math.floor((b.minX + b.maxX) / 2 / HEAT_CELL_DEG)}|${Math.floor((b.minY + b.maxY) / 2 / HEAT_CELL_DEG)}`
          heat.set(k, (heat.get(k) ?? 0) + 1)
        }
        if (rec.easeTypeNormalised === 'unspecified') cov.unspecified++
        if (!rec.listed) cov.unlisted++
        if (r.repaired) cov.repaired++
        if (r.reoriented) reoriented++
      }
      cov.rejected = rejects.count(name)
      const off = areas.offRatio()
      if (off !== null) {
        log(areas.warning(name, 'geom_area', off))
        const serve = db.prepare('UPDATE encumbrance SET extent_sqm = ? WHERE id = ?')
        for (let k = 0; k < areas.ids.length; k++) serve.run(round2(areas.geodesic[k]), areas.ids[k])
      }
      progress.done(
        `${cov.records} records, ${cov.repaired} repaired, ${reoriented} re-oriented, ${duplicates} duplicates ` +
          `dropped, ${cov.rejected} rejected`,
        cov.rejected > 0,
      )
      insertCoverage.run(code, cls, cov.records, cov.current, cov.unspecified, cov.unlisted, cov.repaired, cov.rejected)
      layers[`${code}/${cls}`] = {
        rows: cov.records,
        rejected: cov.rejected,
        repaired: cov.repaired,
        reoriented,
        duplicates,
        meta: { unspecified: cov.unspecified, unlisted: cov.unlisted },
      }
    }
    if (n >= first) classRange[cls] = [first, n]
  }
  const insertHeat = db.prepare('INSERT INTO heat_cell VALUES (?, ?, ?, ?)')
  for (const [k, count] of heat) {
    const [cls, cx, cy] = k.split('|')
    insertHeat.run(cls, Number(cx), Number(cy), count)
  }
  db.exec('COMMIT')
  if (n === 0) {
    db.close()
    return null
  }
  for (const line of layerLines('encumbrances', layers)) log(line)
  log(`encumbrances: ${n} records; computing parcel overlaps`)

  if (existsSync(ds.pathOf(PARCEL_FILES.sqlite)))
    await computeOverlaps(
      db,
      {
        sqlite: ds.pathOf(PARCEL_FILES.sqlite),
        flatbush: ds.pathOf(PARCEL_FILES.flatbush),
        flags: ds.pathOf(PARCEL_FILES.flags),
      },
      n,
      flags,
      log,
    )
  else log('encumbrances: no parcel domain in this build; parcel overlaps left empty')

  db.exec(ENCUMBRANCE_INDEX_SQL)
  finishDb(db, scratch, ds.pathOf(ENCUMBRANCE_FILES.sqlite))
  ds.addFile(ENCUMBRANCE_FILES.sqlite, 'sqlite')
  ds.writeBinary(ENCUMBRANCE_FILES.flags, 'u8', flags.subarray(0, n))
  ds.writeBinary(ENCUMBRANCE_FILES.prefilter, 'u8', prefilter.subarray(0, n * PREFILTER_STRIDE))

  for (const cls of ENCUMBRANCE_CLASSES) {
    const range = classRange[cls]
    if (!range) continue
    const [first, last] = range
    const index = new Flatbush(last - first + 1, 16, Float64Array)
    const ids = new Uint32Array(last - first + 1)
    for (let id = first; id <= last; id++) {
      const k = (id - 1) * 4
      index.add(boxes.a[k], boxes.a[k + 1], boxes.a[k + 2], boxes.a[k + 3])
      ids[id - first] = id
    }
    index.finish()
    ds.writeBinary(ENCUMBRANCE_FILES.flatbush(cls), 'flatbush', new Uint8Array(index.data))
    ds.writeBinary(ENCUMBRANCE_FILES.ids(cls), 'u32', new Uint8Array(ids.buffer))
  }
  return { dataset_version: exportInfo.export_id, as_of: exportInfo.as_of, layers }
}

/** A digest of a source row's class, fields and geometry: equal digests are exact duplicates. */
function rowDigest(cls: string, properties: unknown, geometry: unknown): string {
  return createHash('sha1')
    .update(cls)
    .update(JSON.stringify(properties))
    .update(JSON.stringify(geometry))
    .digest('base64')
}

function rowOf(id: number, rec: EncumbranceRecord, b: BBox, strip: MultiPolygon | null) {
  const lines = rec.lines
  return {
    id,
    uid: rec.uid,
    cls: rec.cls,
    easeType: rec.easeType,
    easeTypeNormalised: rec.easeTypeNormalised,
    listed: rec.listed ? 1 : 0,
    sgNumber: rec.sgNumber,
    sgReversed: rec.sgNumber ? [...rec.sgNumber].reverse().join('') : null,
    province: rec.province,
    // the source's geom_area when present (docs/decisions.md "extent_sqm"); lines have none
    extent: rec.mp ? round2(rec.geomArea ?? areaSqm(rec.mp)) : null,
    length: lines ? round2(lineLengthM(lines)) : null,
    width: rec.widthM,
    dateStamp: rec.dateStamp,
    status: rec.status,
    minX: b.minX,
    minY: b.minY,
    maxX: b.maxX,
    maxY: b.maxY,
    geom: encodeGeometry(rec.mp ?? linesAsPolygons(lines!)),
    areaGeom: strip ? encodeGeometry(strip) : null,
  }
}
