/**
 * Index strategies for the administrative boundaries, in process (issue 7 item 2, the
 * jurisdiction part): for the ward and local_municipality layers in force today (Africa/
 * Johannesburg, as the routes' default), the same seeded points answered by
 *
 *   grid + banded (production)  what `createJurisdictionQueries` does: a GridIndex per source set
 *                               over the boxes, then BandedPolygon (edges bucketed in horizontal
 *                               bands) on each box hit. The reference.
 *   flatbush + banded           a Flatbush over the same boxes, same banded test: the index alone
 *   flatbush + ray-cast         Flatbush, then `containsPoint` (polygon.ts) walking every edge
 *   sqlite r*tree + ray-cast    SQLite's built-in R*Tree of the boxes in a temp file (read-only,
 *                               locking_mode=EXCLUSIVE like the dataset), then `containsPoint`
 *   brute force                 every box, then `containsPoint` (sample scale and below only)
 *
 * Every strategy answers one boundary per point with the service's rule, applied the same way
 * everywhere: the boxes are widened by the service's 2e-9° tolerance, containment is the closed
 * set (a point within 1e-9° of an edge is inside), and when several boundaries hold the point
 * (a shared edge) the lowest code wins, then the lowest id (docs/decisions.md). A strategy whose
 * answer differs from the reference's fails the run, unless the point lies within 1e-9° of an
 * edge of one of the two boundaries (then it is counted apart, as an edge case).
 *
 * Points: the jurisdiction suite's generator (near township and ward label points, and uniform
 * over the provinces), plus points within {@link NEAR_VERTEX_M} m of a random boundary vertex and
 * points on a random boundary edge (its midpoint), where the tolerance and the lowest-code rule
 * decide. The reference is also checked against the service itself, untimed: for the ward layer
 * its answer must be the chain's ward of `resolve()`.
 *
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import { johannesburgDate } from '../../src/auth/dates.js'
import { JURISDICTION_FILES, type BoundaryType } from '../../src/data/jurisdiction-format.js'
import { openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { decodeGeometry } from '../../src/data/geometry-blob.js'
import {
  createJurisdictionQueries,
  inForce,
  type JurisdictionQueries,
} from '../../src/features/jurisdiction/queries.js'
import { BandedPolygon } from '../../src/geo/banded-pip.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { GridIndex } from '../../src/geo/grid-index.js'
import { containsPoint, ON_EDGE_DEG, type MultiPolygon } from '../../src/geo/polygon.js'
import { Random } from '../lib/prng.js'
import { fmt, median, mib, Samples, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'
import { makeJurisdictionProbes } from './jurisdiction.js'

/** The layers compared. */
const LAYERS: readonly BoundaryType[] = ['ward', 'local_municipality']
/** Brute force runs below national scale only. */
const BRUTE_MAX_SCALE_BOUNDARIES = 50_000
/** Probes are timed in chunks, each strategy in turn (order rotating), so machine noise hits all alike. */
const CHUNK = 250
/** The service's box tolerance (`EDGE_TOL` in jurisdiction/queries.ts): twice the on-edge distance. */
const BOX_TOL = 2 * ON_EDGE_DEG
/** Shares of the probe set: near a boundary vertex, and on a boundary edge; the rest the jurisdiction suite's. */
const NEAR_VERTEX_SHARE = 0.2
const ON_EDGE_SHARE = 0.1
const NEAR_VERTEX_M = 100

/** One boundary in force, as every strategy sees it (`k` = its position in the layer). */
interface Boundary {
  k: number
  id: number
  code: string
  setName: string
  /** minX, minY, maxX, maxY */
  box: [number, number, number, number]
  mp: MultiPolygon
}

interface Layer {
  type: BoundaryType
  boundaries: Boundary[]
  vertices: number
}

interface Strategy {
  name: string
  buildMs: number
  sizeBytes: number
  sizeNote: string
  /** the boundary holding the point by the shared rule, or null */
  at(lon: number, lat: number): Boundary | null
  close(): void
}

interface StrategyRow {
  layer: BoundaryType
  boundaries: number
  vertices: number
  strategy: string
  buildMs: number
  sizeBytes: number
  sizeNote: string
  t: Summary
  opsPerS: number
  /** probes answered with a boundary */
  found: number
  agree: number
  /** differing answers on a point within 1e-9° of an edge of either boundary (not failures) */
  edgeCases: number
  probes: number
}

