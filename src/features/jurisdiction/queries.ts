/**
 * The jurisdiction service (docs/api.md "Encumbrances and jurisdiction (spec 002)") over one open dataset: the public
 * face the routes, the
 * services and the bench call. It holds the store (store.ts) and one object per concern, and
 * hands each question to the module that answers it: the chain at a point (chain.ts, as answer
 * items in chain-items.ts), lookups by code and LPI (lookups.ts), name search (search.ts),
 * geometry for maps (geometry.ts) and the nearest boundary (nearest.ts).
 */
import type { BoundaryType } from '../../data/jurisdiction-format.js'
import type { OpenDataset } from '../../data/open-dataset.js'
import { PROVINCES, type ProvinceCode } from '../../data/provinces.js'
import type { MultiPolygon } from '../../data/geometry-blob.js'
import { ChainResolver, type Resolution } from './chain.js'
import { ChainItems, type BatchItem } from './chain-items.js'
import { BoundaryShapes } from './geometry.js'
import { childrenInForce, listBoundaries, resolveParcel, type ListFilter, type ParcelResolution } from './lookups.js'
import { NearestFinder, type NearestBoundary } from './nearest.js'
import { recordOf, type BoundaryRow, type BoundarySetInfo, type Link } from './records.js'
import { NameSearch, type SearchHit } from './search.js'
import { boundsOf } from '../../http/tilejson.js'
import { JurisdictionStore } from './store.js'

export type { Chain, Resolution } from './chain.js'
export type { BatchItem } from './chain-items.js'
export type { ListFilter } from './lookups.js'
export { inForce, type BoundaryRow, type BoundarySetInfo, type Link } from './records.js'

/** Boundary lookups over one open dataset: everything is read or built once, in the constructor. */
export class JurisdictionQueries {
  readonly version: string
  readonly asOf: string
  readonly sets: BoundarySetInfo[]
  readonly earliest: string | null
  readonly installedTypes: BoundaryType[]
  private readonly store: JurisdictionStore
  private readonly chains: ChainResolver
  private readonly items: ChainItems
  private readonly names: NameSearch
  private readonly shapes: BoundaryShapes
  private readonly nearestFinder: NearestFinder

  constructor(ds: OpenDataset) {
    const store = (this.store = new JurisdictionStore(ds))
    this.version = store.version
    this.asOf = store.asOf
    this.sets = store.sets
    this.earliest = store.earliest
    this.installedTypes = store.installedTypes
    this.chains = new ChainResolver(store)
    this.items = new ChainItems(this.chains, store.earliest)
    this.names = new NameSearch(store)
    this.shapes = new BoundaryShapes(store)
    this.nearestFinder = new NearestFinder(store)
  }

  /** The box of every boundary with geometry (west, south, east, north); null when there is none. */
  extent(): [number, number, number, number] | null {
    return boundsOf([...this.store.indexes.values()].map((l) => l.index))
  }

  // ---- records
  all(): BoundaryRow[] {
    return this.store.all
  }
  byId(id: number): BoundaryRow | undefined {
    return this.store.byId(id)
  }
  byCode(type: BoundaryType, code: string, d: string): BoundaryRow | null {
    return this.store.byCode(type, code, d)
  }
  codeExists(type: BoundaryType, code: string): boolean {
    return this.store.codeExists(type, code)
  }
  versionsOf(type: BoundaryType, code: string): BoundaryRow[] {
    return this.store.versionsOf(type, code)
  }
  ancestorsOf(r: BoundaryRow): BoundaryRow[] {
    return this.store.ancestorsOf(r)
  }
  childrenOf(r: BoundaryRow, d: string): BoundaryRow[] {
    return childrenInForce(this.store, r, d)
  }
  list(type: BoundaryType, f: ListFilter): BoundaryRow[] {
    return listBoundaries(this.store, type, f)
  }
  provincesWith(type: BoundaryType): string[] {
    return this.store.provincesWith(type)
  }
  /** The record object of the list, detail, children and search answers. */
  record(r: BoundaryRow): Record<string, unknown> {
    return recordOf(r, r.parentId !== null ? this.store.byId(r.parentId) : undefined)
  }
  link(r: BoundaryRow): Link {
    return this.chains.frozenLink(r)
  }
  /** Rows, rejects and repairs of one `<set>/<type>` layer, from the manifest. */
  layerStats(key: string) {
    return this.store.manifest.layers[key] ?? null
  }
  provinceName(code: string): string {
    return PROVINCES[code as ProvinceCode] ?? code
  }

  // ---- the chain
  resolve(lon: number, lat: number, d: string): Resolution {
    return this.chains.chainAt(lon, lat, d)
  }
  resolveItem(lon: number, lat: number, d: string): BatchItem | null {
    return this.items.pointItem(lon, lat, d)
  }
  resolveBatch(
    points: readonly { latitude: number; longitude: number }[],
    d: string,
  ): { items: (BatchItem | null)[]; found: number } {
    return this.items.batchItems(points, d)
  }
  resolveParcel(lpi: string, d: string): ParcelResolution | null | 'no-parcels' {
    return resolveParcel(this.store, this.chains, lpi, d)
  }
  nearest(lon: number, lat: number, d: string, maxResults?: number): NearestBoundary | null {
    return this.nearestFinder.closest(lon, lat, d, maxResults)
  }

  // ---- search and geometry
  search(q: string, types: readonly BoundaryType[], d: string, limit: number): SearchHit[] {
    return this.names.find(q, types, d, limit)
  }
  geometry(r: BoundaryRow): MultiPolygon | null {
    return this.shapes.geometryOf(r)
  }
  overview(r: BoundaryRow): MultiPolygon | null {
    return this.shapes.overviewOf(r)
  }
  simplifiedFor(r: BoundaryRow, tolM: number): { geometry: MultiPolygon; toleranceM: number } | null {
    return this.shapes.simplifiedOf(r, tolM)
  }
  inBox(type: BoundaryType, minX: number, minY: number, maxX: number, maxY: number, d: string): BoundaryRow[] {
    return this.shapes.recordsInBox(type, minX, minY, maxX, maxY, d)
  }
}

/** The jurisdiction service of an open dataset (see services.ts). */
export function createJurisdictionQueries(ds: OpenDataset): JurisdictionQueries {
  return new JurisdictionQueries(ds)
}
