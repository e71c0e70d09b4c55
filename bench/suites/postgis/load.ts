/**
 * Loading PostGIS (bench/lib/postgis.ts installs and starts the cluster): the source exports
 * read with the build's own readers and normalisers into COPY files, then COPY, GiST indexes
 * and VACUUM ANALYZE, each timed.
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from 'pg'
import { provinceDirs } from '../../../build-index/sources/province-dirs.js'
import { deriveErvenFromCadastre } from '../../../build-index/domains/build-plots.js'
import { findLayerFile, readLayer } from '../../../build-index/sources/read-layer.js'
import { normaliseEncumbrance } from '../../../build-index/transform/encumbrances.js'
import { normaliseParcel } from '../../../build-index/transform/parcels.js'
import { normaliseBotswanaPlot, normaliseErf, type PlotRecord } from '../../../build-index/transform/plots.js'
import type { PlotLayerWriter } from '../../../build-index/write/plots-writer.js'
import { ENCUMBRANCE_CLASSES, linesAsPolygons, polygonsAsLines } from '../../../src/data/encumbrance-format.js'
import { PARCEL_LAYERS } from '../../../src/data/parcels-format.js'
import { decodeGeometry, encodeGeometry } from '../../../src/data/geometry-blob.js'
import { bufferLines } from '../../../src/geo/overlay/buffer.js'
import { multiLineStringEwkt, multiPolygonEwkt, type Cluster } from '../../lib/postgis.js'
import type { SuiteContext } from '../../lib/suite.js'
import type { CorridorData, PostgisData } from './model.js'

// ---------------------------------------------------------------- source -> files for COPY

class LineFile {
  private fd: number
  private buf: string[] = []
  private size = 0
  constructor(path: string) {
    this.fd = openSync(path, 'w', 0o644)
  }
  line(s: string): void {
    this.buf.push(s)
    this.size += s.length
    if (this.size > 1 << 20) this.flush()
  }
  flush(): void {
    if (this.buf.length) writeSync(this.fd, this.buf.join('\n') + '\n')
    this.buf = []
    this.size = 0
  }
  close(): void {
    this.flush()
    closeSync(this.fd)
  }
}

/**
 * Plots as `id \t SRID=4326;POINT(lon lat)`, ids as build-plots.ts assigns them: Botswana's
 * accepted rows 1..n in file order, then South Africa's erven (or erven derived from the
 * cadastre when the export has no erven file).
 */
export async function writePlots(source: string, file: string): Promise<number> {
  const out = new LineFile(file)
  let id = 0
  const add = (r: PlotRecord) => out.line(`${++id}\tSRID=4326;POINT(${r.lon} ${r.lat})`)
  const layers = [
    { dir: 'botswana', base: 'plots', normalise: normaliseBotswanaPlot },
    { dir: 'south_africa', base: 'erven', normalise: normaliseErf },
  ]
  for (const layer of layers) {
    const f = findLayerFile(join(source, layer.dir), layer.base)
    if (!f) {
      if (layer.dir === 'south_africa') await deriveErvenFromCadastre(source, { add } as unknown as PlotLayerWriter)
      continue
    }
    for await (const row of readLayer(f, { pointLayer: true })) {
      if (!row.ok) continue
      const r = layer.normalise(row.properties, row.geometry)
      if (r.ok) add(r.rec)
    }
  }
  out.close()
  return id
}

/**
 * Parcels as `id \t lstatus \t wstatus \t parent_farm \t EWKT`, ids as build-parcels.ts assigns them (provinces
 * in code order, layers in PARCEL_LAYERS order, accepted rows in file order), geometry as the
 * build stores it (normalised, repaired, on the 1e-7 degree grid).
 */
export async function writeParcels(source: string, file: string): Promise<number> {
  const out = new LineFile(file)
  let id = 0
  for (const { code, dir } of provinceDirs(join(source, 'south_africa', 'cadastre'))) {
    for (const layer of PARCEL_LAYERS) {
      const f = findLayerFile(dir, layer.file)
      if (!f) continue
      for await (const row of readLayer(f, { pointLayer: false })) {
        if (!row.ok) continue
        const r = normaliseParcel(row.properties, row.geometry, layer.type, code)
        if (!r.ok) continue
        const mp = decodeGeometry(encodeGeometry(r.rec.geometry))
        out.line(
          `${++id}\t${r.rec.lstatus}\t${r.rec.wstatus ?? '\\N'}\t${layer.type === 'PARENT_FARM' ? 't' : 'f'}\t${multiPolygonEwkt(mp)}`,
        )
      }
    }
  }
  out.close()
  return id
}

/**
 * Current encumbrances as `uid \t class \t EWKT`, the records build-encumbrances.ts keeps
 * (classes in source order, then provinces, then file order; a uid seen before, in any status,
 * and a dimensioned line whose strip cannot be computed are rejected there, so here too), only
 * those with a blank `status`; geometry as the build stores it (7 decimals, through the blob
 * encoding): areas as MULTIPOLYGON, lines as MULTILINESTRING (the surveyed line, not its strip,
 * as `/intersect` meets a route with it). Returns the uids written.
 */