export interface BoundaryStrategiesData {
  asAt: string
  probes: number
  /** probes of each kind: the jurisdiction suite's, near a vertex, on an edge */
  kinds: { general: number; nearVertex: number; onEdge: number }
  rows: StrategyRow[]
  /** per layer: points held by two or more boundaries (decided by the lowest-code rule) */
  ties: Partial<Record<BoundaryType, number>>
  /** ward layer: the reference's answer vs the chain's ward of the service's resolve() */
  service: { agree: number; probes: number } | null
  /**
   * points where the chain's municipality (the ward's parent, by code) is not the municipality layer's polygon holding
   * the point
   */
  parentMismatch: {
    probes: number
    bothFound: number
    differ: number
    examples: string[] /** distance of those points from the municipal polygon's edge, m */
    edgeM: { median: number; max: number } | null
  } | null
  skipped: string[]
  notMeasured?: string
}

const lowerThan = (a: Boundary, b: Boundary) => a.code < b.code || (a.code === b.code && a.id < b.id)
const boxHolds = (b: [number, number, number, number], x: number, y: number) =>
  !(x < b[0] - BOX_TOL || y < b[1] - BOX_TOL || x > b[2] + BOX_TOL || y > b[3] + BOX_TOL)

function time<T>(f: () => T): { value: T; ms: number } {
  const t0 = performance.now()
  const value = f()
  return { value, ms: performance.now() - t0 }
}

/** The in-force records of a type that have geometry, by id, decoded. */
function loadLayer(ds: OpenDataset, type: BoundaryType, d: string): Layer {
  const db = ds.sqlite(JURISDICTION_FILES.sqlite)
  const rows = db
    .prepare(
      `SELECT id, code, set_name, effective_from, effective_to, min_x, min_y, max_x, max_y, geom FROM boundary ` +
        `WHERE type = ? AND geom IS NOT NULL ORDER BY id`,
    )
    .all(type) as {
    id: number
    code: string
    set_name: string
    effective_from: string | null
    effective_to: string | null
    min_x: number
    min_y: number
    max_x: number
    max_y: number
    geom: Buffer
  }[]
  const boundaries: Boundary[] = []
  let vertices = 0
  for (const r of rows) {
    if (!inForce({ from: r.effective_from, to: r.effective_to }, d)) continue
    const mp = decodeGeometry(r.geom)
    for (const poly of mp) for (const ring of poly) vertices += ring.length
    boundaries.push({
      k: boundaries.length,
      id: r.id,
      code: r.code,
      setName: r.set_name,
      box: [r.min_x, r.min_y, r.max_x, r.max_y],
      mp,
    })
  }
  return { type, boundaries, vertices }
}

// ---------------------------------------------------------------- strategies

/** The bytes of a BandedPolygon's typed arrays (its parts are private; read for the size only). */
function bandedBytes(bp: BandedPolygon): number {
  const parts = (bp as unknown as { parts: { xy: Float64Array; offsets: Uint32Array; edges: Uint32Array }[] }).parts
  return parts.reduce((s, p) => s + p.xy.byteLength + p.offsets.byteLength + p.edges.byteLength + 64, 0)
}

function gridStrategy(L: Layer): Strategy {
  const { value, ms } = time(() => {
    // one grid per source set, as the service builds them (the layer in force is usually one set)
    const bySet = new Map<string, Boundary[]>()
    for (const b of L.boundaries) {
      const l = bySet.get(b.setName)
      if (l) l.push(b)
      else bySet.set(b.setName, [b])
    }
    const grids = [...bySet.values()].map((list) => {
      const boxes = new Float64Array(list.length * 4)
      list.forEach((b, i) => {
        boxes.set(b.box, 4 * i)
      })
      return { grid: new GridIndex(boxes), list }
    })
    const banded = L.boundaries.map((b) => new BandedPolygon(b.mp))
    return { grids, banded }
  })
  const { grids, banded } = value
  const gridBytes = grids.reduce(
    (s, g) => s + g.grid.offsets.byteLength + g.grid.items.byteLength + g.grid.boxes.byteLength,
    0,
  )
  const bandBytes = banded.reduce((s, b) => s + bandedBytes(b), 0)
  return {
    name: 'grid + banded (production)',
    buildMs: ms,
    sizeBytes: gridBytes + bandBytes,
    sizeNote: `grid ${mib(gridBytes)} + banded edges ${mib(bandBytes)}`,
    // jurisdiction/queries.ts pip(), over the layer in force
    at(lon, lat) {
      let best: Boundary | null = null
      for (let gi = 0; gi < grids.length; gi++) {
        const { grid, list } = grids[gi]
        const k = grid.cellAt(lon, lat, BOX_TOL)
        if (k < 0) continue
        const { items, boxes, offsets } = grid
        for (let p = offsets[k], end = offsets[k + 1]; p < end; p++) {
          const i = items[p]
          if (
            lon < boxes[4 * i] - BOX_TOL ||
            lat < boxes[4 * i + 1] - BOX_TOL ||
            lon > boxes[4 * i + 2] + BOX_TOL ||
            lat > boxes[4 * i + 3] + BOX_TOL
          )
            continue
          const b = list[i]
          if (best !== null && !lowerThan(b, best)) continue
          if (banded[b.k].contains(lon, lat)) best = b
        }
      }
      return best
    },
    close() {},
  }
}

