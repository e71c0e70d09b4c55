/**
 * Index strategies for the plot layers, in process (issue 7 item 2, plots part): the same
 * seeded probes answered by
 *
 *   kdbush    the production PointIndex (KDBush box + flat prefilter + Vincenty; geokdbush
 *             walk for sparse areas)
 *   flatbush  points as zero-area boxes; radius = box search, nearest = Flatbush's planar
 *             kNN for a first candidate, then a box of that geodesic distance
 *   rtree     SQLite's built-in R*Tree in a temp file (exact lon/lat as auxiliary columns),
 *             read-only with locking_mode=EXCLUSIVE like the dataset; nearest = doubling boxes
 *   brute     a scan of every point (tiny and sample scale only)
 *
 * The bbox strategies share one exact step (bench/lib/refine.ts). Every strategy must return
 * the same ids for every probe: radius the same set within 500 m geodesic (limit 100, nearest
 * first, ties by id), nearest the same id or one at exactly the same distance. Any
 * disagreement fails the run.
 *
 * @module
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import { around } from 'geokdbush'
import KDBush from 'kdbush'
import { openDataset } from '../../src/data/open-dataset.js'
import { REVERSE_REACH_M } from '../../src/features/plots/schemas.js'
import { geodesicDistanceM } from '../../src/geo/geodesic.js'
import { PointIndex } from '../../src/geo/point-index.js'
import { loadLayers, makeProbes, type Layer } from '../lib/layers.js'
import { boxAround, nearestByExpandingBoxes, refineNearest, refineRadius, type Hit } from '../lib/refine.js'
import { fmt, mib, Samples, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'
import { RADIUS_LIMIT, RADIUS_M } from './plots.js'

/** Brute force runs only on layers up to this many points. */
const BRUTE_MAX_POINTS = 200_000
/** Probes are timed in chunks, each strategy in turn (order rotating), so machine noise hits all alike. */
const CHUNK = 250

interface Strategy {
  name: string
  buildMs: number
  sizeBytes: number
  sizeNote: string
  radius(lon: number, lat: number): Hit[]
  nearest(lon: number, lat: number): Hit | null
  close(): void
}

interface StrategyRow {
  layer: string
  points: number
  strategy: string
  buildMs: number
  sizeBytes: number
  sizeNote: string
  radius: Summary
  nearest: Summary
  radiusAgree: number
  nearestAgree: number
  probes: number
}

export interface StrategiesData {
  probesPerLayer: number
  rows: StrategyRow[]
  skipped: string[]
}

function time<T>(f: () => T): { value: T; ms: number } {
  const t0 = performance.now()
  const value = f()
  return { value, ms: performance.now() - t0 }
}

function kdbushStrategy(L: Layer): Strategy {
  const { value: index, ms } = time(() => {
    const kd = new KDBush(L.n, 64, Float64Array)
    for (let i = 0; i < L.n; i++) kd.add(L.lon[i], L.lat[i])
    kd.finish()
    return PointIndex.from(kd.data as ArrayBuffer, L.n)
  })
  return {
    name: 'kdbush (PointIndex)',
    buildMs: ms,
    sizeBytes: (index.kd.data as ArrayBuffer).byteLength,
    // the node boxes (an item -> position table too until 2026-11-25 evening: L.n * 4 bytes)
    sizeNote: `+ ${mib(index.memoryBytes)} node boxes in memory`,
    radius: (lon, lat) => index.within(lon, lat, RADIUS_M, RADIUS_LIMIT).map((h) => ({ i: h.i, d: h.distanceM })),
    nearest: (lon, lat) => {
      const h = index.nearest(lon, lat, REVERSE_REACH_M)
      return h ? { i: h.i, d: h.distanceM } : null
    },
    close() {},
  }
}

/**
 * KDBush with geokdbush's `around` for the sparse part of nearest (the production PointIndex
 * before kd-nearest.ts): the same box ladder, then `around` on the sphere, settled on the
 * ellipsoid. Kept to show why production walks the tree itself.
 */
