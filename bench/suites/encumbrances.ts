/**
 * The encumbrance service: `/encumbrances/parcel/{lpi}` and `/encumbrances/summary/parcel/{lpi}`,
 * `POST /encumbrances/intersect` with 200 km routes and 25 km² areas through dense townships, and
 * vector tiles at z14 over the densest township cells, in process; `/encumbrances/parcel/{lpi}`
 * over HTTP with 1 and 2 workers next to the Hono hello-world floor of the same run.
 *
 * In process, "whole handler" sends each request through the app (`app.request`: routing, key
 * check, rate limit, validation, queries, the JSON or MVT answer read back as text or bytes, not
 * parsed) without a socket; "queries only" is the `createEncumbranceQueries` calls the route
 * makes, without shaping the answer. Every answer is checked afterwards (untimed) against the
 * in-process queries.
 *
 * Probe sets, all seeded (`--seed`) and drawn from the dataset itself:
 * - LPIs: parcel rows drawn uniformly by id, kept when the LPI's current version (what the route
 *   serves) has encumbrance overlaps (80 %) or has none (20 %);
 * - dense townships: the `heat_cell` table (current records per 0.01° cell) gathered into
 *   clusters of cells within {@link CLUSTER_DEG} of the densest one;
 * - routes: from a dense township, hop to further dense townships ahead (turns bounded by
 *   {@link TURN_LIMITS}), each hop gently bent, then cut at {@link ROUTE_TARGET_M}; the best of
 *   {@link ROUTE_DRAWS} draws that pass the route's own validation (`parseInputGeometry`:
 *   length, positions, not self-intersecting);
 * - areas: 5 km × 5 km squares (25 km²) at a random angle on a dense township;
 * - tiles: the z14 tiles of random points in the densest heat cells.
 *
 * Issue targets at national scale: `/intersect` of a 200 km line through dense townships p50 <=
 * 100 ms, `/parcel/{lpi}` p50 <= 1 ms, a z14 tile in a dense township <= 20 ms (p50).
 *
 * @module
 */