/** The lowest-code holder among candidate positions, by the given containment test. */
function pick(
  L: Layer,
  cand: ArrayLike<number>,
  lon: number,
  lat: number,
  holds: (b: Boundary) => boolean,
): Boundary | null {
  let best: Boundary | null = null
  for (let c = 0; c < cand.length; c++) {
    const b = L.boundaries[cand[c]]
    if (!boxHolds(b.box, lon, lat)) continue
    if (best !== null && !lowerThan(b, best)) continue
    if (holds(b)) best = b
  }
  return best
}

function buildFlatbush(L: Layer): Flatbush {
  const fb = new Flatbush(L.boundaries.length, 16, Float64Array)
  for (const b of L.boundaries) fb.add(b.box[0], b.box[1], b.box[2], b.box[3])
  fb.finish()
  return fb
}

function flatbushBandedStrategy(L: Layer): Strategy {
  const { value, ms } = time(() => ({ fb: buildFlatbush(L), banded: L.boundaries.map((b) => new BandedPolygon(b.mp)) }))
  const { fb, banded } = value
  const bandBytes = banded.reduce((s, b) => s + bandedBytes(b), 0)
  return {
    name: 'flatbush + banded',
    buildMs: ms,
    sizeBytes: fb.data.byteLength + bandBytes,
    sizeNote: `Flatbush ${mib(fb.data.byteLength)} + banded edges ${mib(bandBytes)}`,
    at: (lon, lat) =>
      pick(L, fb.search(lon - BOX_TOL, lat - BOX_TOL, lon + BOX_TOL, lat + BOX_TOL), lon, lat, (b) =>
        banded[b.k].contains(lon, lat),
      ),
    close() {},
  }
}

function flatbushStrategy(L: Layer): Strategy {
  const { value: fb, ms } = time(() => buildFlatbush(L))
  return {
    name: 'flatbush + ray-cast',
    buildMs: ms,
    sizeBytes: fb.data.byteLength,
    sizeNote: '',
    at: (lon, lat) =>
      pick(L, fb.search(lon - BOX_TOL, lat - BOX_TOL, lon + BOX_TOL, lat + BOX_TOL), lon, lat, (b) =>
        containsPoint(b.mp, lon, lat),
      ),
    close() {},
  }
}

function rtreeStrategy(L: Layer, dir: string): Strategy {
  const file = join(dir, `${L.type}-rtree.sqlite`)
  const { ms } = time(() => {
    const w = new Database(file)
    w.pragma('journal_mode = OFF')
    w.pragma('synchronous = OFF')
    w.exec('CREATE VIRTUAL TABLE bb USING rtree(id, min_lon, max_lon, min_lat, max_lat)')
    const ins = w.prepare('INSERT INTO bb VALUES (?, ?, ?, ?, ?)')
    w.exec('BEGIN')
    for (const b of L.boundaries) ins.run(b.k, b.box[0], b.box[2], b.box[1], b.box[3])
    w.exec('COMMIT')
    w.close()
  })
  const db = new Database(file, { readonly: true, fileMustExist: true })
  db.pragma('mmap_size = 2147483647')
  db.pragma('locking_mode = EXCLUSIVE')
  // R*Tree keeps 32-bit floats rounded outwards: candidates are a superset, the box and polygon tests settle them
  const stmt = db
    .prepare('SELECT id FROM bb WHERE min_lon <= ? AND max_lon >= ? AND min_lat <= ? AND max_lat >= ?')
    .pluck()
  return {
    name: 'sqlite r*tree + ray-cast',
    buildMs: ms,
    sizeBytes: statSync(file).size,
    sizeNote: 'file; 32-bit float boxes rounded outwards',
    at: (lon, lat) =>
      pick(L, stmt.all(lon + BOX_TOL, lon - BOX_TOL, lat + BOX_TOL, lat - BOX_TOL) as number[], lon, lat, (b) =>
        containsPoint(b.mp, lon, lat),
      ),
    close() {
      db.close()
    },
  }
}

