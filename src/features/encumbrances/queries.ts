/**
 * The encumbrance service: reads of the encumbrance domain (src/data/encumbrance-format.ts) and,
 * for the parcel-facing operations, of the parcel domain's files (the parcel feature itself is
 * not imported; the parcel index is shared through the dataset). Each method hands on to the
 * module of its concern, over the files opened once in {@link EncumbranceStore}:
 *
 * - lookups.ts: a record by uid, a parcel's overlaps and summary (joins on the overlaps computed
 *   at build time), the parcels a record affects, /search, coverage;
 * - point-search.ts: `/at`, reading whole rows only for the records in the answer;
 * - spatial.ts: `/within` and one class in a box, through the per-class Flatbush indexes;
 * - intersect.ts: `/intersect`, the overlaps with the caller's geometry computed on the fly, over
 *   the candidates of candidates.ts;
 * - heatmap.ts, tiles.ts: density cells and vector tiles;
 * - parcels.ts: the parcel of an LPI or at a point, a parcel's geometry.
 *
 * @module
 */
import { FLAG_NOT_CURRENT, type EncumbranceClass } from '../../data/encumbrance-format.js'
import type { MultiPolygon } from '../../data/geometry-blob.js'
import type { OpenDataset } from '../../data/open-dataset.js'
import type { Lines } from '../../geo/lines.js'
import { areaSqm } from '../../geo/overlay/measure.js'
import type { BBox } from '../../geo/polygon.js'
import { heatCells, type HeatCell } from './heatmap.js'
import { intersect, type IntersectResult } from './intersect.js'
import {
  affectedParcels,
  coverage,
  overlapsOfParcel,
  recordByUid,
  search,
  summaryOfParcel,
  summaryOfParcelBySql,
  type CoverageRow,
  type ParcelSummary,
  type SearchFilters,
} from './lookups.js'
import type { ParcelRef } from './parcels.js'
import {
  areaOf,
  geometryOf,
  lineOf,
  type Drawn,
  type EncumbranceRow,
  type Overlap,
  type StoredGeometry,
} from './records.js'
import { recordsAt } from './point-search.js'
import { recordsInBox, recordsWithin } from './spatial.js'
import { EncumbranceStore } from './store.js'
import { encumbranceTileSet, tileBytes } from './tiles.js'
import type { TileSource } from '../../http/tile-source.js'
import { boundsOf } from '../../http/tilejson.js'

export { INTERSECT_MAX_ENCUMBRANCES, INTERSECT_MAX_PARCELS } from './candidates.js'
export { SEARCH_SCAN_WINDOW, sgPattern, type SearchFilters } from './lookups.js'
export type { ParcelRef } from './parcels.js'
export type { Drawn, EncumbranceRow, Overlap, StoredGeometry } from './records.js'

/** The encumbrance service of one open dataset (what the routes and the benchmarks call). */
export class EncumbranceQueries {
  readonly version: string
  readonly asOf: string
  readonly hasParcels: boolean
  /** The classes whose index the dataset holds. */
  readonly classes: EncumbranceClass[]
  private readonly store: EncumbranceStore

  constructor(ds: OpenDataset) {
    const store = new EncumbranceStore(ds)
    this.store = store
    this.version = store.version
    this.asOf = store.asOf
    this.hasParcels = store.parcels !== null
    this.classes = store.indexes.map((i) => i.cls)
  }

  // ---- parcels (read from the parcel domain's files)

  /** The current parcel of an LPI (the parcel service's default filter), or null. */
  parcelByLpi(lpi: string): ParcelRef | null {
    return this.store.parcels?.byLpi(lpi) ?? null
  }

  /** The most specific current parcel holding the point, or null. */
  parcelAt(lon: number, lat: number): ParcelRef | null {
    return this.store.parcels?.at(lon, lat) ?? null
  }

  parcelGeometry(id: number): MultiPolygon {
    return this.store.parcels!.geometry(id)
  }

