/**
 * The jurisdiction domain: every boundary set under `south_africa/boundaries/<set>/` (the Board's
 * dated demarcations and delimitations, and the undated cadastral register) to one SQLite file
 * plus a Flatbush per boundary type (src/data/jurisdiction-format.ts).
 *
 * Each set folder holds `<type>.(geojsonl|gpkg|shp)` layers, or `<type>.csv` attribute tables
 * for a set published without geometry, and an optional `set.json` with the vintage labels and
 * dates (docs/source-formats.md). Parents are resolved by code, never by a second point-in-polygon
 * test: the Board simplified each layer separately.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Flatbush from 'flatbush'
import type { DomainManifest, LayerStats } from '../../src/data/manifest.js'
import {
  BOUNDARY_TYPES,
  JURISDICTION_FILES,
  JURISDICTION_INDEX_SQL,
  JURISDICTION_SCHEMA_SQL,
  OVERVIEW_TOLERANCE_M,
  PARENT_TYPE,
  type BoundaryType,
} from '../../src/data/jurisdiction-format.js'
import { encodeGeometry, type MultiPolygon } from '../../src/data/geometry-blob.js'
import { bboxOf, multiPolygonAreaSqm } from '../../src/geo/polygon.js'
import { labelPoint } from '../../src/geo/label-point.js'
import { outsideCountry } from '../../src/geo/country-extent.js'
import { simplifyPreserveTopology } from '../../src/geo/simplify.js'
import { createProgress } from '../progress.js'
import type { RejectLog } from '../reject-log.js'
import { splitCsvRecord } from '../sources/csv-record.js'
import { normaliseProperties } from '../sources/properties.js'
import { findLayerFile, readLayer, type SourceProperties } from '../sources/read-layer.js'
// polygon geometry as the parcels take it (closed, oriented, deduplicated, self-intersections
// repaired), except that a ring's winding is not counted as a repair: the Board's shapefiles and
// TopoJSON store exteriors clockwise by their format's convention
import { normalisePolygonGeometry as normaliseBoundaryGeometry } from '../transform/polygon-geometry.js'
import { datesOf, normaliseBoundary, parseSetJson, vintageOf, type SetDefaults } from '../transform/boundaries.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { finishDb, openScratchDb } from '../write/sqlite-writer.js'
import { round } from '../../src/geo/round.js'

interface Rec {
  id: number
  type: BoundaryType
  code: string
  name: string | null
  category: string | null
  province: string | null
  parentCode: string | null
  parent: Rec | null
  wardNumber: number | null
  setName: string
  vintage: string
  from: string | null
  to: string | null
  mp: MultiPolygon | null
}

export class BoundaryBuildError extends Error {}

/** Reads an attribute-only CSV table (no geometry) as rows of lower-cased properties. */
function* readAttributeCsv(file: string): Generator<{ ref: string; props: SourceProperties | null; reason?: string }> {
  const lines = readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
  const header = splitCsvRecord(lines[0] ?? '')
  if (!header) throw new BoundaryBuildError(`${file}: no CSV header`)
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue
    const fields = splitCsvRecord(lines[i])
    if (!fields || fields.length !== header.length) {
      yield { ref: `${file}:${i + 1}`, props: null, reason: `expected ${header.length} fields` }
      continue
    }
    yield {
      ref: `${file}:${i + 1}`,
      props: normaliseProperties(Object.fromEntries(header.map((h, k) => [h, fields[k]]))),
    }
  }
}

/** Does [aFrom, aTo) overlap [bFrom, bTo)? Null ends are open. */
function overlaps(aFrom: string | null, aTo: string | null, bFrom: string | null, bTo: string | null): boolean {
  return (aTo === null || bFrom === null || bFrom < aTo) && (bTo === null || aFrom === null || aFrom < bTo)
}

