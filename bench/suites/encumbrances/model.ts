/** What the encumbrance suite records (results.json), its targets, and the names of its two variants. */
import type { HttpRoundsData } from '../../lib/http-rounds.js'
import type { OpRow } from '../../lib/measure.js'

/** Issue targets (national scale). */
export const TARGETS = {
  parcelP50Ms: 1,
  intersectRouteP50Ms: 100,
  tileP50Ms: 20,
  /** `/encumbrances/at` throughput over `/parcels/at`'s, whole handler (issue #37 item 4) */
  atThroughputRatio: 0.5,
}

/** A timed operation: the OpRow plus per-request extras read from the answers afterwards. */
export interface IntersectRow extends OpRow {
  /** 'route' (LineString) or 'area' (Polygon) */
  kind: 'route' | 'area'
  meanParcels: number
  /** requests whose answer said it truncated the encumbrance / parcel list */
  truncatedEncumbrances: number
  truncatedParcels: number
  requests: number
  meanBytes: number
}

export interface RouteInfo {
  lengthKm: number
  positions: number
  /** dense townships the route was drawn through */
  townships: number
  encumbrances: number
  parcels: number
  encumbrancesTruncated: boolean
  parcelsTruncated: boolean
  bytes: number
  /** whole handler, median of this route's timed calls */
  p50Ms: number
}

export interface TileData {
  tiles: number
  cells: number
  rounds: number
  row: OpRow
  share204: number
  /** mean bytes of the tiles answered 200 */
  meanBytes: number
  maxBytes: number
}

export interface EncumbrancesData {
  records: number
  current: number
  overlaps: number
  version: string
  asOf: string
  /** dense-township clusters found in heat_cell (see {@link denseTownships}) */
  townships: number
  lpis: number
  lpiRounds: number
  /** LPIs whose parcel has overlaps / has none */
  withOverlaps: number
  withoutOverlaps: number
  lookupRows: OpRow[]
  intersectRounds: number
  intersectRows: IntersectRow[]
  routes: RouteInfo[]
  areas: { count: number; meanAreaKm2: number; positions: number }
  tiles: TileData | null
  /** `/encumbrances/at` in process, with `/parcels/at` on the same points (absent in older records) */
  atPoints?: number
  atRounds?: number
  atRows?: OpRow[]
  http: HttpRoundsData | null
  notes: string[]
  skipped?: string
}

export const WHOLE = 'whole handler (app.request, no socket)'
export const QUERIES = 'queries only'

export const skipped = (reason: string): EncumbrancesData => ({
  records: 0,
  current: 0,
  overlaps: 0,
  version: '',
  asOf: '',
  townships: 0,
  lpis: 0,
  lpiRounds: 0,
  withOverlaps: 0,
  withoutOverlaps: 0,
  lookupRows: [],
  intersectRounds: 0,
  intersectRows: [],
  routes: [],
  areas: { count: 0, meanAreaKm2: 0, positions: 0 },
  tiles: null,
  http: null,
  notes: [],
  skipped: reason,
})