function bruteStrategy(L: Layer): Strategy {
  const all = Uint32Array.from(L.boundaries, (b) => b.k)
  return {
    name: 'brute force',
    buildMs: 0,
    sizeBytes: 0,
    sizeNote: 'no index: every box, then ray-cast',
    at: (lon, lat) => pick(L, all, lon, lat, (b) => containsPoint(b.mp, lon, lat)),
    close() {},
  }
}

// ---------------------------------------------------------------- probes

interface Probes {
  lon: Float64Array
  lat: Float64Array
  /** 0 = the jurisdiction suite's, 1 = near a vertex, 2 = on an edge */
  kind: Uint8Array
  length: number
}

/**
 * The jurisdiction suite's points, then points within {@link NEAR_VERTEX_M} m of a random vertex
 * and midpoints of random edges of random boundaries of the compared layers (in force; the
 * layers taking turns).
 */
function makeProbes(q: JurisdictionQueries, layers: Layer[], d: string, count: number, seed: number): Probes {
  const nVertex = Math.round(count * NEAR_VERTEX_SHARE)
  const nEdge = Math.round(count * ON_EDGE_SHARE)
  const nGeneral = count - nVertex - nEdge
  const general = makeJurisdictionProbes(q, d, nGeneral, seed, 'boundary-strategies')
  const lon = new Float64Array(count)
  const lat = new Float64Array(count)
  const kind = new Uint8Array(count)
  lon.set(general.lon)
  lat.set(general.lat)
  const rnd = new Random(seed >>> 0, 'bench/boundary-strategies/edges')
  for (let k = nGeneral; k < count; k++) {
    // the layers in turn, so the few large municipalities get their share of edge points
    const pool = layers[k % layers.length].boundaries
    const b = pool[rnd.int(0, pool.length - 1)]
    const poly = b.mp[rnd.int(0, b.mp.length - 1)]
    const ring = poly[rnd.int(0, poly.length - 1)]
    const i = rnd.int(0, ring.length - 2)
    const [x0, y0] = ring[i]
    if (k < nGeneral + nVertex) {
      const dist = NEAR_VERTEX_M * Math.sqrt(rnd.float())
      const a = rnd.range(0, 2 * Math.PI)
      const m = metresPerDegree(y0)
      lon[k] = x0 + (dist * Math.cos(a)) / m.lon
      lat[k] = y0 + (dist * Math.sin(a)) / m.lat
      kind[k] = 1
    } else {
      const [x1, y1] = ring[i + 1]
      lon[k] = (x0 + x1) / 2
      lat[k] = (y0 + y1) / 2
      kind[k] = 2
    }
  }
  return { lon, lat, kind, length: count }
}

/**
 * Smallest distance from the point to an edge of the polygon: in degrees, or in metres with the local scales `kx`, `ky`
 * (metres per degree).
 */
function edgeDistanceDeg(mp: MultiPolygon, x: number, y: number, kx = 1, ky = 1): number {
  let best = Infinity
  for (const poly of mp)
    for (const ring of poly)
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const ax = (ring[j][0] - x) * kx
        const ay = (ring[j][1] - y) * ky
        const dx = (ring[i][0] - ring[j][0]) * kx
        const dy = (ring[i][1] - ring[j][1]) * ky
        const len2 = dx * dx + dy * dy
        let t = len2 === 0 ? 0 : -(ax * dx + ay * dy) / len2
        t = t < 0 ? 0 : t > 1 ? 1 : t
        const d = Math.hypot(ax + t * dx, ay + t * dy)
        if (d < best) best = d
      }
  return best
}

// ---------------------------------------------------------------- the run

