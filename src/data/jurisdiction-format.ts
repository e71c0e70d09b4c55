/**
 * The jurisdiction domain's files inside a dataset, shared by build-index (writer) and the
 * server (reader).
 *
 * - `jurisdiction/boundaries.sqlite`:
 *   - `boundary_set`: one row per source set folder (`2011`, `2016`, `2018`, `2020`, `register`…)
 *     with its dates, whether it carries geometry, and the source line of its `set.json`;
 *   - `boundary`: one row per boundary record of every set and type; `id` is the row id, in
 *     source order; `geom` (full resolution, the blob of geometry-blob.ts) and `geom_lo` (the
 *     overview copy for maps, simplified to {@link OVERVIEW_TOLERANCE_M}) are null for records
 *     published without geometry (the 2016 wards);
 *   - `parent_id` is the record one level up, resolved by code at build time (never by a
 *     point-in-polygon test: the Board's layers were simplified separately);
 *   - `ancestor`: every (boundary, ancestor) pair up the chain, for the `parent` list filter.
 * - `jurisdiction/<type>.flatbush`: the boxes of the type's records that have geometry; item `i`
 *   is the `i`-th such record by id, its id in `jurisdiction/<type>.ids.u32`.
 *
 * Headers, checked when a dataset is opened (file-headers.ts): the `.sqlite` file SQLite's own,
 * the `.flatbush` files Flatbush v4's (magic 0xfb, then version and array type); the `.u32`
 * arrays have none.
 */
export const JURISDICTION_FILES = {
  sqlite: 'jurisdiction/boundaries.sqlite',
  flatbush: (type: BoundaryType) => `jurisdiction/${type}.flatbush`,
  ids: (type: BoundaryType) => `jurisdiction/${type}.ids.u32`,
} as const

/**
 * The tables of `jurisdiction/boundaries.sqlite`. Kept byte for byte as first written (SQLite
 * stores each statement's text in `sqlite_master`): do not reformat.
 */
export const JURISDICTION_SCHEMA_SQL = `
    CREATE TABLE boundary_set (name TEXT PRIMARY KEY, source TEXT, effective_from TEXT, effective_to TEXT, geometry INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE boundary (
      id INTEGER PRIMARY KEY, type TEXT NOT NULL, code TEXT NOT NULL, name TEXT NOT NULL, category TEXT, province TEXT,
      parent_id INTEGER, parent_code TEXT, ward_number INTEGER, set_name TEXT NOT NULL, vintage TEXT NOT NULL,
      effective_from TEXT, effective_to TEXT, area_sqm REAL, min_x REAL, min_y REAL, max_x REAL, max_y REAL,
      label_lon REAL, label_lat REAL, vertices INTEGER, geom BLOB, geom_lo BLOB);
    CREATE TABLE ancestor (boundary_id INTEGER NOT NULL, ancestor_id INTEGER NOT NULL, PRIMARY KEY (ancestor_id, boundary_id)) WITHOUT ROWID;
  `

/** The indexes of `jurisdiction/boundaries.sqlite`, created after the rows are written. */
export const JURISDICTION_INDEX_SQL = `
    CREATE INDEX boundary_type_code ON boundary (type, code);
    CREATE INDEX boundary_parent ON boundary (parent_id);
  `

/** The keys of a jurisdiction chain, in the spec's order. */
export const CHAIN_TYPES = [
  'province',
  'district_municipality',
  'local_municipality',
  'ward',
  'registration_division',
  'deeds_office',
  'township',
] as const
export type ChainType = (typeof CHAIN_TYPES)[number]

/** Boundary types, as folder file names, path parameters and `types`/`layers` values: the chain's and two more. */
export const BOUNDARY_TYPES = [...CHAIN_TYPES, 'suburb', 'pre1994_municipal'] as const
export type BoundaryType = (typeof BOUNDARY_TYPES)[number]

/** The administrative hierarchy: each type's parent type (a metro's parent is its province). */
export const PARENT_TYPE: Partial<Record<BoundaryType, BoundaryType>> = {
  ward: 'local_municipality',
  local_municipality: 'district_municipality',
  district_municipality: 'province',
  registration_division: 'province',
  deeds_office: 'province',
  township: 'registration_division',
  suburb: 'township',
  pre1994_municipal: 'province',
}

/** Types on the dated demarcation and delimitation cycle (they carry `effective_from`). */
export const DATED_TYPES: ReadonlySet<BoundaryType> = new Set([
  'province',
  'district_municipality',
  'local_municipality',
  'ward',
])

/** Tolerance of the overview geometry kept for maps and heat maps. */
export const OVERVIEW_TOLERANCE_M = 100

/** A municipality's category from its code where the source has none (docs/decisions.md). */
export function categoryFromCode(code: string): 'A' | 'B' | 'C' {
  if (/^[A-Z]{3}$/.test(code)) return 'A'
  if (/^DC\d+$/.test(code)) return 'C'
  return 'B'
}
