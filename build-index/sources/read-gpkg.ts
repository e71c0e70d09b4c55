// geopackage layers: one sqlite feature table, read row by row with a statement iterator.
import Database from 'better-sqlite3'
import { basename, extname } from 'node:path'
import { gpkgSrsProblem } from './crs.js'
import { decodeGpkgGeometry } from './gpkg-geometry.js'
import { normaliseValue } from './properties.js'
import type { SourceProperties, SourceRow } from './source-row.js'

interface FeatureTable {
  table: string
  column: string
}

/**
 * Streams the features of a GeoPackage's feature table; refs are `<file>#<feature>` in table
 * order. With several feature tables, the one named like the file wins, else the first listed.
 * Every column but the geometry column becomes a property (the fid included).
 * @throws when the file is not a GeoPackage, holds no feature table, or its table's spatial
 *   reference is not WGS84 longitude/latitude (crs.ts)
 */
export async function* readGpkg(file: string): AsyncGenerator<SourceRow> {
  const db = openGpkg(file)
  try {
    const { table, column } = findFeatureTable(db, file)
    const srs = spatialReference(db, table)
    const problem = srs && gpkgSrsProblem(srs)
    if (problem) throw new Error(`${file}: ${problem}`)
    const statement = db.prepare(`SELECT * FROM ${quoteIdentifier(table)}`).raw(true)
    const names = statement.columns().map((c) => c.name)
    const geometryIndex = names.findIndex((name) => name.toLowerCase() === column.toLowerCase())
    if (geometryIndex < 0) throw new Error(`${file}: geometry column "${column}" is missing from table "${table}"`)
    const keys = propertyKeys(names, geometryIndex)
    let featureNo = 0
    for (const values of statement.iterate() as IterableIterator<unknown[]>) {
      yield gpkgRow(`${file}#${++featureNo}`, keys, values[geometryIndex], values)
    }
  } finally {
    db.close()
  }
}

function openGpkg(file: string): Database.Database {
  try {
    return new Database(file, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw new Error(`${file}: cannot open GeoPackage: ${(error as Error).message}`)
  }
}

function findFeatureTable(db: Database.Database, file: string): FeatureTable {
  let tables: FeatureTable[]
  try {
    tables = db
      .prepare(
        `SELECT c.table_name AS "table", g.column_name AS "column"
           FROM gpkg_contents c JOIN gpkg_geometry_columns g ON lower(g.table_name) = lower(c.table_name)
          WHERE c.data_type = 'features' ORDER BY c.rowid`,
      )
      .all() as FeatureTable[]
  } catch (error) {
    throw new Error(`${file}: not a GeoPackage: ${(error as Error).message}`)
  }
  if (tables.length === 0) throw new Error(`${file}: no feature table in gpkg_contents`)
  const base = basename(file, extname(file)).toLowerCase()
  return tables.find((t) => t.table.toLowerCase() === base) ?? tables[0]
}

/** The feature table's spatial reference, or null when gpkg_spatial_ref_sys does not list it. */
function spatialReference(db: Database.Database, table: string) {
  return (
    (db
      .prepare(
        `SELECT g.srs_id AS srs_id, s.organization AS organization, s.organization_coordsys_id AS organization_coordsys_id,
                s.srs_name AS srs_name
           FROM gpkg_geometry_columns g LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id
          WHERE lower(g.table_name) = lower(?)`,
      )
      .get(table) as
      | {
          srs_id: number
          organization: string | null
          organization_coordsys_id: number | null
          srs_name: string | null
        }
      | undefined) ?? null
  )
}

// lower-cased names; null for the geometry column and for a name seen before
function propertyKeys(names: string[], geometryIndex: number): (string | null)[] {
  const seen = new Set<string>()
  return names.map((name, i) => {
    const key = name.trim().toLowerCase()
    if (i === geometryIndex || key === '' || seen.has(key)) return null
    seen.add(key)
    return key
  })
}

function gpkgRow(ref: string, keys: (string | null)[], blob: unknown, values: unknown[]): SourceRow {
  let geometry = null
  if (blob instanceof Uint8Array) {
    const decoded = decodeGpkgGeometry(blob)
    if (!decoded.ok) return { ok: false, ref, reason: decoded.reason }
    geometry = decoded.geometry
  } else if (blob !== null && blob !== undefined) {
    return { ok: false, ref, reason: 'geometry column does not hold a blob' }
  }
  const properties: SourceProperties = {}
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    if (key !== null) properties[key] = normaliseValue(values[i])
  }
  return { ok: true, ref, properties, geometry }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