export async function writeEncumbrances(source: string, file: string): Promise<number[]> {
  const out = new LineFile(file)
  const seen = new Set<number>()
  const uids: number[] = []
  const provinces = provinceDirs(join(source, 'south_africa', 'encumbrances'))
  for (const cls of ENCUMBRANCE_CLASSES) {
    for (const { code, dir } of provinces) {
      const f = findLayerFile(dir, cls)
      if (!f) continue
      for await (const row of readLayer(f, { pointLayer: false })) {
        if (!row.ok) continue
        const r = normaliseEncumbrance(row.properties, row.geometry, cls, code)
        if (!r.ok || seen.has(r.rec.uid)) continue
        const rec = r.rec
        if (rec.lines && rec.widthM) {
          try {
            bufferLines(rec.lines, rec.widthM / 2)
          } catch {
            continue
          }
        }
        seen.add(rec.uid)
        if (rec.status) continue
        const ewkt = rec.mp
          ? multiPolygonEwkt(decodeGeometry(encodeGeometry(rec.mp)))
          : multiLineStringEwkt(polygonsAsLines(decodeGeometry(encodeGeometry(linesAsPolygons(rec.lines!)))))
        out.line(`${rec.uid}\t${cls}\t${ewkt}`)
        uids.push(rec.uid)
      }
    }
  }
  out.close()
  return uids
}

// ---------------------------------------------------------------- tables

/** Plots and parcels: the build's readers write COPY files (timed apart), then COPY + GiST + ANALYZE. */
export async function loadPlotsAndParcels(
  log: SuiteContext['log'],
  admin: Client,
  cluster: Cluster,
  source: string,
): Promise<NonNullable<PostgisData['load']>> {
  const hasCadastre = provinceDirs(join(source, 'south_africa', 'cadastre')).length > 0
  let t = performance.now()
  const plotsFile = join(cluster.dir, 'plots.tsv')
  const parcelsFile = join(cluster.dir, 'parcels.tsv')
  const plots = await writePlots(source, plotsFile)
  const parcels = hasCadastre ? await writeParcels(source, parcelsFile) : 0
  const prepareMs = performance.now() - t
  log(
    `postgis: read ${plots.toLocaleString('en-US')} plots and ${parcels.toLocaleString('en-US')} parcels from ${source} in ${(prepareMs / 1000).toFixed(1)} s`,
  )
  await admin.query(`CREATE TABLE plot (id int4 NOT NULL, geog geography(Point, 4326) NOT NULL)`)
  await admin.query(
    `CREATE TABLE parcel (id int4 NOT NULL, lstatus text NOT NULL, wstatus text, parent_farm bool NOT NULL, geom ` +
      `geometry(MultiPolygon, 4326) NOT NULL)`,
  )
  t = performance.now()
  await admin.query(`COPY plot FROM '${plotsFile}'`)
  if (parcels) await admin.query(`COPY parcel FROM '${parcelsFile}'`)
  const copyMs = performance.now() - t
  t = performance.now()
  await admin.query(`CREATE INDEX plot_geog ON plot USING gist (geog)`)
  await admin.query(`CREATE INDEX parcel_geom ON parcel USING gist (geom)`)
  const indexMs = performance.now() - t
  t = performance.now()
  await admin.query(`VACUUM ANALYZE plot`)
  await admin.query(`VACUUM ANALYZE parcel`)
  const analyzeMs = performance.now() - t
  const sizes = (
    await admin.query<{ t: string; i: string }>(
      `SELECT (pg_table_size('plot') + pg_table_size('parcel'))::text AS t, (pg_indexes_size('plot') + ` +
        `pg_indexes_size('parcel'))::text AS i`,
    )
  ).rows[0]
  const load = {
    plots,
    parcels,
    prepareMs,
    copyMs,
    indexMs,
    analyzeMs,
    tableBytes: Number(sizes.t),
    indexBytes: Number(sizes.i),
  }
  log(
    `postgis: COPY ${(copyMs / 1000).toFixed(1)} s, GiST ${(indexMs / 1000).toFixed(1)} s, VACUUM ANALYZE ${(analyzeMs / 1000).toFixed(1)} s`,
  )
  return load
}

/** The current encumbrances (COPY, GiST, VACUUM ANALYZE, timed apart from the other tables); the uids loaded. */
export async function loadEncumbrances(
  log: SuiteContext['log'],
  admin: Client,
  cluster: Cluster,
  source: string,
): Promise<{ uids: number[]; load: CorridorData['load'] }> {
  let t = performance.now()
  const file = join(cluster.dir, 'encumbrances.tsv')
  const uids = await writeEncumbrances(source, file)
  const prepareMs = performance.now() - t
  await admin.query(
    `CREATE TABLE encumbrance (uid int8 NOT NULL, cls text NOT NULL, geog geography(Geometry, 4326) NOT NULL)`,
  )
  t = performance.now()
  await admin.query(`COPY encumbrance FROM '${file}'`)
  const copyMs = performance.now() - t
  t = performance.now()
  await admin.query(`CREATE INDEX encumbrance_geog ON encumbrance USING gist (geog)`)
  const indexMs = performance.now() - t
  // for the untimed explanations only (not counted)
  await admin.query(`CREATE INDEX encumbrance_uid ON encumbrance (uid)`)
  t = performance.now()
  await admin.query(`VACUUM ANALYZE encumbrance`)
  const analyzeMs = performance.now() - t
  const sizes = (
    await admin.query<{ t: string; i: string }>(
      `SELECT pg_table_size('encumbrance')::text AS t, pg_relation_size('encumbrance_geog')::text AS i`,
    )
  ).rows[0]
  log(
    `postgis: ${uids.length.toLocaleString('en-US')} current encumbrances read in ${(prepareMs / 1000).toFixed(1)} s; COPY ${(copyMs / 1000).toFixed(1)} s, GiST ${(indexMs / 1000).toFixed(1)} s`,
  )
  return {
    uids,
    load: {
      encumbrances: uids.length,
      prepareMs,
      copyMs,
      indexMs,
      analyzeMs,
      tableBytes: Number(sizes.t),
      indexBytes: Number(sizes.i),
    },
  }
}
