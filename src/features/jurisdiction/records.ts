/**
 * Boundary records: the in-memory row read from the boundary table, the boundary sets, the
 * date rule (`inForce`), and the two object forms an answer gives a record: the chain's link
 * object and the record object of the list, detail, children and search operations.
 */
import type Database from 'better-sqlite3'
import { DATED_TYPES, type BoundaryType } from '../../data/jurisdiction-format.js'
import { round } from '../../geo/round.js'

/** One boundary record, held in memory (geometry is read on demand). */
export interface BoundaryRow {
  id: number
  type: BoundaryType
  code: string
  name: string
  category: string | null
  province: string | null
  parentId: number | null
  wardNumber: number | null
  setName: string
  vintage: string
  from: string | null
  to: string | null
  areaSqm: number | null
  bbox: [number, number, number, number] | null
  label: [number, number] | null
  vertices: number
}

export interface BoundarySetInfo {
  name: string
  source: string | null
  effectiveFrom: string | null
  effectiveTo: string | null
  geometry: boolean
}

/** A link object of the chain (spec: code, name, category, vintage, effective_from). */
export interface Link {
  code: string
  name: string
  category?: string
  vintage: string
  effective_from?: string
}

/** In force on `d`: `from` inclusive, `to` exclusive, null open. */
export function inForce(r: { from: string | null; to: string | null }, d: string): boolean {
  return (r.from === null || r.from <= d) && (r.to === null || d < r.to)
}

/** Every boundary record, at its id (tens of thousands of rows, a few MB). */
export function readBoundaryRows(db: Database.Database): BoundaryRow[] {
  const rows: BoundaryRow[] = [] // index = id
  for (const a of db
    .prepare(
      `SELECT id, type, code, name, category, province, parent_id, ward_number, set_name, vintage, effective_from, effective_to, area_sqm,
              min_x, min_y, max_x, max_y, label_lon, label_lat, vertices FROM boundary ORDER BY id`,
    )
    .raw()
    .all() as unknown[][]) {
    const id = a[0] as number
    rows[id] = {
      id,
      type: a[1] as BoundaryType,
      code: a[2] as string,
      name: a[3] as string,
      category: a[4] as string | null,
      province: a[5] as string | null,
      parentId: a[6] as number | null,
      wardNumber: a[7] as number | null,
      setName: a[8] as string,
      vintage: a[9] as string,
      from: a[10] as string | null,
      to: a[11] as string | null,
      areaSqm: a[12] as number | null,
      bbox: a[13] === null ? null : [a[13] as number, a[14] as number, a[15] as number, a[16] as number],
      label: a[17] === null ? null : [a[17] as number, a[18] as number],
      vertices: a[19] as number,
    }
  }
  return rows
}

/** The installed boundary sets, by name. */
export function readBoundarySets(db: Database.Database): BoundarySetInfo[] {
  return (
    db.prepare('SELECT name, source, effective_from, effective_to, geometry FROM boundary_set ORDER BY name').all() as {
      name: string
      source: string | null
      effective_from: string | null
      effective_to: string | null
      geometry: number
    }[]
  ).map((s) => ({
    name: s.name,
    source: s.source,
    effectiveFrom: s.effective_from,
    effectiveTo: s.effective_to,
    geometry: s.geometry === 1,
  }))
}

/** The link object of a record (the chain caches one frozen copy per record: see ChainResolver.frozenLink). */
export function linkOf(r: BoundaryRow): Link {
  // keys in the spec's order: code, name, category, vintage, effective_from
  const l: Record<string, string> = { code: r.code, name: r.name }
  if (r.category) l.category = r.category
  l.vintage = r.vintage
  if (DATED_TYPES.has(r.type) && r.from) l.effective_from = r.from
  return l as unknown as Link
}

/**
 * A boundary record as the list, detail, children and search operations return it; `parent` is the record at
 * `r.parentId`.
 */
export function recordOf(r: BoundaryRow, parent: BoundaryRow | undefined): Record<string, unknown> {
  const o: Record<string, unknown> = { boundary_type: r.type, code: r.code, name: r.name }
  if (r.category) o.category = r.category
  if (r.province) o.province = r.province
  if (parent) o.parent = { boundary_type: parent.type, code: parent.code, name: parent.name }
  o.vintage = r.vintage
  o.set = r.setName
  if (r.from) o.effective_from = r.from
  if (r.to) o.effective_to = r.to
  if (r.wardNumber !== null) o.ward_number = r.wardNumber
  if (r.areaSqm !== null) o.area_sqm = r.areaSqm
  if (r.bbox) o.bbox = r.bbox.map((v) => round(v, 7))
  if (r.label) o.label_point = { latitude: round(r.label[1], 7), longitude: round(r.label[0], 7) }
  o.has_geometry = r.bbox !== null
  return o
}
