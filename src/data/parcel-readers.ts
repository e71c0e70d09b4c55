/**
 * The parcel domain's files as the services read them, shared by the parcel, encumbrance and
 * jurisdiction services (each answers by parcel): the Flatbush and the flags array, read once
 * per dataset, rows by LPI, and which version of an LPI a lookup answers with. The files
 * themselves are described in parcels-format.ts.
 */
import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import { LpiHashIndex } from './lpi-hash.js'
import type { OpenDataset } from './open-dataset.js'
import { FLAG_HIDDEN, PARCEL_FILES } from './parcels-format.js'

/** The parcel Flatbush of a dataset, read once and shared by every service that searches parcels. */
export function sharedParcelIndex(ds: OpenDataset): Flatbush {
  return ds.memo(PARCEL_FILES.flatbush, () => Flatbush.from(ds.arrayBuffer(PARCEL_FILES.flatbush)))
}

/** The parcel flags array of a dataset (layer and hidden bit per parcel), read once and shared. */
export function sharedParcelFlags(ds: OpenDataset): Uint8Array {
  return ds.memo(PARCEL_FILES.flags, () => new Uint8Array(ds.arrayBuffer(PARCEL_FILES.flags)))
}

/**
 * The rows of table `parcel` carrying an LPI (exactly, as SQL's `lpi = ?`), ascending id, only
 * the visible ones (`hidden = 0`) when asked; `columns` must include `lpi`. Through the LPI hash
 * index where the dataset has one (its candidates' hidden flag checked before any row is read,
 * each row's LPI compared), else through SQLite's `parcel_lpi` index. Used by every lookup by LPI.
 */
export function lpiRowReader<T extends { lpi: string }>(
  ds: OpenDataset,
  db: Database.Database,
  columns: string,
  visibleOnly: boolean,
): (lpi: string) => T[] {
  if (!ds.has(PARCEL_FILES.lpiHash)) {
    const st = db.prepare(`SELECT ${columns} FROM parcel WHERE lpi = ?${visibleOnly ? ' AND hidden = 0' : ''}`)
    return (lpi) => st.all(lpi) as T[]
  }
  const hash = ds.memo(PARCEL_FILES.lpiHash, () => new LpiHashIndex(ds.arrayBuffer(PARCEL_FILES.lpiHash)))
  const flags = visibleOnly ? sharedParcelFlags(ds) : null
  const byId = db.prepare(`SELECT ${columns} FROM parcel WHERE id = ?`)
  return (lpi) => {
    const out: T[] = []
    for (const id of hash.candidates(lpi)) {
      if (flags && flags[id - 1] & FLAG_HIDDEN) continue
      const r = byId.get(id) as T | undefined
      if (r && r.lpi === lpi) out.push(r)
    }
    return out
  }
}

/**
 * Of the visible versions of one LPI, the one a lookup by LPI answers with: the current one
 * (`wstatus` C or blank) first, then the lowest id; null when there is none. Picked in JS: an
 * `ORDER BY … LIMIT 1` made SQLite build a temporary B-tree on every call, about a fifth of a
 * national-scale lookup in a tight loop, for what is almost always one row.
 */
export function publishedVersion<T extends { id: number; wstatus: string | null }>(rows: readonly T[]): T | null {
  let best: T | null = null
  let bestRank = 2
  for (const r of rows) {
    const rank = r.wstatus === null || r.wstatus === 'C' ? 0 : 1
    if (rank < bestRank || (rank === bestRank && r.id < best!.id)) {
      best = r
      bestRank = rank
    }
  }
  return best
}