function runLayer(
  ctx: SuiteContext,
  L: Layer,
  P: Probes,
  dir: string,
  skipped: string[],
): { rows: StrategyRow[]; ref: (Boundary | null)[]; ties: number } {
  const log = ctx.log
  const strategies: Strategy[] = [
    gridStrategy(L),
    flatbushBandedStrategy(L),
    flatbushStrategy(L),
    rtreeStrategy(L, dir),
  ]
  if (ctx.dataset.scale !== 'national' && L.boundaries.length <= BRUTE_MAX_SCALE_BOUNDARIES)
    strategies.push(bruteStrategy(L))
  else
    skipped.push(
      `brute force on ${L.type} (${ctx.dataset.scale} scale, ${L.boundaries.length.toLocaleString('en-US')} boundaries; sample scale and below only)`,
    )
  log(
    `boundary-strategies: ${L.type}: ${L.boundaries.length.toLocaleString('en-US')} boundaries, ${L.vertices.toLocaleString('en-US')} vertices; built ${strategies.map((s) => `${s.name} ${fmt(s.buildMs)} ms`).join(', ')}`,
  )
  try {
    const S = strategies.length
    const n = P.length
    const T = strategies.map(() => new Samples(n))
    const out: (Boundary | null)[][] = strategies.map(() => new Array(n).fill(null))
    // warm-up on the first chunk (not timed)
    for (const s of strategies) for (let k = 0; k < Math.min(CHUNK, n); k++) s.at(P.lon[k], P.lat[k])
    for (let start = 0, chunk = 0; start < n; start += CHUNK, chunk++) {
      const end = Math.min(n, start + CHUNK)
      for (let o = 0; o < S; o++) {
        const s = (o + chunk) % S
        const st = strategies[s]
        const res = out[s]
        const samples = T[s]
        for (let k = start; k < end; k++) {
          const t0 = performance.now()
          res[k] = st.at(P.lon[k], P.lat[k])
          samples.push(performance.now() - t0)
        }
      }
    }
    // throughput without the per-call timer
    const opsPerS = strategies.map((s) => {
      const t0 = performance.now()
      for (let k = 0; k < n; k++) s.at(P.lon[k], P.lat[k])
      return n / ((performance.now() - t0) / 1000)
    })
    // agreement with strategy 0 (production); edge cases within 1e-9° of either boundary's edge
    const ref = out[0]
    let failures = 0
    const rows = strategies.map((s, si) => {
      let agree = 0
      let edgeCases = 0
      let found = 0
      for (let k = 0; k < n; k++) {
        const a = out[si][k]
        const b = ref[k]
        if (a) found++
        if (a === b) {
          agree++
          continue
        }
        const dist = Math.min(
          a ? edgeDistanceDeg(a.mp, P.lon[k], P.lat[k]) : Infinity,
          b ? edgeDistanceDeg(b.mp, P.lon[k], P.lat[k]) : Infinity,
        )
        if (dist <= ON_EDGE_DEG) {
          edgeCases++
          continue
        }
        if (failures++ < 5) {
          const name = (x: Boundary | null) => (x ? `${x.code} (id ${x.id})` : 'none')
          ctx.fail(
            `boundary-strategies: ${L.type} disagreement at probe ${k} (${P.lon[k]}, ${P.lat[k]}), ${dist.toExponential(2)}° from an edge: ${s.name} ${name(a)} vs ${strategies[0].name} ${name(b)}`,
          )
        }
      }
      return {
        layer: L.type,
        boundaries: L.boundaries.length,
        vertices: L.vertices,
        strategy: s.name,
        buildMs: s.buildMs,
        sizeBytes: s.sizeBytes,
        sizeNote: s.sizeNote,
        t: T[si].summary(),
        opsPerS: opsPerS[si],
        found,
        agree,
        edgeCases,
        probes: n,
      }
    })
    if (failures > 5) ctx.fail(`boundary-strategies: ${L.type} ${failures - 5} more disagreements not listed`)
    // points held by two or more boundaries: where the lowest-code rule decided (untimed, via the Flatbush strategy's
    // index)
    const fb = buildFlatbush(L)
    let ties = 0
    for (let k = 0; k < n; k++) {
      let holders = 0
      for (const c of fb.search(P.lon[k] - BOX_TOL, P.lat[k] - BOX_TOL, P.lon[k] + BOX_TOL, P.lat[k] + BOX_TOL)) {
        const b = L.boundaries[c]
        if (boxHolds(b.box, P.lon[k], P.lat[k]) && containsPoint(b.mp, P.lon[k], P.lat[k]) && ++holders === 2) break
      }
      if (holders === 2) ties++
    }
    log(
      `boundary-strategies: ${L.type} p50 ${rows.map((r) => `${r.strategy} ${fmt(r.t.p50Us)} us`).join(', ')}; ${ties} points on a shared edge`,
    )
    return { rows, ref, ties }
  } finally {
    for (const s of strategies) s.close()
  }
}

