/**
 * What the PostGIS side by side records (results.json) and its fixed settings: targets,
 * connection count, the probes' and the comparison's tolerances.
 */
import { EDGE_TOL_M } from '../../../src/geo/overlay/tolerance.js'
import type { PgbenchResult } from '../../lib/postgis.js'
import type { Summary } from '../../lib/stats.js'

export const TARGETS = { perQueryX: 50, throughputX: 3 }
export const CONNECTIONS = 8
/**
 * Geography KNN orders on the sphere, which is within 0.7 % of the ellipsoid either way: the
 * ellipsoid-nearest plot lies within (1.007)² of the sphere-nearest one's sphere distance.
 */
export const KNN_SLACK = 1.015
/** Distances of ours are rounded to the centimetre in the answer. */
export const DIST_TOL_M = 0.01
/**
 * Corridor probes: length range, spacing of the positions, largest turn per step, and how far a step's end may move to
 * a parcel's label point.
 */
export const CORRIDOR = { minM: 2_000, maxM: 5_000, stepM: 250, turnDeg: 25, snapM: 80 }
/**
 * A parcel only ours lists must be entered by at most our edge tolerance plus half a centimetre.
 * A parcel only PostGIS lists is an edge case when ours measures the route as running along its
 * boundary there (`lineOverlap`: touches, at least that length in `boundaryM`) and PostGIS finds
 * the piece inside wholly within twice the tolerance (plus the slack) of the boundary: a route
 * along a shared edge a few mm to one side, or a corner cut (ours classifies each piece of the
 * route by its midpoint, within 2 cm being along the boundary, so a piece whose midpoint is that
 * close and its deepest point a little further counts as a touch).
 */
export const PARCEL_EDGE_M = EDGE_TOL_M + 0.005
export const PARCEL_EDGE_DEPTH_M = 2 * EDGE_TOL_M + 0.005
/** Lengths inside an encumbrance agree within this many metres or this share of the length, whichever is larger. */
export const LENGTH_TOL = { m: 0.05, share: 0.001 }

/** The endpoint each query is served by. */
export const HTTP_ENDPOINT = {
  nearest: '/plots/reverse',
  radius: '/plots/search-given-coordinates',
  at: '/parcels/at',
} as const
export type HttpOp = keyof typeof HTTP_ENDPOINT

export type OpName = 'nearest' | 'radius' | 'at' | 'corridor'

export interface OpRow {
  op: OpName
  probes: number
  ours: Summary
  oursOpsPerS: number
  pgSeq: Summary
  pgSeqQps: number
  pgConc: Summary
  pgConcQps: number
  /**
   * mean execution time inside the server during the 1-connection pass (pg_stat_statements), no round trip; null when
   * unavailable
   */
  pgServerMeanUs: number | null
  /**
   * the same statement and probes through pgbench (C client, one thread): 1 connection, and 8; absent when pgbench is
   * not installed or failed (see notes)
   */
  pgbenchSeq?: PgbenchResult
  pgbench?: PgbenchResult
  meanResultsOurs: number
  meanResultsPg: number
  agreement: { agreed: number; tolerated: number; disagreed: number }
}

/** Why an encumbrance uid is met on one side only (see {@link explainDifference}). */
export type DifferenceKind = 'tolerance' | 'edge model' | 'unexplained'

export interface CorridorDifference {
  route: number
  uid: number
  /** the side that lists the uid */
  side: 'ours' | 'PostGIS'
  cls: string
  kind: DifferenceKind
  /** geography ST_Distance between the record and the route, m */
  gapM: number
  /** ST_Intersects on geometry (straight edges in lon/lat, as ours) */
  planarMeets: boolean
  /** ST_Distance on geometry, degrees */
  planarGapDeg: number
}

export interface CorridorData {
  load: {
    encumbrances: number
    prepareMs: number
    copyMs: number
    indexMs: number
    analyzeMs: number
    tableBytes: number
    indexBytes: number
  }
  routes: {
    count: number
    meanLengthM: number
    minLengthM: number
    maxLengthM: number
    meanPositions: number /** positions moved onto a parcel's label point */
    snappedShare: number
  }
  /** the route's whole handler in process (`app.request`, JSON answer read back as text), per route */
  handler: Summary | null
  encumbrances: { agreed: number; tolerated: number; disagreed: number; probes: number }
  /** records met on both sides: ours `overlap_m` vs PostGIS's geography length of the intersection */
  lengths: {
    pairs: number
    within: number
    medianAbsM: number
    maxAbsM: number
    worst: string | null
    /**
     * of the pairs outside the tolerance: those whose PostGIS length with straight edges (geometry intersection) is
     * within it of ours
     */
    outsideStraightAgree: number
    /** the others (at most 5) */
    otherOutliers: string[]
  }
  parcels: {
    agreed: number
    tolerated: number
    disagreed: number
    meanOurs: number
    meanPg: number
    examples: string[]
  }
  /** every uid met on one side only, classified (at most 50 kept) */
  differences: CorridorDifference[]
  differenceCounts: Record<DifferenceKind, number>
}

export interface PostgisData {
  skipped?: string
  server?: string
  install?: { packages: string | null; ms: number }
  load?: {
    plots: number
    parcels: number
    prepareMs: number
    copyMs: number
    indexMs: number
    analyzeMs: number
    tableBytes: number
    indexBytes: number
  }
  connections?: number
  rows?: OpRow[]
  /** our HTTP req/s with 2 workers from results.json, when the http / parcels suites have run */
  http?: {
    op: OpName
    endpoint: string
    reqPerS: number
    ranAt: string
    /**
     * CPU per request on one worker from the suite's profile: all of it, and the lookup with its answer (service code +
     * serialisation)
     */
    cpu?: { totalUs: number; answerUs: number }
  }[]
  corridor?: CorridorData
  /**
   * ours over HTTP and PostGIS taking turns on the same probes in this run (absent with --no-http and in records before
   * 2026-11-27)
   */
  sameRun?: SameRunHttp
  notes?: string[]
}

export interface Probes {
  lon: Float64Array
  lat: Float64Array
  length: number
}

/** Answer of one probe on either side: ids in order, and distances (corridor: lengths) where the query has them. */
export interface Answer {
  ids: number[]
  d?: number[]
  /** corridor: the parcels entered and the length inside each */
  parcels?: number[]
  parcelM?: number[]
}

/** One turn of each side on one op. */
export interface SameRunTurn {
  oursReqPerS: number
  oursP50Ms: number
  oursP99Ms: number
  oursErrors: number
  pgQps: number
}

export interface SameRunOp {
  op: HttpOp
  endpoint: string
  probes: number
  /** answers fetched once over HTTP and compared with ours in process (and so with PostGIS's) */
  checked: number
  agreed: number
  turns: SameRunTurn[]
}

/** Ours over HTTP and PostGIS without HTTP on the same probes, taking turns in the same run. */
export interface SameRunHttp {
  tool: 'wrk' | 'autocannon'
  workers: number
  connections: number
  durationS: number
  /**
   * PostGIS's client in the turns: pgbench when installed, else the `pg` clients (one pass over the probes per turn)
   */
  pgClient: 'pgbench' | 'pg'
  pgConnections: number
  pgSeconds: number
  ops: SameRunOp[]
}
