/**
 * The parcel domain's files as the encumbrance feature reads them (the parcel feature itself is
 * not imported; the parcel index and flags are shared through the dataset): a parcel's
 * reference and geometry, the current parcel of an LPI, the most specific parcel at a point.
 *
 * @module
 */
import type Database from 'better-sqlite3'
import type Flatbush from 'flatbush'
import type { OpenDataset } from '../../data/open-dataset.js'
import {
  FLAG_HIDDEN,
  FLAG_LAYER_MASK,
  PARCEL_FILES,
  PARCEL_TYPES,
  SPECIFICITY,
  layerCode,
  type ParcelType,
} from '../../data/parcels-format.js'
import { lpiRowReader, publishedVersion, sharedParcelFlags, sharedParcelIndex } from '../../data/parcel-readers.js'
import { containsPointEncoded, decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'

/** A parcel as the encumbrance answers name it. */
export interface ParcelRef {
  id: number
  lpi: string
  parcel_type: ParcelType
  province: string
  extent_sqm: number
}

/** The layer code of parent farms (never listed by /intersect). */
export const PARENT_FARM = layerCode('PARENT_FARM')

/** The parcel files, opened once per dataset that holds the parcel domain. */
export class ParcelStore {
  readonly index: Flatbush
  readonly flags: Uint8Array
  // every visible version; byLpi picks one (see there)
  private readonly rowsOfLpi: (lpi: string) => (ParcelRef & { wstatus: string | null })[]
  // the parcel type comes from the flags; a raw array and one literal (see ref)
  private readonly refStmt: Database.Statement
  private readonly geomStmt: Database.Statement

  constructor(ds: OpenDataset) {
    const db = ds.sqlite(PARCEL_FILES.sqlite)
    this.index = sharedParcelIndex(ds)
    this.flags = sharedParcelFlags(ds)
    this.rowsOfLpi = lpiRowReader<ParcelRef & { wstatus: string | null }>(
      ds,
      db,
      'id, lpi, parcel_type, province, extent_sqm, wstatus',
      true,
    )
    this.refStmt = db.prepare('SELECT lpi, province, extent_sqm FROM parcel WHERE id = ?').raw(true)
    this.geomStmt = db.prepare('SELECT geom FROM parcel WHERE id = ?').pluck()
  }

  /**
   * A parcel's reference by id (`/intersect` lists up to 10,000): read as a raw array, as an
   * object built property by property by better-sqlite3 cost about a third more.
   */
  ref(id: number): ParcelRef {
    const a = this.refStmt.get(id) as [string, string, number]
    return {
      id,
      lpi: a[0],
      parcel_type: PARCEL_TYPES[this.flags[id - 1] & FLAG_LAYER_MASK],
      province: a[1],
      extent_sqm: a[2],
    }
  }

  /** A parcel's stored geometry blob. */
  geometryBlob(id: number): Buffer {
    return this.geomStmt.get(id) as Buffer
  }

  geometry(id: number): MultiPolygon {
    return decodeGeometry(this.geometryBlob(id))
  }

  /** The current parcel of an LPI (the parcel service's default filter, publishedVersion), or null. */
  byLpi(lpi: string): ParcelRef | null {
    const p = publishedVersion(this.rowsOfLpi(lpi))
    return p
      ? { id: p.id, lpi: p.lpi, parcel_type: p.parcel_type, province: p.province, extent_sqm: p.extent_sqm }
      : null
  }

  /** The most specific current parcel holding the point (docs/decisions.md "most specific first"), or null. */
  at(lon: number, lat: number): ParcelRef | null {
    const flags = this.flags
    const hits = this.index.search(lon, lat, lon, lat, (i) => !(flags[i] & FLAG_HIDDEN))
    let best: { id: number; spec: number; area: number } | null = null
    for (const i of hits) {
      const spec = SPECIFICITY[PARCEL_TYPES[flags[i] & FLAG_LAYER_MASK]]
      if (best && spec > best.spec) continue
      const blob = this.geometryBlob(i + 1)
      if (!containsPointEncoded(blob, lon, lat)) continue
      const ref = this.ref(i + 1)
      if (!best || spec < best.spec || ref.extent_sqm < best.area || (ref.extent_sqm === best.area && i + 1 < best.id))
        best = { id: i + 1, spec, area: ref.extent_sqm }
    }
    return best ? this.ref(best.id) : null
  }
}