function geokdbushStrategy(L: Layer): Strategy {
  const { value: index, ms } = time(() => {
    const kd = new KDBush(L.n, 64, Float64Array)
    for (let i = 0; i < L.n; i++) kd.add(L.lon[i], L.lat[i])
    kd.finish()
    return PointIndex.from(kd.data as ArrayBuffer, L.n)
  })
  const SPHERE = 0.007
  return {
    name: 'kdbush + geokdbush around',
    buildMs: ms,
    sizeBytes: (index.kd.data as ArrayBuffer).byteLength,
    sizeNote: `+ ${mib(L.n * 4)} position table in memory`,
    radius: (lon, lat) => index.within(lon, lat, RADIUS_M, RADIUS_LIMIT).map((h) => ({ i: h.i, d: h.distanceM })),
    nearest: (lon, lat) => {
      for (const r of [250, 1000, 4000]) {
        const h = index.within(lon, lat, r, 1)[0]
        if (h) return { i: h.i, d: h.distanceM }
      }
      const first = around(index.kd, lon, lat, 1, (REVERSE_REACH_M * (1 + SPHERE)) / 1000)[0] as number | undefined
      if (first === undefined) return null
      const firstM = geodesicDistanceM(lon, lat, index.lon(first), index.lat(first))
      const h = index.within(lon, lat, Math.min(firstM, REVERSE_REACH_M), 1)[0]
      return h ? { i: h.i, d: h.distanceM } : null
    },
    close() {},
  }
}

function flatbushStrategy(L: Layer): Strategy {
  const { value: fb, ms } = time(() => {
    const fb = new Flatbush(L.n, 16, Float64Array)
    for (let i = 0; i < L.n; i++) fb.add(L.lon[i], L.lat[i], L.lon[i], L.lat[i])
    fb.finish()
    return fb
  })
  const { lon: X, lat: Y } = L
  const inBox = (b: [number, number, number, number]) => {
    const cand = fb.search(b[0], b[1], b[2], b[3])
    return { cand, lonOf: (k: number) => X[cand[k]], latOf: (k: number) => Y[cand[k]] }
  }
  return {
    name: 'flatbush',
    buildMs: ms,
    sizeBytes: fb.data.byteLength,
    sizeNote: '',
    radius(lon, lat) {
      const { cand, lonOf, latOf } = inBox(boxAround(lon, lat, RADIUS_M))
      return refineRadius(cand, lonOf, latOf, lon, lat, RADIUS_M, RADIUS_LIMIT)
    },
    nearest(lon, lat) {
      // planar (degree) kNN is not geodesic order, but its answer bounds the true distance
      const first = fb.neighbors(lon, lat, 1)[0]
      if (first === undefined) return null
      const reach = Math.min(REVERSE_REACH_M, geodesicDistanceM(lon, lat, X[first], Y[first]))
      const { cand, lonOf, latOf } = inBox(boxAround(lon, lat, reach))
      const best = refineNearest(cand, lonOf, latOf, lon, lat)
      return best && best.d <= REVERSE_REACH_M ? best : null
    },
    close() {},
  }
}

function rtreeStrategy(L: Layer, dir: string, log: (l: string) => void): Strategy {
  const file = join(dir, `${L.country}-rtree.sqlite`)
  const { ms } = time(() => {
    const w = new Database(file)
    w.pragma('journal_mode = OFF')
    w.pragma('synchronous = OFF')
    w.exec('CREATE VIRTUAL TABLE pt USING rtree(id, min_lon, max_lon, min_lat, max_lat, +lon, +lat)')
    const ins = w.prepare('INSERT INTO pt VALUES (?, ?, ?, ?, ?, ?, ?)')
    w.exec('BEGIN')
    const step = Math.max(1, Math.floor(L.n / 10))
    for (let i = 0; i < L.n; i++) {
      const x = L.lon[i]
      const y = L.lat[i]
      ins.run(i, x, x, y, y, x, y)
      if (L.n > 500_000 && i % step === step - 1)
        log(`strategies: ${L.country} R*Tree ${Math.round(((i + 1) / L.n) * 100)}%`)
    }
    w.exec('COMMIT')
    w.close()
  })
  const db = new Database(file, { readonly: true, fileMustExist: true })
  db.pragma('mmap_size = 2147483647')
  db.pragma('locking_mode = EXCLUSIVE')
  const stmt = db
    .prepare('SELECT id, lon, lat FROM pt WHERE min_lon <= ? AND max_lon >= ? AND min_lat <= ? AND max_lat >= ?')
    .raw()
  const inBox = (b: [number, number, number, number]) => {
    const rows = stmt.all(b[2], b[0], b[3], b[1]) as [number, number, number][]
    const cand = rows.map((r) => r[0])
    return { cand, lonOf: (k: number) => rows[k][1], latOf: (k: number) => rows[k][2] }
  }
  return {
    name: 'sqlite r*tree',
    buildMs: ms,
    sizeBytes: statSync(file).size,
    sizeNote: 'file, exact lon/lat as auxiliary columns',
    radius(lon, lat) {
      const { cand, lonOf, latOf } = inBox(boxAround(lon, lat, RADIUS_M))
      return refineRadius(cand, lonOf, latOf, lon, lat, RADIUS_M, RADIUS_LIMIT)
    },
    nearest(lon, lat) {
      return nearestByExpandingBoxes(
        (b) => {
          const { cand, lonOf, latOf } = inBox(b)
          return refineNearest(cand, lonOf, latOf, lon, lat)
        },
        lon,
        lat,
        REVERSE_REACH_M,
      )
    },
    close() {
      db.close()
    },
  }
}