export async function buildBoundaries(
  source: string,
  ds: DatasetWriter,
  rejects: RejectLog,
  exportInfo: { export_id: string; as_of: string },
  log: (line: string) => void,
): Promise<DomainManifest | null> {
  const root = join(source, 'south_africa', 'boundaries')
  if (!existsSync(root)) return null
  const setNames = readdirSync(root)
    .filter((n) => statSync(join(root, n)).isDirectory())
    .sort()
  const recs: Rec[] = []
  const layers: Record<string, LayerStats> = {}
  const sets: { name: string; set: SetDefaults }[] = []

  for (const setName of setNames) {
    const dir = join(root, setName)
    let set: SetDefaults = {
      vintage: null,
      effectiveFrom: null,
      effectiveTo: null,
      types: {},
      source: null,
      geometry: true,
    }
    const setFile = join(dir, 'set.json')
    if (existsSync(setFile)) {
      let raw: unknown
      try {
        raw = JSON.parse(readFileSync(setFile, 'utf8'))
      } catch (err) {
        throw new BoundaryBuildError(`${setFile} is not valid JSON: ${(err as Error).message}`)
      }
      const parsed = parseSetJson(raw, `boundaries/${setName}`)
      if (typeof parsed === 'string') throw new BoundaryBuildError(parsed)
      set = parsed
    }
    sets.push({ name: setName, set })
    for (const type of BOUNDARY_TYPES) {
      const layerName = `boundaries/${setName}/${type}`
      const file = findLayerFile(dir, type)
      let rows = 0
      let repaired = 0
      const vintage = vintageOf(set, type, setName)
      const add = (props: SourceProperties, mp: MultiPolygon | null, ref: string) => {
        const r = normaliseBoundary(props, type)
        if (!r.ok) {
          rejects.reject(layerName, ref, r.reason)
          return
        }
        const { from, to } = datesOf(set, type, r.rec)
        recs.push({
          id: recs.length + 1,
          type,
          code: r.rec.code,
          name: r.rec.name,
          category: r.rec.category,
          province: r.rec.province,
          parentCode: r.rec.parentCode,
          parent: null,
          wardNumber: r.rec.wardNumber,
          setName,
          vintage,
          from,
          to,
          mp,
        })
        rows++
      }
      if (file?.toLowerCase().endsWith('.csv')) {
        // a table without geometry (the 2016 ward delimitation): listed and searchable, not resolvable
        for (const row of readAttributeCsv(file)) {
          if (!row.props) rejects.reject(layerName, row.ref, row.reason ?? 'unreadable row')
          else add(row.props, null, row.ref)
        }
      } else if (file) {
        const progress = createProgress(layerName, null)
        for await (const row of readLayer(file, { pointLayer: false })) {
          progress.tick()
          if (!row.ok) {
            rejects.reject(layerName, row.ref, row.reason)
            continue
          }
          const g = normaliseBoundaryGeometry(row.geometry, false)
          if (!g.ok) {
            rejects.reject(layerName, row.ref, g.reason)
            continue
          }
          const outside = outsideCountry(row.geometry!.coordinates, 'SOUTH_AFRICA')
          if (outside) {
            rejects.reject(layerName, row.ref, outside)
            continue
          }
          if (g.repaired) repaired++
          add(row.properties, g.mp, row.ref)
        }
        progress.done(`${rows} boundaries, ${repaired} repaired, ${rejects.count(layerName)} rejected`)
      } else continue
      layers[`${setName}/${type}`] = {
        rows,
        rejected: rejects.count(layerName),
        repaired,
        meta: { vintage, geometry: !file.toLowerCase().endsWith('.csv') },
      }
    }
  }
  if (!recs.length) return null

  resolveParents(recs)
  log(`boundaries: ${recs.length} records in ${sets.length} sets; writing`)

  const scratch = ds.pathOf(JURISDICTION_FILES.sqlite + '.scratch')
  const db = openScratchDb(scratch)
  db.exec(JURISDICTION_SCHEMA_SQL)
  const insSet = db.prepare('INSERT INTO boundary_set VALUES (?, ?, ?, ?, ?)')
  for (const { name, set } of sets)
    insSet.run(name, set.source, set.effectiveFrom, set.effectiveTo, set.geometry ? 1 : 0)
  const ins =
    db.prepare(`INSERT INTO boundary VALUES (@id, @type, @code, @name, @category, @province, @parentId, @parentCode, @wardNumber, @setName, @vintage,
    @from, @to, @area, @minX, @minY, @maxX, @maxY, @labelLon, @labelLat, @vertices, @geom, @geomLo)`)
  const insAnc = db.prepare('INSERT INTO ancestor VALUES (?, ?)')
  const progress = createProgress('boundaries/write', recs.length)
  db.exec('BEGIN')
  for (const r of recs) {
    progress.tick()
    const mp = r.mp
    const b = mp ? bboxOf(mp) : null
    const label = mp ? labelPoint(mp) : null
    let vertices = 0
    if (mp) for (const p of mp) for (const ring of p) vertices += ring.length
    ins.run({
      id: r.id,
      type: r.type,
      code: r.code,
      name: r.name ?? r.code,
      category: r.category,
      province: r.province,
      parentId: r.parent?.id ?? null,
      parentCode: r.parentCode,
      wardNumber: r.wardNumber,
      setName: r.setName,
      vintage: r.vintage,
      from: r.from,
      to: r.to,
      area: mp ? round(multiPolygonAreaSqm(mp), 2) : null,
      minX: b?.minX ?? null,
      minY: b?.minY ?? null,
      maxX: b?.maxX ?? null,
      maxY: b?.maxY ?? null,
      labelLon: label ? round(label[0], 7) : null,
      labelLat: label ? round(label[1], 7) : null,
      vertices,
      geom: mp ? encodeGeometry(mp) : null,
      geomLo: mp ? encodeGeometry(vertices > 64 ? simplifyPreserveTopology(mp, OVERVIEW_TOLERANCE_M) : mp) : null,
    })
    for (let a = r.parent, guard = 0; a && guard < 8; a = a.parent, guard++) insAnc.run(r.id, a.id)
  }
  db.exec('COMMIT')
  progress.done()
  db.exec(JURISDICTION_INDEX_SQL)
  finishDb(db, scratch, ds.pathOf(JURISDICTION_FILES.sqlite))
  ds.addFile(JURISDICTION_FILES.sqlite, 'sqlite')

  for (const type of BOUNDARY_TYPES) {
    const withGeom = recs.filter((r) => r.type === type && r.mp)
    if (!withGeom.length) continue
    const index = new Flatbush(withGeom.length, 16, Float64Array)
    for (const r of withGeom) {
      const b = bboxOf(r.mp!)
      index.add(b.minX, b.minY, b.maxX, b.maxY)
    }
    index.finish()
    ds.writeBinary(JURISDICTION_FILES.flatbush(type), 'flatbush', new Uint8Array(index.data))
    ds.writeBinary(
      JURISDICTION_FILES.ids(type),
      'u32',
      new Uint8Array(new Uint32Array(withGeom.map((r) => r.id)).buffer),
    )
  }

  return { dataset_version: exportInfo.export_id, as_of: exportInfo.as_of, layers }
}