import { createApp } from '../../src/app.js'
import { ENCUMBRANCE_CLASSES, ENCUMBRANCE_FILES, HEAT_CELL_DEG } from '../../src/data/encumbrance-format.js'
import { openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { parseInputGeometry } from '../../src/features/encumbrances/geometry-input.js'
import { INTERSECT_MAX_ENCUMBRANCES, INTERSECT_MAX_PARCELS, type EncumbranceQueries } from '../../src/features/encumbrances/queries.js'
import { ROUTE_MAX_M } from '../../src/features/encumbrances/schemas.js'
import { fastGeodesicM, metresPerDegree } from '../../src/geo/geodesic.js'
import { lineLengthM } from '../../src/geo/overlay/measure.js'
import { tileAt } from '../../src/geo/tiles.js'
import { withInProcessApp } from '../lib/batches.js'
import { httpRoundsSection, runHttpRounds, type HttpRoundsData } from '../lib/http-rounds.js'
import { measureAsync, type OpRow } from '../lib/measure.js'
import { Random } from '../lib/prng.js'
import { verdict } from '../lib/report.js'
import { fmt, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

/** Issue targets (national scale). */
export const TARGETS = { parcelP50Ms: 1, intersectRouteP50Ms: 100, tileP50Ms: 20 }
/** Share of LPIs drawn among parcels with encumbrance overlaps (the rest have none). */
const WITH_SHARE = 0.8
/** Heat cells within this distance (degrees, each axis) of a cluster's densest cell join it: one township. */
const CLUSTER_DEG = 0.04
/** Routes start in one of this many densest townships. */
const START_POOL = 20
/** Route length: the spec's 200 km less 0.1 %, so rounding to 7 decimals never takes it over. */
const ROUTE_TARGET_M = ROUTE_MAX_M * 0.999
/** A hop goes to a township at least this far away (not the same one). */
const MIN_HOP_M = 5_000
/**
 * Largest turn between two hops and largest angle off the route's first heading, degrees: the
 * first pair, else (no township ahead) the second.
 */
const TURN_LIMITS = [
  [60, 80],
  [100, 135],
] as const
/** Spacing of a route's positions, metres. */
const STEP_M = 300
/** Bends: the bow of a hop (share of its length, at most BOW_MAX_M) and a small wiggle. */
const BOW_SHARE = 0.06
const BOW_MAX_M = 2_500
const WIGGLE_M = 120
const WIGGLE_WAVE_M = 6_000
/** Valid draws per route, the one through the most records kept; tries before a route is given up (a try that self-intersects is drawn again). */
const ROUTE_DRAWS = 6
const ROUTE_TRIES = 40
/** The area case: a square of this side (25 km²), edges with a position every AREA_STEP_M. */
const AREA_SIDE_M = 5_000
const AREA_STEP_M = 250
const TILE_ZOOM = 14
/** Tiles are drawn in the densest heat cells: this share of the cells, at least TILE_MIN_CELLS. */
const TILE_CELL_SHARE = 0.02
const TILE_MIN_CELLS = 20

type LonLat = [number, number]

/** A route's positions, the dense townships it passes and the current records in them. */
interface DrawnRoute {
  coordinates: LonLat[]
  townships: number
  records: number
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
  http: HttpRoundsData | null
  notes: string[]
  skipped?: string
}

// ---------------------------------------------------------------------------------------------
// probe sets

/** `count` LPIs of current parcels: `kind` 0 = its parcel has encumbrance overlaps, 1 = none. */
export function makeLpiProbes(ds: OpenDataset, s: EncumbranceQueries, count: number, seed: number, label: string, withShare = WITH_SHARE): { lpi: string[]; parcelId: number[]; kind: Uint8Array; length: number } {
  const pdb = ds.sqlite(PARCEL_FILES.sqlite)
  const edb = ds.sqlite(ENCUMBRANCE_FILES.sqlite)
  const maxId = (pdb.prepare('SELECT max(id) FROM parcel').pluck().get() as number | null) ?? 0
  const row = pdb.prepare('SELECT lpi FROM parcel WHERE id = ? AND hidden = 0').pluck()
  const hasOverlap = edb.prepare('SELECT 1 FROM parcel_overlap WHERE parcel_id = ? LIMIT 1').pluck()
  const rnd = new Random(seed >>> 0, `bench/encumbrances/${label}`)
  const want = [Math.round(count * withShare), count - Math.round(count * withShare)]
  const lpi: string[] = []
  const parcelId: number[] = []
  const kinds: number[] = []
  const seen = new Set<string>()
  // uniform over parcel rows (so mostly erven, as the cadastre is), until both quotas are met
  for (let tries = 0; maxId && lpi.length < count && tries < count * 200; tries++) {
    const l = row.get(rnd.int(1, maxId)) as string | undefined
    if (!l || seen.has(l)) continue
    const p = s.parcelByLpi(l)
    if (!p) continue
    const kind = hasOverlap.get(p.id) ? 0 : 1
    if (want[kind] === 0) continue
    want[kind]--
    seen.add(l)
    lpi.push(l)
    parcelId.push(p.id)
    kinds.push(kind)
  }
  return { lpi, parcelId, kind: Uint8Array.from(kinds), length: lpi.length }
}

interface Township {
  lon: number
  lat: number
  /** current records in its cells */
  n: number
  cells: number
}

/** Current records per 0.01° cell, every class summed, densest first. */
function heatCells(ds: OpenDataset): { cx: number; cy: number; n: number }[] {
  return ds
    .sqlite(ENCUMBRANCE_FILES.sqlite)
    .prepare('SELECT cx, cy, sum(n) AS n FROM heat_cell GROUP BY cx, cy ORDER BY n DESC, cy, cx')
    .all() as { cx: number; cy: number; n: number }[]
}

/**
 * Dense townships: heat cells taken densest first, each joining the first cluster whose densest
 * cell lies within {@link CLUSTER_DEG} on both axes, else starting one. Densest first.
 */
export function denseTownships(cells: { cx: number; cy: number; n: number }[]): Township[] {
  const r = Math.round(CLUSTER_DEG / HEAT_CELL_DEG)
  const acc: { sx: number; sy: number; n: number; cells: number; cx: number; cy: number }[] = []
  const bucket = new Map<string, number[]>()
  const key = (bx: number, by: number) => `${bx},${by}`
  for (const c of cells) {
    const bx = Math.floor(c.cx / r)
    const by = Math.floor(c.cy / r)
    let found = -1
    for (let dy = -1; dy <= 1 && found < 0; dy++)
      for (let dx = -1; dx <= 1 && found < 0; dx++)
        for (const i of bucket.get(key(bx + dx, by + dy)) ?? []) {
          if (Math.abs(acc[i].cx - c.cx) <= r && Math.abs(acc[i].cy - c.cy) <= r) {
            found = i
            break
          }
        }
    const x = (c.cx + 0.5) * HEAT_CELL_DEG
    const y = (c.cy + 0.5) * HEAT_CELL_DEG
    if (found < 0) {
      found = acc.length
      acc.push({ sx: 0, sy: 0, n: 0, cells: 0, cx: c.cx, cy: c.cy })
      const k = key(bx, by)
      bucket.set(k, [...(bucket.get(k) ?? []), found])
    }
    const t = acc[found]
    t.sx += x * c.n
    t.sy += y * c.n
    t.n += c.n
    t.cells++
  }
  return acc
    .filter((t) => t.n > 0)
    .map((t) => ({ lon: t.sx / t.n, lat: t.sy / t.n, n: t.n, cells: t.cells }))
    .sort((a, b) => b.n - a.n || a.lat - b.lat || a.lon - b.lon)
}

/** Local metres from `o` to `p` (x east, y north). */
function toLocal(o: LonLat, p: LonLat): [number, number] {
  const m = metresPerDegree((o[1] + p[1]) / 2)
  return [(p[0] - o[0]) * m.lon, (p[1] - o[1]) * m.lat]
}

function fromLocal(o: LonLat, x: number, y: number): LonLat {
  const m = metresPerDegree(o[1] + y / 2 / 111_000)
  return [o[0] + x / m.lon, o[1] + y / m.lat]
}

const angleDiff = (a: number, b: number) => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)))
const r7 = (v: number) => Math.round(v * 1e7) / 1e7

/** The hop from `a` to `b` with positions every {@link STEP_M}, bowed and wiggled, ends exact (a included, b not). */
function bentHop(rnd: Random, a: LonLat, b: LonLat): LonLat[] {
  const [dx, dy] = toLocal(a, b)
  const len = Math.hypot(dx, dy)
  const n = Math.max(1, Math.ceil(len / STEP_M))
  // unit normal to the hop
  const nx = -dy / len
  const ny = dx / len
  const bow = (rnd.chance(0.5) ? 1 : -1) * Math.min(BOW_MAX_M, len * BOW_SHARE) * rnd.range(0.3, 1)
  const waves = Math.max(1, Math.round(len / WIGGLE_WAVE_M))
  const wiggle = WIGGLE_M * rnd.range(0.5, 1)
  const out: LonLat[] = []
  for (let i = 0; i < n; i++) {
    const t = i / n
    const off = bow * Math.sin(Math.PI * t) + wiggle * Math.sin(2 * Math.PI * waves * t)
    out.push(fromLocal(a, dx * t + nx * off, dy * t + ny * off))
  }
  return out
}