export const boundaryStrategiesSuite: Suite<BoundaryStrategiesData> = {
  name: 'boundary-strategies',
  title: 'Index strategies for boundaries (point in polygon), in process',
  summary:
    'grid + banded PIP vs Flatbush vs SQLite R*Tree (+ ray-cast) vs brute force over the ward and municipality ' +
    'layers in force: latency, build, size, agreement',

  async run(ctx) {
    const asAt = johannesburgDate(new Date())
    const empty: BoundaryStrategiesData = {
      asAt,
      probes: 0,
      kinds: { general: 0, nearVertex: 0, onEdge: 0 },
      rows: [],
      ties: {},
      service: null,
      parentMismatch: null,
      skipped: [],
    }
    const ds = openDataset(ctx.dataset.dir)
    const dir = mkdtempSync(join(tmpdir(), 'landdata-bench-boundary-rtree-'))
    try {
      if (!ds.domain('jurisdiction')) return { ...empty, notMeasured: 'the dataset has no jurisdiction domain' }
      const layers = LAYERS.map((t) => loadLayer(ds, t, asAt)).filter((l) => l.boundaries.length > 0)
      if (!layers.length)
        return { ...empty, notMeasured: `no ward or local_municipality boundary with geometry is in force on ${asAt}` }
      const count = ctx.opts.quick ? 300 : 10_000
      // (the service's queries: the probe generator's label points, and the untimed checks below)
      const q = createJurisdictionQueries(ds)
      const P = makeProbes(q, layers, asAt, count, ctx.opts.seed)
      const kinds = { general: 0, nearVertex: 0, onEdge: 0 }
      for (const k of P.kind) kinds[k === 0 ? 'general' : k === 1 ? 'nearVertex' : 'onEdge']++
      const skipped: string[] = []
      const rows: StrategyRow[] = []
      const ties: BoundaryStrategiesData['ties'] = {}
      const refs = new Map<BoundaryType, (Boundary | null)[]>()
      for (const L of layers) {
        const r = runLayer(ctx, L, P, dir, skipped)
        rows.push(...r.rows)
        ties[L.type] = r.ties
        refs.set(L.type, r.ref)
      }

      // untimed: the reference against the service itself, and the chain's municipality against the municipal layer
      let service: BoundaryStrategiesData['service'] = null
      let parentMismatch: BoundaryStrategiesData['parentMismatch'] = null
      const wards = refs.get('ward')
      const locals = refs.get('local_municipality')
      if (wards) {
        service = { agree: 0, probes: P.length }
        let shown = 0
        for (let k = 0; k < P.length; k++) {
          const got = q.resolve(P.lon[k], P.lat[k], asAt).rows.ward?.id ?? null
          if (got === (wards[k]?.id ?? null)) service.agree++
          else if (shown++ < 3)
            ctx.fail(
              `boundary-strategies: ward at (${P.lon[k]}, ${P.lat[k]}): resolve() answers id ${got}, the grid + banded ` +
                `reference ${wards[k]?.id ?? null}`,
            )
        }
      }
      if (wards && locals) {
        parentMismatch = { probes: P.length, bothFound: 0, differ: 0, examples: [], edgeM: null }
        const edgeM: number[] = []
        for (let k = 0; k < P.length; k++) {
          const res = q.resolve(P.lon[k], P.lat[k], asAt)
          const chainLocal = res.rows.ward ? res.rows.local_municipality : undefined
          if (!chainLocal || !locals[k]) continue
          parentMismatch.bothFound++
          if (chainLocal.id !== locals[k]!.id) {
            parentMismatch.differ++
            const m = metresPerDegree(P.lat[k])
            edgeM.push(edgeDistanceDeg(locals[k]!.mp, P.lon[k], P.lat[k], m.lon, m.lat))
            if (parentMismatch.examples.length < 3)
              parentMismatch.examples.push(
                `(${P.lon[k].toFixed(7)}, ${P.lat[k].toFixed(7)}) ward ${res.rows.ward!.code} → ${chainLocal.code}, municipal layer ${locals[k]!.code}`,
              )
          }
        }
        if (edgeM.length) parentMismatch.edgeM = { median: median(edgeM), max: Math.max(...edgeM) }
      }
      return { asAt, probes: P.length, kinds, rows, ties, service, parentMismatch, skipped }
    } finally {
      ds.close()
      rmSync(dir, { recursive: true, force: true })
    }
  },

  render(r: SuiteRecord<BoundaryStrategiesData>) {
    const d = r.data
    if (d.notMeasured) return `_Not measured: ${d.notMeasured}._`
    const lines = [
      `The ward and local_municipality layers in force on ${d.asAt} (today in Africa/Johannesburg, the routes' ` +
        `default date). ` +
        `${d.probes.toLocaleString('en-US')} seeded points, the same for every layer and strategy: ${d.kinds.general.toLocaleString('en-US')} from the ` +
        `jurisdiction suite's generator (within 2 km of township and ward label points, or uniform over the ` +
        `provinces), ` +
        `${d.kinds.nearVertex.toLocaleString('en-US')} within ${NEAR_VERTEX_M} m of a random boundary vertex and ${d.kinds.onEdge.toLocaleString('en-US')} on a random ` +
        `boundary edge (its midpoint). ` +
        `Timed in chunks of ${CHUNK} with the strategies taking turns; ops/s from an untimed pass. ` +
        'One rule everywhere: boxes widened by 2e-9°, closed polygons (within 1e-9° of an edge is inside), and ' +
        'among several holders the lowest code, then the lowest id. ' +
        "Agreement is the same boundary as `grid + banded (production)` (the service's structure, rebuilt over " +
        'the layer in force); "edge" counts differing answers on points within 1e-9° of an edge, which would ' +
        'not fail the run.',
      '',
      '| layer | boundaries (vertices) | strategy | build | size | p50 / p99 µs | mean µs | ops/s | found | agree |',
      '|---|--:|---|--:|--:|--:|--:|--:|--:|--:|',
    ]
    for (const row of d.rows) {
      const build =
        row.strategy === 'brute force'
          ? '–'
          : row.buildMs >= 1000
            ? `${fmt(row.buildMs / 1000, 2)} s`
            : `${fmt(row.buildMs)} ms`
      const size =
        row.strategy === 'brute force' ? '–' : `${mib(row.sizeBytes)}${row.sizeNote ? ` (${row.sizeNote})` : ''}`
      lines.push(
        `| ${row.layer} | ${row.boundaries.toLocaleString('en-US')} (${row.vertices.toLocaleString('en-US')}) | ${row.strategy} | ${build} | ${size} | ` +
          `${fmt(row.t.p50Us, 2)} / ${fmt(row.t.p99Us)} | ${fmt(row.t.meanUs, 2)} | ${fmt(row.opsPerS)} | ${row.found.toLocaleString('en-US')} | ${row.agree}/${row.probes}${row.edgeCases ? ` + ${row.edgeCases} edge` : ''} |`,
      )
    }
    lines.push('')
    const ties = Object.entries(d.ties)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ')
    lines.push(`Points held by two or more boundaries (decided by the lowest-code rule): ${ties}.`)
    if (d.service)
      lines.push(
        '',
        `Service check (untimed): the reference's ward is the ward of \`resolve()\`'s chain for ${d.service.agree}/${d.service.probes} points.`,
      )
    const pm = d.parentMismatch
    if (pm) {
      lines.push(
        '',
        `Chain vs layer (untimed, for information): where a ward holds the point, the chain's municipality is the ` +
          `ward's parent by code, not a test on the municipal layer; ` +
          `of ${pm.bothFound.toLocaleString('en-US')} points where both answer, ${pm.differ.toLocaleString('en-US')} name another ` +
          `municipality than the municipal layer's polygon holding the point` +
          `${pm.examples.length ? ` (e.g. ${pm.examples.join('; ')})` : ''}` +
          `${pm.edgeM ? `, all within ${fmt(pm.edgeM.max)} m of that polygon's edge (median ${fmt(pm.edgeM.median)} m)` : ''}. The Board's ward ` +
          `and municipal layers were simplified separately, so their edges do not coincide exactly.`,
      )
    }
    lines.push(
      '',
      'Sizes are the index structures only; every strategy also holds the decoded polygons (ray-cast reads them, ' +
        'banded copies their edges into the typed arrays counted above).',
    )
    if (d.skipped.length) lines.push('', `Skipped: ${d.skipped.join('; ')}.`)
    return lines.join('\n')
  },
}
