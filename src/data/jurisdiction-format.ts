/**
 * The jurisdiction domain's files inside a dataset, shared by build-index (writer) and the
 * server (reader).
 *
 * - `jurisdiction/boundaries.sqlite`:
 *   - `boundary_set`: one row per source set folder (`2011`, `2016`, `2018`, `2020`, `register`…)
 *     with its dates, whether it carries geometry, and the source line of its `set.json`;
 *   - `boundary`: one row per boundary record of every set and type; `id` is the row id, in
 *     source order; `geom` (full resolution, encoded as in parcels-format) and `geom_lo` (the
 *     overview copy for maps, simplified to {@link OVERVIEW_TOLERANCE_M}) are null for records
 *     published without geometry (the 2016 wards);
 *   - `parent_id` is the record one level up, resolved by code at build time (never by a
 *     point-in-polygon test: the Board's layers were simplified separately);
 *   - `ancestor`: every (boundary, ancestor) pair up the chain, for the `parent` list filter.
 * - `jurisdiction/<type>.flatbush`: the boxes of the type's records that have geometry; item `i`
 *   is the `i`-th such record by id, its id in `jurisdiction/<type>.ids.u32`.
 */
export const JURISDICTION_FILES = {
  sqlite: 'jurisdiction/boundaries.sqlite',
  flatbush: (type: BoundaryType) => `jurisdiction/${type}.flatbush`,
  ids: (type: BoundaryType) => `jurisdiction/${type}.ids.u32`,
} as const

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
export const DATED_TYPES: ReadonlySet<BoundaryType> = new Set(['province', 'district_municipality', 'local_municipality', 'ward'])

/** Tolerance of the overview geometry kept for maps and heat maps. */
export const OVERVIEW_TOLERANCE_M = 100

/** A municipality's category from its code where the source has none (DECISIONS.md). */
export function categoryFromCode(code: string): 'A' | 'B' | 'C' {
  if (/^[A-Z]{3}$/.test(code)) return 'A'
  if (/^DC\d+$/.test(code)) return 'C'
  return 'B'
}