/** The line cut at `targetM` (geodesic, as the route measures it), the last position interpolated. */
function cutAt(line: LonLat[], targetM: number): LonLat[] {
  const out: LonLat[] = [line[0]]
  let total = 0
  for (let i = 1; i < line.length; i++) {
    const d = fastGeodesicM(line[i - 1][0], line[i - 1][1], line[i][0], line[i][1])
    if (total + d >= targetM) {
      const f = (targetM - total) / d
      out.push([line[i - 1][0] + (line[i][0] - line[i - 1][0]) * f, line[i - 1][1] + (line[i][1] - line[i - 1][1]) * f])
      return out
    }
    total += d
    out.push(line[i])
  }
  return out
}

/**
 * One route of {@link ROUTE_TARGET_M} through dense townships: from township `start`, hop to the
 * township ahead with the best density for its distance (drawn with some jitter), each hop bent;
 * when none is ahead, carry on straight. Null when the draw self-intersects.
 */
function drawRoute(rnd: Random, towns: Township[], start: number): DrawnRoute | null {
  const waypoints: LonLat[] = [[towns[start].lon, towns[start].lat]]
  const visited = new Set([start])
  const visitedOrder = [start]
  let heading: number | null = null
  let first: number | null = null
  let planned = 0
  while (planned < ROUTE_TARGET_M) {
    const at = waypoints[waypoints.length - 1]
    let best = -1
    let bestScore = 0
    let bestHeading = 0
    let bestD = 0
    // the township ahead; when there is none (a coast, an empty region), a sharper turn
    for (const [turnDeg, driftDeg] of TURN_LIMITS) {
      for (let i = 0; i < towns.length; i++) {
        if (visited.has(i)) continue
        const [dx, dy] = toLocal(at, [towns[i].lon, towns[i].lat])
        const d = Math.hypot(dx, dy)
        if (d < MIN_HOP_M || d > ROUTE_TARGET_M - planned + 30_000) continue
        const h = Math.atan2(dy, dx)
        if (heading !== null && angleDiff(h, heading) > (turnDeg * Math.PI) / 180) continue
        if (first !== null && angleDiff(h, first) > (driftDeg * Math.PI) / 180) continue
        const score = (towns[i].n / (d / 1000 + 20)) * rnd.range(0.6, 1.4)
        if (score > bestScore) {
          best = i
          bestScore = score
          bestHeading = h
          bestD = d
        }
      }
      if (best >= 0) break
    }
    if (best < 0) break
    visited.add(best)
    visitedOrder.push(best)
    waypoints.push([towns[best].lon, towns[best].lat])
    heading = bestHeading
    first ??= bestHeading
    planned += bestD * 1.02
  }
  const townships = waypoints.length
  const line: LonLat[] = []
  // where each waypoint sits in the line, to count the townships the cut route still reaches
  const starts: number[] = []
  const hop = (a: LonLat, b: LonLat) => {
    starts.push(line.length)
    line.push(...bentHop(rnd, a, b))
  }
  for (let i = 0; i + 1 < waypoints.length; i++) hop(waypoints[i], waypoints[i + 1])
  let end = waypoints[waypoints.length - 1]
  const shortM = ROUTE_TARGET_M - lineLengthM([[...line, end]])
  if (shortM > 0) {
    // nothing dense ahead: carry on straight (a random way when the start had no neighbour)
    const h = heading ?? rnd.range(-Math.PI, Math.PI)
    const next = fromLocal(end, Math.cos(h) * (shortM + 2_000), Math.sin(h) * (shortM + 2_000))
    hop(end, next)
    end = next
  }
  line.push(end)
  const cut = cutAt(line, ROUTE_TARGET_M)
  const coordinates = cut.map(([x, y]) => [r7(x), r7(y)] as LonLat)
  // the route's own validation: length, position count, not self-intersecting
  const g = parseInputGeometry({ type: 'LineString', coordinates })
  if (Array.isArray(g)) return null
  const reached = visitedOrder.slice(0, townships).filter((_, j) => starts[j] < cut.length - 1)
  return { coordinates, townships: reached.length, records: reached.reduce((a, i) => a + towns[i].n, 0) }
}

/**
 * `count` routes, each from another of the {@link START_POOL} densest townships (in seeded order,
 * reused only when there are fewer): the draw, of {@link ROUTE_DRAWS} valid ones, whose reached
 * townships hold the most records. Fewer routes when a start's draws keep self-intersecting.
 */
export function makeRoutes(towns: Township[], count: number, seed: number): DrawnRoute[] {
  const rnd = new Random(seed >>> 0, 'bench/encumbrances/routes')
  const starts = rnd.shuffle(Array.from({ length: Math.min(START_POOL, towns.length) }, (_, i) => i))
  const out: DrawnRoute[] = []
  for (let k = 0; k < count && starts.length; k++) {
    let best: DrawnRoute | null = null
    let valid = 0
    for (let t = 0; t < ROUTE_TRIES && valid < ROUTE_DRAWS; t++) {
      const r = drawRoute(rnd, towns, starts[k % starts.length])
      if (!r) continue
      valid++
      if (!best || r.records > best.records) best = r
    }
    if (best) out.push(best)
  }
  return out
}

