/** Parcels by identifier: the versions of an LPI or of a Surveyor-General source key, current first. */
import type { MultiPolygon } from '../../data/geometry-blob.js'
import type { Filter } from './filter.js'
import { byVersion } from './order.js'
import { recordsOf, toRecord, type ParcelRecord, type Row } from './records.js'
import type { ParcelStore } from './store.js'

function visibleVersions(rows: Row[], f: Filter): Row[] {
  return f.all ? rows : rows.filter((r) => !r.hidden)
}

/** The current (first) visible version of an LPI, or null. */
export function currentRow(s: ParcelStore, lpi: string, f: Filter): Row | null {
  return visibleVersions(s.rowsOfLpi(lpi).sort(byVersion), f)[0] ?? null
}

/** Records of an LPI (current first); empty when none is visible. */
export function recordsOfLpi(s: ParcelStore, lpi: string, f: Filter): ParcelRecord[] {
  return recordsOf(visibleVersions(s.rowsOfLpi(lpi).sort(byVersion), f), s.version)
}

/** Records of a source key (current first); empty when none is visible. */
export function recordsOfSourceKey(s: ParcelStore, key: string, f: Filter): ParcelRecord[] {
  return recordsOf(visibleVersions((s.st.byKey.all(key) as Row[]).sort(byVersion), f), s.version)
}

/** The current version's record and boundary. */
export function geometryOfLpi(
  s: ParcelStore,
  lpi: string,
  f: Filter,
): { parcel: ParcelRecord; geometry: MultiPolygon } | null {
  const r = currentRow(s, lpi, f)
  return r ? { parcel: toRecord(r, s.version), geometry: s.geomOf(r.id) } : null
}