function bruteStrategy(L: Layer): Strategy {
  const all = new Uint32Array(L.n)
  for (let i = 0; i < L.n; i++) all[i] = i
  const { lon: X, lat: Y } = L
  const lonOf = (k: number) => X[k]
  const latOf = (k: number) => Y[k]
  return {
    name: 'brute force',
    buildMs: 0,
    sizeBytes: L.n * 16,
    sizeNote: 'the coordinate arrays themselves',
    radius: (lon, lat) => refineRadius(all, lonOf, latOf, lon, lat, RADIUS_M, RADIUS_LIMIT),
    nearest(lon, lat) {
      const best = refineNearest(all, lonOf, latOf, lon, lat)
      return best && best.d <= REVERSE_REACH_M ? best : null
    },
    close() {},
  }
}

const sameIds = (a: Hit[], b: Hit[]) => {
  if (a.length !== b.length) return false
  const x = a.map((h) => h.i).sort((p, q) => p - q)
  const y = b.map((h) => h.i).sort((p, q) => p - q)
  return x.every((v, k) => v === y[k])
}
const sameNearest = (a: Hit | null, b: Hit | null) => (a === null || b === null ? a === b : a.i === b.i || a.d === b.d)

function runLayer(ctx: SuiteContext, L: Layer, probesPerLayer: number, dir: string, skipped: string[]): StrategyRow[] {
  const strategies: Strategy[] = []
  const log = ctx.log
  strategies.push(kdbushStrategy(L))
  log(`strategies: ${L.country} kdbush built in ${fmt(strategies[0].buildMs)} ms`)
  strategies.push(geokdbushStrategy(L))
  strategies.push(flatbushStrategy(L))
  log(`strategies: ${L.country} flatbush built in ${fmt(strategies[2].buildMs)} ms`)
  strategies.push(rtreeStrategy(L, dir, log))
  log(`strategies: ${L.country} R*Tree built in ${fmt(strategies[3].buildMs / 1000, 1)} s`)
  if (L.n <= BRUTE_MAX_POINTS) strategies.push(bruteStrategy(L))
  else
    skipped.push(
      `brute force on ${L.country} (${L.n.toLocaleString('en-US')} points > ${BRUTE_MAX_POINTS.toLocaleString('en-US')}; sample scale and ` +
        `below only)`,
    )

  const probes = makeProbes([L], probesPerLayer, ctx.opts.seed, `strategies/${L.country}`)
  const S = strategies.length
  const radiusT = strategies.map(() => new Samples(probesPerLayer))
  const nearestT = strategies.map(() => new Samples(probesPerLayer))
  const radiusAgree = new Array<number>(S).fill(0)
  const nearestAgree = new Array<number>(S).fill(0)
  // warm-up on the first chunk (not timed, not counted)
  for (const s of strategies)
    for (let k = 0; k < Math.min(CHUNK, probes.length); k++) {
      s.radius(probes.lon[k], probes.lat[k])
      s.nearest(probes.lon[k], probes.lat[k])
    }

  let failures = 0
  for (let start = 0, chunk = 0; start < probes.length; start += CHUNK, chunk++) {
    const end = Math.min(probes.length, start + CHUNK)
    const radiusOut: Hit[][][] = strategies.map(() => [])
    const nearestOut: (Hit | null)[][] = strategies.map(() => [])
    for (let o = 0; o < S; o++) {
      const s = (o + chunk) % S
      const st = strategies[s]
      for (let k = start; k < end; k++) {
        const t0 = performance.now()
        radiusOut[s].push(st.radius(probes.lon[k], probes.lat[k]))
        const t1 = performance.now()
        nearestOut[s].push(st.nearest(probes.lon[k], probes.lat[k]))
        const t2 = performance.now()
        radiusT[s].push(t1 - t0)
        nearestT[s].push(t2 - t1)
      }
    }
    // strategy 0 (production) is the reference; it trivially agrees with itself
    for (let k = 0; k < end - start; k++) {
      for (let s = 0; s < S; s++) {
        if (sameIds(radiusOut[s][k], radiusOut[0][k])) radiusAgree[s]++
        else if (failures++ < 5) {
          ctx.fail(
            `strategies: ${L.country} radius disagreement at probe ${start + k} (${probes.lon[start + k]}, ${probes.lat[start + k]}): ` +
              `${strategies[s].name} ${radiusOut[s][k].length} ids vs ${strategies[0].name} ${radiusOut[0][k].length}`,
          )
        }
        if (sameNearest(nearestOut[s][k], nearestOut[0][k])) nearestAgree[s]++
        else if (failures++ < 5) {
          const a = nearestOut[s][k]
          const b = nearestOut[0][k]
          ctx.fail(
            `strategies: ${L.country} nearest disagreement at probe ${start + k} (${probes.lon[start + k]}, ${probes.lat[start + k]}): ` +
              `${strategies[s].name} ${a ? `${a.i} at ${a.d} m` : 'none'} vs ${strategies[0].name} ${b ? `${b.i} at ${b.d} m` : 'none'}`,
          )
        }
      }
    }
  }
  if (failures > 5) ctx.fail(`strategies: ${L.country} ${failures - 5} more disagreements not listed`)
  for (const s of strategies) s.close()
  return strategies.map((s, k) => ({
    layer: L.country,
    points: L.n,
    strategy: s.name,
    buildMs: s.buildMs,
    sizeBytes: s.sizeBytes,
    sizeNote: s.sizeNote,
    radius: radiusT[k].summary(),
    nearest: nearestT[k].summary(),
    radiusAgree: radiusAgree[k],
    nearestAgree: nearestAgree[k],
    probes: probes.length,
  }))
}