/** `count` 25 km² squares at random angles, each centred on another of the densest townships (as routes start). */
export function makeAreas(towns: Township[], count: number, seed: number): LonLat[][][] {
  const rnd = new Random(seed >>> 0, 'bench/encumbrances/areas')
  const centres = rnd.shuffle(Array.from({ length: Math.min(START_POOL, towns.length) }, (_, i) => i))
  const out: LonLat[][][] = []
  const per = Math.round(AREA_SIDE_M / AREA_STEP_M)
  for (let k = 0; k < count && centres.length; k++) {
    const t = towns[centres[k % centres.length]]
    const c: LonLat = [t.lon, t.lat]
    const a = rnd.range(0, Math.PI / 2)
    const h = AREA_SIDE_M / 2
    const corners = [
      [-h, -h],
      [h, -h],
      [h, h],
      [-h, h],
    ].map(([x, y]) => [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a)])
    const ring: LonLat[] = []
    for (let e = 0; e < 4; e++) {
      const [x0, y0] = corners[e]
      const [x1, y1] = corners[(e + 1) % 4]
      for (let i = 0; i < per; i++) ring.push(fromLocal(c, x0 + ((x1 - x0) * i) / per, y0 + ((y1 - y0) * i) / per))
    }
    ring.push(ring[0])
    out.push([ring.map(([x, y]) => [r7(x), r7(y)] as LonLat)])
  }
  return out
}

/** Distinct z14 tiles of random points in the densest heat cells. */
export function makeTiles(cells: { cx: number; cy: number; n: number }[], count: number, seed: number): { tiles: { x: number; y: number }[]; cells: number } {
  const top = cells.slice(0, Math.max(TILE_MIN_CELLS, Math.ceil(cells.length * TILE_CELL_SHARE)))
  const rnd = new Random(seed >>> 0, 'bench/encumbrances/tiles')
  const seen = new Set<string>()
  const tiles: { x: number; y: number }[] = []
  for (let tries = 0; top.length && tiles.length < count && tries < count * 20; tries++) {
    const c = top[rnd.int(0, top.length - 1)]
    const t = tileAt((c.cx + rnd.float()) * HEAT_CELL_DEG, (c.cy + rnd.float()) * HEAT_CELL_DEG, TILE_ZOOM)
    const k = `${t.x}/${t.y}`
    if (seen.has(k)) continue
    seen.add(k)
    tiles.push(t)
  }
  return { tiles, cells: top.length }
}

// ---------------------------------------------------------------------------------------------
// timing (measureAsync in ../lib/measure.ts)

type App = ReturnType<typeof createApp>

const WHOLE = 'whole handler (app.request, no socket)'
const QUERIES = 'queries only'

/** The app over the open dataset, with a temporary key for the encumbrance product. */
// ---------------------------------------------------------------------------------------------
// HTTP

/** `/encumbrances/parcel/{lpi}` over HTTP, on seeded LPIs of current parcels (every answer a 200). */
function runHttp(ctx: SuiteContext, ds: OpenDataset, s: EncumbranceQueries): Promise<HttpRoundsData> {
  return runHttpRounds<{ encumbrances?: { encumbrance_uid: number }[] }>(ctx, {
    name: 'encumbrances',
    endpoint: '/encumbrances/parcel/{lpi}',
    product: 'encumbrance',
    requests(count) {
      const probes = makeLpiProbes(ds, s, count, ctx.opts.seed, 'http')
      if (!probes.length) throw new Error('encumbrances http: no current parcel to ask for')
      return {
        paths: probes.lpi.map((l) => `/api/v1/encumbrances/parcel/${l}`),
        expected: probes.parcelId.map((id) => JSON.stringify(s.overlapsOfParcel(id).map((o) => o.row.uid))),
      }
    },
    answer: (body) => JSON.stringify(body.encumbrances?.map((e) => e.encumbrance_uid) ?? null),
    quote: (answer) => answer.slice(0, 300),
  })
}

// ---------------------------------------------------------------------------------------------
// the suite