/**
 * Links each record to the record one level up by code: within its own set first, else the
 * record of that type and code whose dates overlap its own the longest (the 2020 wards' parents
 * are the 2018 demarcation's municipalities). Names unnamed wards after their municipality and
 * fills a missing province from the chain.
 */
export function resolveParents(recs: Rec[]): void {
  const byTypeCode = new Map<string, Rec[]>()
  for (const r of recs) {
    const k = `${r.type}|${r.code}`
    const list = byTypeCode.get(k)
    if (list) list.push(r)
    else byTypeCode.set(k, [r])
  }
  const parentTypeOf = (r: Rec): BoundaryType | undefined =>
    r.type === 'local_municipality' && r.category === 'A'
      ? 'province'
      : r.type === 'district_municipality' && r.category === 'A'
        ? 'province'
        : PARENT_TYPE[r.type]
  for (const r of recs) {
    const pt = parentTypeOf(r)
    if (!pt || !r.parentCode) continue
    const cands = (byTypeCode.get(`${pt}|${r.parentCode}`) ?? []).filter((p) => overlaps(r.from, r.to, p.from, p.to))
    r.parent =
      cands.find((p) => p.setName === r.setName) ??
      cands.sort((a, b) => (b.from ?? '').localeCompare(a.from ?? ''))[0] ??
      null
  }
  // provinces, then names, from the chain (a parent may itself need its province first)
  const provinceOf = (r: Rec, depth = 0): string | null =>
    r.province ?? (r.parent && depth < 8 ? provinceOf(r.parent, depth + 1) : null)
  for (const r of recs) r.province = provinceOf(r)
  for (const r of recs) {
    if (r.name) continue
    const n = r.wardNumber ?? r.code
    r.name = r.parent?.name ? `${r.parent.name} Ward ${n}` : `Ward ${n}`
  }
}