export const strategiesSuite: Suite<StrategiesData> = {
  name: 'strategies',
  title: 'Index strategies for plots, in process',
  summary: 'KDBush/geokdbush vs Flatbush vs SQLite R*Tree vs brute force: radius and nearest, build, size, agreement',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    const layers = loadLayers(ds)
    ds.close()
    const probesPerLayer = ctx.opts.quick ? 300 : 4_000
    const dir = mkdtempSync(join(tmpdir(), 'landdata-bench-rtree-'))
    const skipped: string[] = []
    const rows: StrategyRow[] = []
    try {
      for (const L of layers) rows.push(...runLayer(ctx, L, probesPerLayer, dir, skipped))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    return { probesPerLayer, rows, skipped }
  },

  render(r: SuiteRecord<StrategiesData>) {
    const d = r.data
    const lines = [
      `${d.probesPerLayer.toLocaleString('en-US')} seeded probes per layer (80 % within 400 m of a real plot, 20 % ` +
        `uniform in the layer's extent), timed in chunks of ${CHUNK} with the strategies ` +
        `taking turns. ` +
        `Radius = ${RADIUS_M} m geodesic, limit ${RADIUS_LIMIT}; nearest = within ${REVERSE_REACH_M / 1000} km. Agreement is ` +
        `against the production PointIndex: ` +
        'radius the same id set, nearest the same id or a tie at exactly the same distance.',
      '',
      '| layer | points | strategy | build | size | radius p50 / p99 µs | nearest p50 / p99 µs | radius agree | ' +
        'nearest agree |',
      '|---|--:|---|--:|--:|--:|--:|--:|--:|',
    ]
    for (const row of d.rows) {
      const build =
        row.strategy === 'brute force'
          ? '–'
          : row.buildMs >= 1000
            ? `${fmt(row.buildMs / 1000, 2)} s`
            : `${fmt(row.buildMs)} ms`
      lines.push(
        `| ${row.layer} | ${row.points.toLocaleString('en-US')} | ${row.strategy} | ${build} | ${mib(row.sizeBytes)}${row.sizeNote ? ` (${row.sizeNote})` : ''} | ` +
          `${fmt(row.radius.p50Us)} / ${fmt(row.radius.p99Us)} | ${fmt(row.nearest.p50Us)} / ${fmt(row.nearest.p99Us)} | ${row.radiusAgree}/${row.probes} | ${row.nearestAgree}/${row.probes} |`,
      )
    }
    if (d.skipped.length) lines.push('', `Skipped: ${d.skipped.join('; ')}.`)
    return lines.join('\n')
  },
}
