/**
 * The encumbrance suite's probe sets, all seeded and drawn from the dataset itself: LPIs, dense
 * townships from the heat_cell table, 200 km routes through them, 25 km² areas, z14 tiles (the
 * suite's module comment in index.ts describes each).
 */
import { ENCUMBRANCE_FILES, HEAT_CELL_DEG } from '../../../src/data/encumbrance-format.js'
import type { OpenDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../../src/data/parcels-format.js'
import { parseInputGeometry, ROUTE_MAX_M } from '../../../src/features/encumbrances/geometry-input.js'
import type { EncumbranceQueries } from '../../../src/features/encumbrances/queries.js'
import { fastGeodesicM, metresPerDegree } from '../../../src/geo/geodesic.js'
import { lineLengthM } from '../../../src/geo/overlay/measure.js'
import { tileAt } from '../../../src/geo/tiles.js'
import { Random } from '../../lib/prng.js'

/** Share of LPIs drawn among parcels with encumbrance overlaps (the rest have none). */
export const WITH_SHARE = 0.8
/** Heat cells within this distance (degrees, each axis) of a cluster's densest cell join it: one township. */
export const CLUSTER_DEG = 0.04
/** Routes start in one of this many densest townships. */
export const START_POOL = 20
/** Route length: the spec's 200 km less 0.1 %, so rounding to 7 decimals never takes it over. */
export const ROUTE_TARGET_M = ROUTE_MAX_M * 0.999
/** A hop goes to a township at least this far away (not the same one). */
export const MIN_HOP_M = 5_000
/**
 * Largest turn between two hops and largest angle off the route's first heading, degrees: the
 * first pair, else (no township ahead) the second.
 */
export const TURN_LIMITS = [
  [60, 80],
  [100, 135],
] as const
/** Spacing of a route's positions, metres. */
export const STEP_M = 300
/** Bends: the bow of a hop (share of its length, at most BOW_MAX_M) and a small wiggle. */
export const BOW_SHARE = 0.06
export const BOW_MAX_M = 2_500
export const WIGGLE_M = 120
export const WIGGLE_WAVE_M = 6_000
/**
 * Valid draws per route, the one through the most records kept; tries before a route is given up (a try that
 * self-intersects is drawn again).
 */
export const ROUTE_DRAWS = 6
export const ROUTE_TRIES = 40
/** The area case: a square of this side (25 km²), edges with a position every AREA_STEP_M. */
export const AREA_SIDE_M = 5_000
export const AREA_STEP_M = 250
export const TILE_ZOOM = 14
/** Tiles are drawn in the densest heat cells: this share of the cells, at least TILE_MIN_CELLS. */
export const TILE_CELL_SHARE = 0.02
export const TILE_MIN_CELLS = 20

export type LonLat = [number, number]

/** A route's positions, the dense townships it passes and the current records in them. */
interface DrawnRoute {
  coordinates: LonLat[]
  townships: number
  records: number
}

// ---------------------------------------------------------------------------------------------
// probe sets

/** `count` LPIs of current parcels: `kind` 0 = its parcel has encumbrance overlaps, 1 = none. */
export function makeLpiProbes(
  ds: OpenDataset,
  s: EncumbranceQueries,
  count: number,
  seed: number,
  label: string,
  withShare = WITH_SHARE,
): { lpi: string[]; parcelId: number[]; kind: Uint8Array; length: number } {
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
export function heatCells(ds: OpenDataset): { cx: number; cy: number; n: number }[] {
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
export function makeTiles(
  cells: { cx: number; cy: number; n: number }[],
  count: number,
  seed: number,
): { tiles: { x: number; y: number }[]; cells: number } {
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
