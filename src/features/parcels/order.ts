/**
 * The orders parcels are answered in: versions of one LPI (current first), and most specific
 * first (docs/decisions.md), over rows and over index items (by their flags).
 */
import { FLAG_LAYER_MASK, PARCEL_TYPES, SPECIFICITY } from '../../data/parcels-format.js'
import type { Row } from './records.js'

const versionRank = (r: Row) => r.hidden * 10 + ({ C: 0, P: 1, H: 2 }[r.wstatus ?? 'C'] ?? 0)
/**
 * Versions of one LPI: visible first, then current (C or blank), proposed, historic; newest first
 * (no date last, as SQLite's `date_stamp DESC`); then by id. Sorted in JS: an `ORDER BY` made
 * SQLite build a temporary B-tree on every lookup.
 */
export const byVersion = (a: Row, b: Row) =>
  versionRank(a) - versionRank(b) || newerFirst(a.date_stamp ?? '', b.date_stamp ?? '') || a.id - b.id
/** Descending by code unit, as SQLite compares text ('' for no date: last). */
const newerFirst = (x: string, y: string) => (x === y ? 0 : x > y ? -1 : 1)
/** Ascending by code unit, as SQLite's BINARY collation orders these ASCII keys. */
export const ascending = (x: string, y: string) => (x === y ? 0 : x < y ? -1 : 1)

/**
 * docs/decisions.md: most specific layer first; within a layer the smaller parcel; versions of one LPI current first.
 */
export function mostSpecificFirst(rows: Row[]): Row[] {
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
  list.sort(
    (a, b) =>
      SPECIFICITY[a[0].parcel_type] - SPECIFICITY[b[0].parcel_type] ||
      a[0].extent_sqm - b[0].extent_sqm ||
      a[0].id - b[0].id,
  )
  return list.flat()
}

function distinctLpis(rows: Row[]): boolean {
  for (let a = 1; a < rows.length; a++) for (let b = 0; b < a; b++) if (rows[a].lpi === rows[b].lpi) return false
  return true
}
function byLayerSizeId(a: Row, b: Row): number {
  return SPECIFICITY[a.parcel_type] - SPECIFICITY[b.parcel_type] || a.extent_sqm - b.extent_sqm || a.id - b.id
}

// specificity by layer code, so sorting index hits needs no string lookups
const levelOfCode = new Uint8Array(FLAG_LAYER_MASK + 1)
PARCEL_TYPES.forEach((t, code) => {
  levelOfCode[code] = SPECIFICITY[t]
})

/** The specificity of index item i (0-based) from its flags. */
export function specificityOf(flags: Uint8Array, i: number): number {
  return levelOfCode[flags[i] & FLAG_LAYER_MASK]
}

/** The order of index items by specificity, then item: made once per dataset (its flags). */
export function bySpecificityOf(flags: Uint8Array): (a: number, b: number) => number {
  return (a, b) => specificityOf(flags, a) - specificityOf(flags, b) || a - b
}