const skipped = (reason: string): EncumbrancesData => ({
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

/** Fails the run for the first few mismatches, then once with their number. */
function failures(ctx: SuiteContext, what: string): { fail(m: string): void; done(): void } {
  let n = 0
  return {
    fail(m) {
      if (n++ < 3) ctx.fail(`encumbrances: ${what}: ${m}`)
    },
    done() {
      if (n > 3) ctx.fail(`encumbrances: ${what}: ${n - 3} further mismatches`)
    },
  }
}

async function measureLookups(ctx: SuiteContext, ds: OpenDataset, app: App, key: string, s: EncumbranceQueries, data: EncumbrancesData): Promise<void> {
  const quick = ctx.opts.quick
  const count = quick ? 200 : 5_000
  const rounds = quick ? 1 : 3
  const probes = makeLpiProbes(ds, s, count, ctx.opts.seed, 'parcel')
  data.lpis = probes.length
  data.lpiRounds = rounds
  data.withOverlaps = probes.kind.filter((k) => k === 0).length
  data.withoutOverlaps = probes.length - data.withOverlaps
  if (!probes.length) {
    data.notes.push('no current parcel carries an LPI: the parcel lookups were not measured')
    return
  }
  ctx.log(`encumbrances: ${probes.length} LPIs (${data.withOverlaps} with overlaps, ${data.withoutOverlaps} without) x ${rounds} rounds`)
  const headers = { 'X-API-KEY': key }
  for (const [route, label] of [
    ['parcel', '/parcel/{lpi}'],
    ['summary/parcel', '/summary/parcel/{lpi}'],
  ] as const) {
    // what the route calls, without shaping the answer
    const queries = await measureAsync(label, QUERIES, probes.length, rounds, probes.kind, (k) => {
      const p = s.parcelByLpi(probes.lpi[k])!
      if (route === 'summary/parcel') {
        const sum = s.summaryOfParcel(p.id)
        return Object.values(sum.counts).reduce((a, b) => a + (b ?? 0), 0)
      }
      s.parcelGeometry(p.id)
      const n = s.overlapsOfParcel(p.id).length
      s.parcelArea(p.id)
      return n
    })
    data.lookupRows.push(queries.row)
    const texts: string[] = new Array(probes.length)
    const statuses = new Uint16Array(probes.length)
    const paths = probes.lpi.map((l) => `/api/v1/encumbrances/${route}/${l}`)
    const whole = await measureAsync(label, WHOLE, probes.length, rounds, probes.kind, async (k) => {
      const res = await app.request(paths[k], { headers })
      // the body as the server sends it
      texts[k] = await res.text()
      statuses[k] = res.status
      return 0
    })
    // read the answers back (untimed) and compare them with the queries
    const check = failures(ctx, `GET ${label}`)
    let results = 0
    for (let k = 0; k < probes.length; k++) {
      if (statuses[k] !== 200) {
        check.fail(`${probes.lpi[k]} answered ${statuses[k]}: ${texts[k].slice(0, 200)}`)
        continue
      }
      const body = JSON.parse(texts[k]) as { encumbrances?: { encumbrance_uid: number }[]; counts_by_class?: Record<string, number> }
      const id = probes.parcelId[k]
      if (route === 'parcel') {
        const got = JSON.stringify(body.encumbrances?.map((e) => e.encumbrance_uid))
        const want = JSON.stringify(s.overlapsOfParcel(id).map((o) => o.row.uid))
        if (got !== want) check.fail(`${probes.lpi[k]} answered uids ${got.slice(0, 120)}, in process ${want.slice(0, 120)}`)
        results += body.encumbrances?.length ?? 0
      } else {
        const got = JSON.stringify(body.counts_by_class)
        const want = JSON.stringify(s.summaryOfParcel(id).counts)
        if (got !== want) check.fail(`${probes.lpi[k]} answered ${got}, in process ${want}`)
        results += Object.values(body.counts_by_class ?? {}).reduce((a, b) => a + b, 0)
      }
    }
    check.done()
    whole.row.meanResults = results / probes.length
    data.lookupRows.push(whole.row)
    ctx.log(`encumbrances: ${label} whole handler p50 ${fmt(whole.row.all.p50Us)} us, p99 ${fmt(whole.row.all.p99Us)} us (queries only p50 ${fmt(queries.row.all.p50Us)} us), ${fmt(whole.row.meanResults, 2)} encumbrances per answer`)
  }
}

async function measureIntersect(ctx: SuiteContext, cells: { cx: number; cy: number; n: number }[], app: App, key: string, s: EncumbranceQueries, data: EncumbrancesData): Promise<void> {
  const quick = ctx.opts.quick
  const rounds = quick ? 1 : 3
  data.intersectRounds = rounds
  const towns = denseTownships(cells)
  data.townships = towns.length
  const wantRoutes = quick ? 2 : 8
  const routes = makeRoutes(towns, wantRoutes, ctx.opts.seed)
  if (routes.length < wantRoutes) data.notes.push(`${wantRoutes - routes.length} of ${wantRoutes} routes could not be drawn without self-intersection in ${ROUTE_TRIES} tries`)
  const areas = makeAreas(towns, quick ? 2 : 8, ctx.opts.seed)
  const parsedAreas = areas.map((coordinates) => parseInputGeometry({ type: 'Polygon', coordinates }))
  const badArea = parsedAreas.findIndex((g) => Array.isArray(g))
  if (badArea >= 0) ctx.fail(`encumbrances: area ${badArea} was refused by the route's validation: ${JSON.stringify(parsedAreas[badArea]).slice(0, 200)}`)
  const goodAreas = areas.filter((_, i) => !Array.isArray(parsedAreas[i]))
  data.areas = {
    count: goodAreas.length,
    meanAreaKm2: parsedAreas.reduce((a, g) => a + (Array.isArray(g) || !('areaSqm' in g) ? 0 : g.areaSqm / 1e6), 0) / Math.max(1, goodAreas.length),
    positions: goodAreas[0]?.[0].length ?? 0,
  }
  ctx.log(`encumbrances: ${towns.length} dense townships; ${routes.length} routes of ${fmt(ROUTE_TARGET_M / 1000)} km through ${routes.map((r) => r.townships).join(', ')} of them; ${goodAreas.length} areas of 25 km²`)

  const headers = { 'X-API-KEY': key, 'Content-Type': 'application/json' }
  const cases = [
    { kind: 'route' as const, label: `route of ${fmt(ROUTE_TARGET_M / 1000)} km`, geometries: routes.map((r) => ({ type: 'LineString', coordinates: r.coordinates })) },
    { kind: 'area' as const, label: 'area of 25 km²', geometries: goodAreas.map((coordinates) => ({ type: 'Polygon', coordinates })) },
  ]
  const all = [...ENCUMBRANCE_CLASSES]
  for (const c of cases) {
    if (!c.geometries.length) continue
    const inputs = c.geometries.map((g) => parseInputGeometry(g as { type: string; coordinates: unknown[] }))
    const service = await measureAsync(c.label, QUERIES, inputs.length, rounds, null, (k) => {
      const g = inputs[k]
      if (Array.isArray(g)) return NaN
      return s.intersect('lines' in g ? { lines: g.lines } : { mp: g.mp }, all).encumbrances.length
    })
    const bodies = c.geometries.map((geometry) => JSON.stringify({ geometry }))
    const texts: string[] = new Array(bodies.length)
    const statuses = new Uint16Array(bodies.length)
    const whole = await measureAsync(c.label, WHOLE, bodies.length, rounds, null, async (k) => {
      const res = await app.request('/api/v1/encumbrances/intersect', { method: 'POST', headers, body: bodies[k] })
      texts[k] = await res.text()
      statuses[k] = res.status
      return 0
    })
    const check = failures(ctx, `POST /intersect (${c.kind})`)
    let enc = 0
    let parcels = 0
    let truncE = 0
    let truncP = 0
    let bytes = 0
    for (let k = 0; k < bodies.length; k++) {
      if (statuses[k] !== 200) {
        check.fail(`${c.kind} ${k} answered ${statuses[k]}: ${texts[k].slice(0, 200)}`)
        continue
      }
      const body = JSON.parse(texts[k]) as { encumbrances: unknown[]; parcels: unknown[]; encumbrances_truncated: boolean; parcels_truncated: boolean }
      const g = inputs[k]
      const want = Array.isArray(g) ? null : s.intersect('lines' in g ? { lines: g.lines } : { mp: g.mp }, all)
      if (want && (want.encumbrances.length !== body.encumbrances.length || want.parcels.length !== body.parcels.length)) {
        check.fail(`${c.kind} ${k} listed ${body.encumbrances.length} encumbrances and ${body.parcels.length} parcels, in process ${want.encumbrances.length} and ${want.parcels.length}`)
      }
      enc += body.encumbrances.length
      parcels += body.parcels.length
      if (body.encumbrances_truncated) truncE++
      if (body.parcels_truncated) truncP++
      bytes += Buffer.byteLength(texts[k])
      if (c.kind === 'route') {
        const r = routes[k]
        const times = [...whole.perKey[k]].sort((a, b) => a - b)
        data.routes.push({
          lengthKm: (Array.isArray(g) || !('lengthM' in g) ? NaN : g.lengthM) / 1000,
          positions: r.coordinates.length,
          townships: r.townships,
          encumbrances: body.encumbrances.length,
          parcels: body.parcels.length,
          encumbrancesTruncated: body.encumbrances_truncated,
          parcelsTruncated: body.parcels_truncated,
          bytes: Buffer.byteLength(texts[k]),
          p50Ms: times[Math.ceil(times.length / 2) - 1],
        })
      }
    }
    check.done()
    const n = bodies.length
    whole.row.meanResults = enc / n
    service.row.meanResults = enc / n
    const extra = { kind: c.kind, meanParcels: parcels / n, truncatedEncumbrances: truncE, truncatedParcels: truncP, requests: n, meanBytes: bytes / n }
    data.intersectRows.push({ ...service.row, ...extra }, { ...whole.row, ...extra })
    ctx.log(
      `encumbrances: /intersect ${c.label}: whole handler p50 ${fmt(whole.row.all.p50Us / 1000, 2)} ms, p99 ${fmt(whole.row.all.p99Us / 1000, 2)} ms (intersect() p50 ${fmt(service.row.all.p50Us / 1000, 2)} ms); ` +
        `${fmt(enc / n)} encumbrances, ${fmt(parcels / n)} parcels, ${fmt(bytes / n / 1024)} KiB per answer; truncated ${truncE}/${truncP} of ${n}`,
    )
  }
}

async function measureTiles(ctx: SuiteContext, cells: { cx: number; cy: number; n: number }[], app: App, key: string, data: EncumbrancesData): Promise<void> {
  const quick = ctx.opts.quick
  const rounds = quick ? 1 : 3
  const { tiles, cells: used } = makeTiles(cells, quick ? 30 : 300, ctx.opts.seed)
  if (!tiles.length) {
    data.notes.push('no heat cell: the tiles were not measured')
    return
  }
  const headers = { 'X-API-KEY': key }
  const paths = tiles.map((t) => `/api/v1/encumbrances/tiles/${TILE_ZOOM}/${t.x}/${t.y}.mvt`)
  const sizes = new Float64Array(tiles.length)
  const statuses = new Uint16Array(tiles.length)
  const { row } = await measureAsync(`tile z${TILE_ZOOM}`, WHOLE, tiles.length, rounds, null, async (k) => {
    const res = await app.request(paths[k], { headers })
    sizes[k] = (await res.arrayBuffer()).byteLength
    statuses[k] = res.status
    return res.status === 200 ? 1 : 0
  })
  const check = failures(ctx, `GET /tiles/${TILE_ZOOM}`)
  let ok = 0
  let empty = 0
  let bytes = 0
  let maxBytes = 0
  for (let k = 0; k < tiles.length; k++) {
    if (statuses[k] === 200) {
      ok++
      bytes += sizes[k]
      maxBytes = Math.max(maxBytes, sizes[k])
    } else if (statuses[k] === 204) empty++
    else check.fail(`${paths[k]} answered ${statuses[k]}`)
  }
  check.done()
  row.meanResults = ok / tiles.length
  data.tiles = { tiles: tiles.length, cells: used, rounds, row, share204: empty / tiles.length, meanBytes: ok ? bytes / ok : NaN, maxBytes }
  ctx.log(`encumbrances: ${tiles.length} z${TILE_ZOOM} tiles: p50 ${fmt(row.all.p50Us / 1000, 2)} ms, p99 ${fmt(row.all.p99Us / 1000, 2)} ms, ${fmt(bytes / Math.max(1, ok) / 1024)} KiB per tile, ${fmt((empty / tiles.length) * 100)} % 204`)
}

export const encumbrancesSuite: Suite<EncumbrancesData> = {
  name: 'encumbrances',
  title: 'Encumbrances: /parcel/{lpi}, /summary, /intersect and z14 tiles in process, /parcel/{lpi} over HTTP',
  summary: '/encumbrances/parcel/{lpi} and /summary p50/p99 us, POST /intersect (200 km routes, 25 km² areas) ms, z14 tiles ms, /parcel/{lpi} req/s with 1 and 2 workers vs hello-world',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    try {
      const m = ds.domain('encumbrances')
      if (!m) {
        ctx.log('encumbrances: skipped: the dataset has no encumbrance domain')
        return skipped('the dataset has no encumbrance domain')
      }
      const edb = ds.sqlite(ENCUMBRANCE_FILES.sqlite)
      const counts = edb.prepare('SELECT count(*) AS records, count(*) FILTER (WHERE record_status IS NULL) AS current FROM encumbrance').get() as { records: number; current: number }
      if (!counts.current) {
        ctx.log('encumbrances: skipped: the encumbrance domain holds no current record')
        return skipped('the encumbrance domain holds no current record')
      }
      return await withInProcessApp(ds, 'encumbrances', 'encumbrance', async (app, key, services) => {
        const s = services.encumbrances!
        const data: EncumbrancesData = {
          ...skipped(''),
          records: counts.records,
          current: counts.current,
          overlaps: edb.prepare('SELECT count(*) FROM parcel_overlap').pluck().get() as number,
          version: s.version,
          asOf: s.asOf,
        }
        delete data.skipped
        ctx.log(`encumbrances: ${counts.records.toLocaleString('en-US')} records (${counts.current.toLocaleString('en-US')} current), ${data.overlaps.toLocaleString('en-US')} parcel overlaps`)
        if (s.hasParcels) await measureLookups(ctx, ds, app, key, s, data)
        else data.notes.push('the dataset has no parcel domain: the parcel lookups and the HTTP runs were not measured')
        const cells = heatCells(ds)
        await measureIntersect(ctx, cells, app, key, s, data)
        await measureTiles(ctx, cells, app, key, data)
        data.http = ctx.opts.http && s.hasParcels && data.lpis > 0 ? await runHttp(ctx, ds, s) : null
        return data
      })
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<EncumbrancesData>) {
    const d = r.data
    if (d.skipped) return `_Not measured: ${d.skipped}._`
    const national = r.dataset.scale === 'national'
    const us = (s: Summary | null) => (s && s.n ? `${fmt(s.p50Us)} µs` : '–')
    const ms = (v: number) => `${fmt(v / 1000, 2)} ms`
    const kib = (bytes: number) => `${fmt(bytes / 1024)} KiB`
    const lines = [
      `Dataset ${d.version} (as of ${d.asOf}): ${d.records.toLocaleString('en-US')} encumbrance records (${d.current.toLocaleString('en-US')} current), ${d.overlaps.toLocaleString('en-US')} parcel overlaps computed at build time. ` +
        `"${WHOLE}" sends each request through the app (routing, key check, rate limit, validation, queries, the JSON or MVT answer read back as text or bytes, not parsed); "${QUERIES}" is the \`createEncumbranceQueries\` calls the route makes, without shaping the answer. ` +
        `Every answer was checked afterwards against the in-process queries (same uids, counts, lists). One warm-up pass, then timed rounds; ops/s from one untimed pass.`,
    ]
    const parcelWhole = d.lookupRows.find((x) => x.op === '/parcel/{lpi}' && x.variant === WHOLE)
    if (d.lookupRows.length) {
      lines.push(
        '',
        `**Parcel lookups**: ${d.lpis.toLocaleString('en-US')} seeded LPIs of current parcels (drawn uniformly over parcel rows; ${d.withOverlaps.toLocaleString('en-US')} whose parcel has encumbrance overlaps, ${d.withoutOverlaps.toLocaleString('en-US')} without), ${d.lpiRounds} timed round(s).`,
        '',
        '| query | variant | p50 | p99 | mean | p50 with / without overlaps | ops/s | mean encumbrances | target | verdict |',
        '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
        ...d.lookupRows.map((x) => {
          const target = x === parcelWhole ? TARGETS.parcelP50Ms : null
          return (
            `| ${x.op} | ${x.variant} | ${us(x.all)} | ${fmt(x.all.p99Us)} µs | ${fmt(x.all.meanUs)} µs | ${us(x.near)} / ${us(x.random)} | ${fmt(x.opsPerS)} | ${fmt(x.meanResults, 2)} | ` +
            `${target === null ? '' : `≤ ${target} ms`} | ${target === null ? '' : verdict(national, x.all.p50Us / 1000, target, 'ms')} |`
          )
        }),
      )
    }
    const routeWhole = d.intersectRows.find((x) => x.kind === 'route' && x.variant === WHOLE)
    if (d.intersectRows.length) {
      const meanKm = d.routes.length ? d.routes.reduce((a, x) => a + x.lengthKm, 0) / d.routes.length : NaN
      lines.push(
        '',
        `**Corridor and area screening** (\`POST /encumbrances/intersect\`, every class): ${d.routes.length} seeded routes of ${fmt(meanKm)} km (the ${ROUTE_MAX_M / 1000} km limit less 0.1 %) drawn through the dense townships of the \`heat_cell\` table ` +
          `(${d.townships.toLocaleString('en-US')} clusters of 0.01° cells within ${CLUSTER_DEG}°): each from another of the ${START_POOL} densest, hops of at least ${MIN_HOP_M / 1000} km to the township ahead with the best density for its distance (at most ${TURN_LIMITS[0][0]}° per turn and ${TURN_LIMITS[0][1]}° off the first heading, else ${TURN_LIMITS[1][0]}° and ${TURN_LIMITS[1][1]}°), ` +
          `each hop bowed by up to ${BOW_SHARE * 100} % of its length (at most ${BOW_MAX_M / 1000} km) with a ${WIGGLE_M} m wiggle, a position every ${STEP_M} m, straight on when no township is ahead; of ${ROUTE_DRAWS} such draws, the one whose townships hold the most records, each having passed the route's own validation (length, positions, not self-intersecting). ` +
          `Areas: ${d.areas.count} squares of ${fmt(d.areas.meanAreaKm2)} km² (${d.areas.positions} positions) at random angles, each centred on another of those densest townships. ${d.intersectRounds} timed round(s). ` +
          `Lists stop at ${INTERSECT_MAX_ENCUMBRANCES.toLocaleString('en-US')} encumbrances and ${INTERSECT_MAX_PARCELS.toLocaleString('en-US')} parcels ("truncated": answers that said so).`,
        '',
        '| case | variant | p50 | p99 | mean | ops/s | mean encumbrances | mean parcels | truncated (enc. / parcels) | mean answer | target | verdict |',
        '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
        ...d.intersectRows.map((x) => {
          const target = x === routeWhole ? TARGETS.intersectRouteP50Ms : null
          return (
            `| ${x.op} | ${x.variant} | ${ms(x.all.p50Us)} | ${ms(x.all.p99Us)} | ${ms(x.all.meanUs)} | ${fmt(x.opsPerS)} | ${fmt(x.meanResults)} | ${fmt(x.meanParcels)} | ` +
            `${x.truncatedEncumbrances} / ${x.truncatedParcels} of ${x.requests} | ${x.variant === WHOLE ? kib(x.meanBytes) : ''} | ${target === null ? '' : `≤ ${target} ms`} | ${target === null ? '' : verdict(national, x.all.p50Us / 1000, target, 'ms')} |`
          )
        }),
      )
      if (d.routes.length) {
        lines.push(
          '',
          '| route | km | positions | dense townships | encumbrances | parcels | truncated | answer | whole handler p50 |',
          '|--:|--:|--:|--:|--:|--:|---|--:|--:|',
          ...d.routes.map(
            (x, i) =>
              `| ${i + 1} | ${fmt(x.lengthKm)} | ${x.positions} | ${x.townships} | ${x.encumbrances.toLocaleString('en-US')} | ${x.parcels.toLocaleString('en-US')} | ` +
              `${[x.encumbrancesTruncated ? 'encumbrances' : '', x.parcelsTruncated ? 'parcels' : ''].filter(Boolean).join(', ') || 'no'} | ${kib(x.bytes)} | ${fmt(x.p50Ms, 2)} ms |`,
          ),
        )
      }
    }
    const t = d.tiles
    if (t) {
      lines.push(
        '',
        `**Vector tiles** (\`GET /encumbrances/tiles/${TILE_ZOOM}/{x}/{y}.mvt\`, every class): ${t.tiles} distinct z${TILE_ZOOM} tiles of seeded points in the ${t.cells.toLocaleString('en-US')} densest heat cells (the top ${TILE_CELL_SHARE * 100} %, at least ${TILE_MIN_CELLS}), ${t.rounds} timed round(s).`,
        '',
        '| tiles | variant | p50 | p99 | mean | ops/s | 204 share | mean bytes (200) | largest | target | verdict |',
        '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
        `| ${t.row.op} | ${t.row.variant} | ${ms(t.row.all.p50Us)} | ${ms(t.row.all.p99Us)} | ${ms(t.row.all.meanUs)} | ${fmt(t.row.opsPerS)} | ${fmt(t.share204 * 100)} % | ${kib(t.meanBytes)} | ${kib(t.maxBytes)} | ≤ ${TARGETS.tileP50Ms} ms | ${verdict(national, t.row.all.p50Us / 1000, TARGETS.tileP50Ms, 'ms')} |`,
      )
    }
    if (d.http) {
      const wording = { endpoint: '/encumbrances/parcel/{lpi}', points: 'seeded LPIs of current parcels (80 % with encumbrance overlaps)', agreement: 'uid lists identical to in-process `overlapsOfParcel()`', targets: false, scale: r.dataset.scale }
      lines.push('', ...httpRoundsSection(d.http, wording))
    }
    const v = (label: string, row: OpRow | undefined, target: number) =>
      `- ${label}: ${row ? `p50 ${ms(row.all.p50Us)}` : 'not measured'}, target ≤ ${target} ms: ${row ? verdict(national, row.all.p50Us / 1000, target, 'ms') : '–'}`
    lines.push(
      '',
      `Targets (national scale, whole handler p50):`,
      '',
      v(`\`POST /encumbrances/intersect\`, ${fmt(ROUTE_TARGET_M / 1000)} km route through dense townships`, routeWhole, TARGETS.intersectRouteP50Ms),
      v('`GET /encumbrances/parcel/{lpi}`', parcelWhole, TARGETS.parcelP50Ms),
      v(`tile at z${TILE_ZOOM} in a dense township`, t?.row, TARGETS.tileP50Ms),
    )
    if (d.notes.length) lines.push('', ...d.notes.map((n) => `_Note: ${n}._`))
    return lines.join('\n')
  },
}