  parcelArea(id: number): number {
    return areaSqm(this.parcelGeometry(id))
  }

  // ---- lookups

  overlapsOfParcel(parcelId: number): { row: EncumbranceRow; overlap: Overlap }[] {
    return overlapsOfParcel(this.store, parcelId)
  }

  summaryOfParcel(parcelId: number): ParcelSummary {
    return summaryOfParcel(this.store, parcelId)
  }

  summaryOfParcelBySql(parcelId: number): ParcelSummary {
    return summaryOfParcelBySql(this.store, parcelId)
  }

  byUid(uid: number): EncumbranceRow | null {
    return recordByUid(this.store, uid)
  }

  affectedParcels(encId: number): { parcel: ParcelRef; overlap: Overlap }[] {
    return affectedParcels(this.store, encId)
  }

  search(
    f: SearchFilters,
    limit: number,
    afterId: number,
  ): { rows: EncumbranceRow[]; next: number | null; windowEnd: number | null } {
    return search(this.store, f, limit, afterId)
  }

  coverage(): CoverageRow[] {
    return coverage(this.store)
  }

  private current: number | undefined

  /** How many records are current (what /search lists with no filter): counted once, from the flags. */
  currentCount(): number {
    if (this.current === undefined) {
      let n = 0
      for (const f of this.store.flags) if (!(f & FLAG_NOT_CURRENT)) n++
      this.current = n
    }
    return this.current
  }

  // ---- spatial

  at(
    lon: number,
    lat: number,
    radiusM: number,
    classes: readonly EncumbranceClass[],
  ): { row: EncumbranceRow; distanceM: number }[] {
    return recordsAt(this.store, lon, lat, radiusM, classes)
  }

  within(
    b: BBox,
    classes: readonly EncumbranceClass[],
    limit: number,
    afterId: number,
  ): { rows: Drawn[]; next: number | null } {
    return recordsWithin(this.store, b, classes, limit, afterId)
  }

  inBox(cls: EncumbranceClass, b: BBox, max: number): Drawn[] {
    return recordsInBox(this.store, cls, b, max)
  }

  intersect(geometry: { lines: Lines } | { mp: MultiPolygon }, classes: readonly EncumbranceClass[]): IntersectResult {
    return intersect(this.store, geometry, classes)
  }

  heatCells(b: BBox, k: number, classes: readonly EncumbranceClass[]): HeatCell[] {
    return heatCells(this.store, b, k, classes)
  }

  /** The box of every record of every class (west, south, east, north); null when there is none. */
  extent(): [number, number, number, number] | null {
    return boundsOf(this.store.indexes.map((i) => i.index))
  }

  /** A vector tile's bytes (none when no feature falls in it). */
  tile(z: number, x: number, y: number, classes: readonly EncumbranceClass[]): Uint8Array {
    return tileBytes(this.store, z, x, y, classes)
  }

  /**
   * The tiles of `classes`, made when asked, as the tile routes serve them
   * (src/http/tile-source.ts); the ETag names the dataset version and the classes.
   */
  tiles(classes: readonly EncumbranceClass[]): TileSource {
    const etag = `"${this.version}:${classes.join(',')}"`
    return {
      tileSet: () => encumbranceTileSet(classes, this.extent(), this.version, this.asOf),
      tile: (z, x, y) => ({ etag, encode: () => this.tile(z, x, y, classes) }),
    }
  }

  // ---- a record's geometry

  lineOf(r: EncumbranceRow): Lines | null {
    return lineOf(r)
  }

  areaOf(r: EncumbranceRow): MultiPolygon | null {
    return areaOf(r)
  }

  geometryOf(r: EncumbranceRow): StoredGeometry {
    return geometryOf(r)
  }
}

export function createEncumbranceQueries(ds: OpenDataset): EncumbranceQueries {
  return new EncumbranceQueries(ds)
}
