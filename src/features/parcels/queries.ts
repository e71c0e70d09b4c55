/**
 * The parcel service the routes, the benchmarks and the tests call: one object per open dataset
 * whose methods hand its store to the named queries of lookups.ts, spatial.ts, relations.ts and
 * coverage.ts.
 */
import type { OpenDataset } from '../../data/open-dataset.js'
import { PARCEL_TYPES } from '../../data/parcels-format.js'
import type { MultiPolygon } from '../../data/geometry-blob.js'
import type { BBox } from '../../geo/polygon.js'
import type { JsonBytes } from '../../http/json-bytes.js'
import { coverage } from './coverage.js'
import type { Filter } from './filter.js'
import { currentRow, geometryOfLpi, recordsOfLpi, recordsOfSourceKey } from './lookups.js'
import { recordsOf, toRecord, writeRecordOrNull, type ParcelRecord, type Row } from './records.js'
import { beacons, generalPlans, neighbours } from './relations.js'
import {
  FoundRows,
  currentVersions,
  firstRowAt,
  nearest,
  rowsAt,
  within,
  type FoundParcels,
  type ParcelPage,
} from './spatial.js'
import { ParcelStore } from './store.js'
import type { TileSource } from '../../http/tile-source.js'
import { boundsOf } from '../../http/tilejson.js'
import { parcelTileBytes, parcelTiles, type ParcelLayer } from './tiles.js'

export type { Filter } from './filter.js'
export type { ParcelRecord } from './records.js'
export type { FoundParcels, ParcelPage } from './spatial.js'

/** Parcel lookups over one open dataset; statements prepared once. */
export function createParcelQueries(ds: OpenDataset): ParcelQueries {
  return new ParcelQueries(new ParcelStore(ds))
}

export class ParcelQueries {
  readonly version: string
  readonly asOf: string
  readonly loadedAt: string

  constructor(private readonly store: ParcelStore) {
    this.version = store.version
    this.asOf = store.asOf
    this.loadedAt = store.loadedAt
  }

  toRecord(r: Row): ParcelRecord {
    return toRecord(r, this.store.version)
  }

  /** Every parcel containing the point (boundary included), most specific first. */
  at(lon: number, lat: number, f: Filter): ParcelRecord[] {
    return recordsOf(rowsAt(this.store, lon, lat, f), this.store.version)
  }

  /** `at()` for an answer written as bytes: the same records in the same order, no objects. */
  found(lon: number, lat: number, f: Filter): FoundParcels {
    return new FoundRows(rowsAt(this.store, lon, lat, f), this.store.versionJson)
  }

  /** The closest parcel within `maxM` metres (boundary distance), obeying the filter; ties: most specific, then id. */
  nearest(lon: number, lat: number, maxM: number, f: Filter): (ParcelRecord & { distance_meters: number }) | null {
    return nearest(this.store, lon, lat, maxM, f)
  }

  /** Records of an LPI (current first); empty when none is visible. */
  byLpi(lpi: string, f: Filter): ParcelRecord[] {
    return recordsOfLpi(this.store, lpi, f)
  }

  bySourceKey(key: string, f: Filter): ParcelRecord[] {
    return recordsOfSourceKey(this.store, key, f)
  }

  /** The current version's record and boundary. */
  geometry(lpi: string, f: Filter): { parcel: ParcelRecord; geometry: MultiPolygon } | null {
    return geometryOfLpi(this.store, lpi, f)
  }

  /** The boundary of the parcel whose record has this `id` (the GeoJSON answers draw it). */
  boundary(id: number): MultiPolygon {
    return this.store.geomOf(id)
  }

  /** Subject (current version) and its neighbours: touching from the precomputed table, or within a distance. */
  neighbours(lpi: string, mode: 'touching' | 'within', distanceM: number, limit: number, f: Filter) {
    return neighbours(this.store, lpi, mode, distanceM, limit, f)
  }

  beacons(lpi: string, f: Filter) {
    return beacons(this.store, lpi, f)
  }

  generalPlans(lpi: string, f: Filter) {
    return generalPlans(this.store, lpi, f)
  }

  /** Parcels intersecting the box, by id, after `afterId`; `more` says whether another page exists. */
  within(box: BBox, afterId: number, pageSize: number, f: Filter): ParcelPage {
    return within(this.store, box, afterId, pageSize, f)
  }

  /** The current version of each LPI meeting the box (every LPI when null), by id after `afterId`. */
  currentVersions(box: BBox | null, afterId: number, pageSize: number, f: Filter): ParcelPage {
    return currentVersions(this.store, box, afterId, pageSize, f)
  }

  /** The box of every parcel (west, south, east, north); null when there is none. */
  extent(): [number, number, number, number] | null {
    return boundsOf([this.store.index])
  }

  coverage() {
    return coverage(this.store)
  }

  /** A vector tile's bytes (none when no feature falls in it). */
  tile(z: number, x: number, y: number, layers: readonly ParcelLayer[]): Uint8Array {
    return parcelTileBytes(this.store, z, x, y, layers)
  }

  /** The tiles of `layers`, as the tile routes serve them (src/http/tile-source.ts). */
  tiles(layers: readonly ParcelLayer[]): TileSource {
    return parcelTiles(this.store, layers)
  }

  /**
   * Batch: the most specific published parcel at each point. The first answer of `at`, reading
   * only the rows of the most specific layer present (an LPI's versions share a layer, so the
   * order among them is the same as in `at`).
   */
  firstAt(lon: number, lat: number, f: Filter): ParcelRecord | null {
    const r = firstRowAt(this.store, lon, lat, f)
    return r ? toRecord(r, this.store.version) : null
  }

  /** Batch answers as bytes: `firstAt`'s record (or `null`) as JSON.stringify writes it; true when found. */
  writeFirstAt(w: JsonBytes, lon: number, lat: number, f: Filter): boolean {
    return writeRecordOrNull(w, firstRowAt(this.store, lon, lat, f), this.store.versionJson)
  }

  /** `currentRecord`'s record (or `null`) as JSON.stringify writes it; true when found. */
  writeCurrent(w: JsonBytes, lpi: string, f: Filter): boolean {
    return writeRecordOrNull(w, currentRow(this.store, lpi, f), this.store.versionJson)
  }

  currentRecord(lpi: string, f: Filter): ParcelRecord | null {
    const r = currentRow(this.store, lpi, f)
    return r ? toRecord(r, this.store.version) : null
  }
}

export { PARCEL_TYPES }
