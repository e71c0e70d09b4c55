/**
 * The jurisdiction service: `/jurisdiction/at` (the chain at a point), `POST /jurisdiction/batch`
 * of 5000 points and `/jurisdiction/search` in process, and `/jurisdiction/at` over HTTP with 1
 * and 2 workers next to the Hono hello-world floor of the same run.
 *
 * In process, "service" is `createJurisdictionQueries(ds).resolve(lon, lat, today)` exactly as
 * the `/at` route calls it (today in Africa/Johannesburg); "route path" adds the `nearest()` call
 * the route makes before its 404 for a point outside every boundary. "Batch, whole handler" sends
 * a 5000-point body through the app (`app.request`: JSON parse, validation of every point, key
 * check, rate limit, lookups, JSON answer read back as text, not parsed) without a socket.
 * Search is `search(q, every type, today, 20)` as the route calls it without `types`/`limit`; its
 * first call builds the trigram index, timed on its own.
 *
 * Issue 6 targets at national scale: `/at` p50 <= 50 us, a batch of 5000 points <= 50 ms, search
 * p50 <= 2 ms.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createApp } from '../../src/app.js'
import { johannesburgDate } from '../../src/auth/dates.js'
import { DatasetHandle, openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { BOUNDARY_TYPES, type BoundaryType } from '../../src/data/jurisdiction-format.js'
import { createJurisdictionQueries, inForce, type BoundaryRow, type JurisdictionQueries } from '../../src/features/jurisdiction/queries.js'
import { BATCH_MAX, SEARCH_LIMIT_DEFAULT } from '../../src/features/jurisdiction/schemas.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { MemoryRateLimiter } from '../../src/rate-limit/memory.js'
import { buildServices } from '../../src/services.js'
import { BenchKeys } from '../lib/keys.js'
import { findWrk, runLoad, type LoadResult } from '../lib/load.js'
import { measure, type OpRow } from '../lib/measure.js'
import { Random } from '../lib/prng.js'
import { startApiServer, startHello } from '../lib/servers.js'
import { fmt, median, percentile, Samples, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

/** Issue 6 targets (national scale). */
export const TARGETS = { atP50Us: 50, batchMs: 50, searchP50Ms: 2 }
/** Near probes land within this distance of a random township's or ward's label point. */
const NEAR_MAX_M = 2_000
const NEAR_SHARE = 0.8
/** Boundary types whose label points seed the near probes. */
const NEAR_TYPES: readonly BoundaryType[] = ['township', 'ward']
/** Search queries besides the ones made from the dataset's names. */
const FIXED_QUERIES = ['tshwan', 'mandela bay', 'johannesburg', 'cape town ward 12']
/** Words a prefix query is not cut from: they name no place. */
const GENERIC_WORDS = new Set(['ward', 'city', 'local', 'municipality', 'metropolitan', 'district', 'division', 'registration'])

interface JurisdictionProbes {
  lon: Float64Array
  lat: Float64Array
  /** 0 = near a township's or ward's label point, 1 = uniform in the provinces' extent */
  kind: Uint8Array
  length: number
}

interface HttpRow {
  target: 'hello' | 'server'
  workers: number
  round: number
  result: LoadResult
}

export interface SearchData {
  queries: number
  rounds: number
  /** the first call: builds the trigram index, then answers one query */
  buildMs: number
  /** index size: boundary names indexed */
  names: number
  all: Summary & { p95Us: number }
  opsPerS: number
  meanResults: number
  /** share of queries with at least one match */
  hitShare: number
  /** the fixed queries: results and top match */
  fixed: { q: string; results: number; top: string | null; similarity: number | null; us: number }[]
}

export interface JurisdictionData {
  /** boundary records in memory, and those in force on the date, per type */
  boundaries: number
  inForce: Partial<Record<BoundaryType, number>>
  asAt: string
  probes: number
  rounds: number
  /** share of probes that resolve, by kind */
  foundNear: number
  foundRandom: number
  batches: number
  rows: OpRow[]
  search: SearchData | null
  http: { tool: 'wrk' | 'autocannon'; durationS: number; paths: number; check: { probes: number; agreed: number }; runs: HttpRow[] } | null
  skipped?: string
}

/** Union of the boxes of `rows` (null when none has geometry). */
function extentOf(rows: BoundaryRow[]): [number, number, number, number] | null {
  let e: [number, number, number, number] | null = null
  for (const r of rows) {
    if (!r.bbox) continue
    if (!e) e = [...r.bbox]
    else e = [Math.min(e[0], r.bbox[0]), Math.min(e[1], r.bbox[1]), Math.max(e[2], r.bbox[2]), Math.max(e[3], r.bbox[3])]
  }
  return e
}

/**
 * Jittered label points (within {@link NEAR_MAX_M}) of random townships and wards in force on
 * `d`, and uniform points over the box of the provinces in force (some fall outside the country).
 */
export function makeJurisdictionProbes(q: JurisdictionQueries, d: string, count: number, seed: number, label: string, nearShare = NEAR_SHARE): JurisdictionProbes {
  const live = q.all().filter((r) => inForce(r, d))
  let seeds = live.filter((r) => NEAR_TYPES.includes(r.type) && r.label !== null)
  if (!seeds.length) seeds = live.filter((r) => r.label !== null)
  const ext = extentOf(live.filter((r) => r.type === 'province')) ?? extentOf(live)
  if (!seeds.length || !ext) throw new Error('jurisdiction: no boundary in force has a label point or geometry')
  const rnd = new Random(seed >>> 0, `bench/jurisdiction/${label}`)
  const lon = new Float64Array(count)
  const lat = new Float64Array(count)
  const kind = new Uint8Array(count)
  for (let k = 0; k < count; k++) {
    if (rnd.float() < nearShare) {
      const [x, y] = seeds[rnd.int(0, seeds.length - 1)].label!
      const dist = NEAR_MAX_M * Math.sqrt(rnd.float())
      const a = rnd.range(0, 2 * Math.PI)
      const m = metresPerDegree(y)
      lon[k] = x + (dist * Math.cos(a)) / m.lon
      lat[k] = y + (dist * Math.sin(a)) / m.lat
    } else {
      lon[k] = rnd.range(ext[0], ext[2])
      lat[k] = rnd.range(ext[1], ext[3])
      kind[k] = 1
    }
  }
  return { lon, lat, kind, length: count }
}

/**
 * Search queries as users type them: real boundary names, lower-cased, with one character
 * dropped, two neighbours swapped, or cut to a word prefix; then the fixed ones.
 */
export function makeSearchQueries(q: JurisdictionQueries, d: string, count: number, seed: number): string[] {
  const names = [...new Set(q.all().filter((r) => inForce(r, d) && /[\p{L}\p{Nd}]{3}/u.test(r.name)).map((r) => r.name))].sort()
  const rnd = new Random(seed >>> 0, 'bench/jurisdiction/search')
  const out: string[] = []
  for (let k = 0; names.length && k < count - FIXED_QUERIES.length; k++) {
    const name = names[rnd.int(0, names.length - 1)].toLowerCase()
    const how = rnd.int(0, 2)
    let s = name
    if (how === 0 && name.length > 3) {
      const i = rnd.int(0, name.length - 1)
      s = name.slice(0, i) + name.slice(i + 1)
    } else if (how === 1 && name.length > 3) {
      const i = rnd.int(0, name.length - 2)
      s = name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2)
    } else {
      // a prefix of one of the name's own words (most names are "<municipality> Ward <n>")
      const words = name.split(/[^\p{L}\p{Nd}]+/u).filter((w) => w.length >= 4 && !GENERIC_WORDS.has(w))
      const w = words.length ? words[rnd.int(0, words.length - 1)] : name
      s = w.slice(0, w.length > 4 ? rnd.int(Math.max(4, Math.ceil(w.length * 0.6)), w.length - 1) : w.length)
    }
    s = s.trim()
    out.push([...s].length >= 2 ? s : name)
  }
  return [...out, ...FIXED_QUERIES]
}

async function measureBatches(op: string, variant: string, batches: number, fn: (b: number) => Promise<number> | number): Promise<OpRow> {
  for (let b = 0; b < Math.min(batches, 3); b++) await fn(b) // warm-up
  const all = new Samples(batches)
  let results = 0
  const t0 = performance.now()
  for (let b = 0; b < batches; b++) {
    const s = performance.now()
    results += await fn(b)
    all.push(performance.now() - s)
  }
  const opsPerS = batches / ((performance.now() - t0) / 1000)
  return { op, variant, all: all.summary(), near: null, random: null, opsPerS, meanResults: results / batches }
}

function measureSearch(ctx: SuiteContext, q: JurisdictionQueries, d: string): SearchData {
  const quick = ctx.opts.quick
  const queries = makeSearchQueries(q, d, 200, ctx.opts.seed)
  const rounds = quick ? 1 : 5
  const types = BOUNDARY_TYPES
  const limit = SEARCH_LIMIT_DEFAULT
  // the first call builds the trigram index
  const b0 = performance.now()
  q.search(queries[0], types, d, limit)
  const buildMs = performance.now() - b0
  for (const s of queries) q.search(s, types, d, limit) // warm-up pass
  const times = new Float64Array(queries.length * rounds)
  let n = 0
  let results = 0
  let hits = 0
  for (let r = 0; r < rounds; r++) {
    for (const s of queries) {
      const t0 = performance.now()
      const found = q.search(s, types, d, limit).length
      times[n++] = performance.now() - t0
      results += found
      if (r === 0 && found) hits++
    }
  }
  const t0 = performance.now()
  for (const s of queries) q.search(s, types, d, limit)
  const opsPerS = queries.length / ((performance.now() - t0) / 1000)
  const summary = new Samples(n)
  for (let i = 0; i < n; i++) summary.push(times[i])
  const sorted = Float64Array.from(times.subarray(0, n), (ms) => ms * 1000).sort()
  const fixed = FIXED_QUERIES.map((s) => {
    const t = performance.now()
    const found = q.search(s, types, d, limit)
    const us = (performance.now() - t) * 1000
    return { q: s, results: found.length, top: found[0] ? `${found[0].row.type} ${found[0].row.code} ${found[0].row.name}` : null, similarity: found[0]?.similarity ?? null, us }
  })
  return {
    queries: queries.length,
    rounds,
    buildMs,
    names: q.all().length,
    all: { ...summary.summary(), p95Us: percentile(sorted, 95) },
    opsPerS,
    meanResults: results / n,
    hitShare: hits / queries.length,
    fixed,
  }
}

async function runHttp(ctx: SuiteContext, q: JurisdictionQueries, d: string): Promise<JurisdictionData['http']> {
  const quick = ctx.opts.quick
  const wrk = findWrk()
  const tool = ctx.opts.tool === 'auto' ? (wrk ? 'wrk' : 'autocannon') : ctx.opts.tool
  if (tool === 'wrk' && !wrk) throw new Error('--tool wrk: wrk is not installed (apt-get install wrk)')
  const pathCount = quick ? 200 : 2_000
  // only points that resolve, so every answer is a 200 (a 404 would count as an error)
  const probes = makeJurisdictionProbes(q, d, pathCount, ctx.opts.seed, 'http', 1)
  const paths: string[] = []
  const expected: string[] = []
  for (let k = 0; k < pathCount; k++) {
    const lat = probes.lat[k].toFixed(7)
    const lon = probes.lon[k].toFixed(7)
    const r = q.resolve(Number(lon), Number(lat), d)
    if (!r.found) continue
    paths.push(`/api/v1/jurisdiction/at?lat=${lat}&lon=${lon}`)
    expected.push(JSON.stringify({ jurisdiction: r.jurisdiction, notes: r.notes }))
  }
  if (!paths.length) throw new Error('jurisdiction http: no probe resolves')
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-jurisdiction-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const runs: HttpRow[] = []
  let agreed = 0
  const checked = Math.min(25, paths.length)
  try {
    const warmupS = quick ? 0.5 : 2
    const durationS = ctx.opts.durationS
    const rounds = quick ? 1 : 3
    for (let round = 1; round <= rounds; round++) {
      for (const workers of [1, 2]) {
        const hello = await startHello(workers, work)
        try {
          const o = { port: hello.port, paths, headers: {}, connections: 50, workDir: work }
          await runLoad(tool, { ...o, durationS: warmupS })
          runs.push({ target: 'hello', workers, round, result: await runLoad(tool, { ...o, durationS }) })
        } finally {
          await hello.stop()
        }
        const server = await startApiServer({ datasetDir: ctx.dataset.dir, keysDb: join(work, 'keys.db'), workers, workDir: work })
        try {
          const key = keys.issue(['jurisdiction'])
          if (round === 1 && workers === 1) {
            for (let k = 0; k < checked; k++) {
              const res = await fetch(`http://127.0.0.1:${server.port}${paths[k]}`, { headers: { 'X-API-KEY': key } })
              const body = (await res.json()) as { jurisdiction?: unknown; notes?: unknown }
              const got = JSON.stringify({ jurisdiction: body.jurisdiction, notes: body.notes })
              if (res.status === 200 && got === expected[k]) agreed++
              else ctx.fail(`jurisdiction http: ${paths[k]} answered ${res.status} ${got.slice(0, 300)}, in process ${expected[k].slice(0, 300)}`)
            }
          }
          const o = { port: server.port, paths, headers: { 'X-API-KEY': key }, connections: 50, workDir: work }
          await runLoad(tool, { ...o, durationS: warmupS })
          const result = await runLoad(tool, { ...o, durationS })
          runs.push({ target: 'server', workers, round, result })
          ctx.log(`jurisdiction http: round ${round} w${workers}: ${fmt(result.reqPerS)} req/s (hello ${fmt(runs.at(-2)!.result.reqPerS)}), p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}`)
          if (result.errors > 0) ctx.fail(`jurisdiction http: /jurisdiction/at w${workers} had ${result.errors} errors (${result.non2xx} non-2xx)`)
        } finally {
          await server.stop()
        }
      }
    }
    return { tool, durationS, paths: paths.length, check: { probes: checked, agreed }, runs }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

const skipped = (reason: string): JurisdictionData => ({
  boundaries: 0,
  inForce: {},
  asAt: '',
  probes: 0,
  rounds: 0,
  foundNear: 0,
  foundRandom: 0,
  batches: 0,
  rows: [],
  search: null,
  http: null,
  skipped: reason,
})

export const jurisdictionSuite: Suite<JurisdictionData> = {
  name: 'jurisdiction',
  title: 'Jurisdiction: /jurisdiction/at, batch and search in process, /jurisdiction/at over HTTP',
  summary: '/jurisdiction/at p50/p99 us, POST /jurisdiction/batch of 5000 points ms, search p50/p95/p99 ms, /jurisdiction/at req/s with 1 and 2 workers vs hello-world',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    try {
      if (!ds.domain('jurisdiction')) return skipped('the dataset has no jurisdiction (boundary) domain')
      const q = createJurisdictionQueries(ds)
      const d = johannesburgDate(new Date())
      const live = q.all().filter((r) => inForce(r, d))
      if (!live.some((r) => r.bbox !== null)) return skipped(`no boundary with geometry is in force on ${d}`)
      const inForceByType: Partial<Record<BoundaryType, number>> = {}
      for (const r of live) inForceByType[r.type] = (inForceByType[r.type] ?? 0) + 1

      const quick = ctx.opts.quick
      const count = quick ? 1_000 : 20_000
      const rounds = quick ? 1 : 3
      const probes = makeJurisdictionProbes(q, d, count, ctx.opts.seed, 'at')
      const found = [0, 0]
      const kinds = [0, 0]
      for (let k = 0; k < count; k++) {
        kinds[probes.kind[k]]++
        if (q.resolve(probes.lon[k], probes.lat[k], d).found) found[probes.kind[k]]++
      }
      ctx.log(
        `jurisdiction: ${count} probes x ${rounds} rounds over ${q.all().length.toLocaleString('en-US')} boundary records (${live.length.toLocaleString('en-US')} in force on ${d}); ` +
          `resolved: near ${found[0]}/${kinds[0]}, random ${found[1]}/${kinds[1]}`,
      )
      const rows: OpRow[] = []
      rows.push(measure('/at', 'service', probes, rounds, (k) => (q.resolve(probes.lon[k], probes.lat[k], d).found ? 1 : 0)))
      ctx.log(`jurisdiction: /at p50 ${fmt(rows.at(-1)!.all.p50Us)} us (near ${fmt(rows.at(-1)!.near!.p50Us)}, random ${fmt(rows.at(-1)!.random!.p50Us)}), p99 ${fmt(rows.at(-1)!.all.p99Us)} us`)
      // what the route does for a point outside every boundary: nearest() for its 404
      rows.push(
        measure('/at', 'route path (+ nearest() before a 404)', probes, rounds, (k) => {
          const r = q.resolve(probes.lon[k], probes.lat[k], d)
          if (!r.found && q.earliest !== null && d >= q.earliest) q.nearest(probes.lon[k], probes.lat[k], d)
          return r.found ? 1 : 0
        }),
      )
      ctx.log(`jurisdiction: /at route path p50 ${fmt(rows.at(-1)!.all.p50Us)} us, random p50 ${fmt(rows.at(-1)!.random!.p50Us)} us, p99 ${fmt(rows.at(-1)!.all.p99Us)} us`)

      // batches of 5000 points drawn from the same probes
      const batches = quick ? 3 : 20
      const bodies = Array.from({ length: batches }, (_, b) => {
        const pts: { latitude: number; longitude: number }[] = []
        for (let i = 0; i < BATCH_MAX; i++) {
          const k = (b * BATCH_MAX + i) % probes.length
          pts.push({ latitude: probes.lat[k], longitude: probes.lon[k] })
        }
        return pts
      })
      rows.push(
        await measureBatches(`batch of ${BATCH_MAX} points`, 'lookups only (resolve + JSON answer)', batches, (b) => {
          let n = 0
          const results = bodies[b].map((p) => {
            const r = q.resolve(p.longitude, p.latitude, d)
            if (!r.found) return null
            n++
            return { jurisdiction: r.jurisdiction, notes: r.notes }
          })
          JSON.stringify({ results, found: n, not_found: results.length - n })
          return n
        }),
      )
      ctx.log(`jurisdiction: batch lookups only p50 ${fmt(rows.at(-1)!.all.p50Us / 1000, 2)} ms`)
      const work = mkdtempSync(join(tmpdir(), 'landdata-bench-jbatch-'))
      const keys = new BenchKeys(join(work, 'keys.db'))
      try {
        const key = keys.issue(['jurisdiction'])
        const { SqliteKeyStore } = await import('../../src/auth/key-store.js')
        const store = new SqliteKeyStore(keys.path)
        const app = createApp({ log: pino({ level: 'silent' }), keys: store, limiter: new MemoryRateLimiter(), data: new DatasetHandle(ds, buildServices) })
        const texts = bodies.map((pts) => JSON.stringify({ points: pts }))
        rows.push(
          await measureBatches(`batch of ${BATCH_MAX} points`, 'whole handler (app.request, no socket)', batches, async (b) => {
            const res = await app.request('/api/v1/jurisdiction/batch', { method: 'POST', headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: texts[b] })
            // the body as the server sends it; not parsed back (that is the client's cost)
            const text = await res.text()
            if (res.status !== 200) {
              ctx.fail(`jurisdiction: batch answered ${res.status}: ${text.slice(0, 200)}`)
              return NaN
            }
            const at = text.lastIndexOf('"found":')
            return at < 0 ? NaN : parseInt(text.slice(at + 8, at + 20), 10)
          }),
        )
        store.close()
      } finally {
        keys.close()
        rmSync(work, { recursive: true, force: true })
      }
      ctx.log(`jurisdiction: batch whole handler p50 ${fmt(rows.at(-1)!.all.p50Us / 1000, 2)} ms`)
      const lookups = rows.at(-2)!
      const handler = rows.at(-1)!
      if (handler.meanResults !== lookups.meanResults) ctx.fail(`jurisdiction: the batch handler resolved ${fmt(handler.meanResults)} points per batch, resolve() ${fmt(lookups.meanResults)}`)

      const search = measureSearch(ctx, q, d)
      ctx.log(`jurisdiction: search index built in ${fmt(search.buildMs, 2)} ms; search p50 ${fmt(search.all.p50Us / 1000, 3)} ms, p99 ${fmt(search.all.p99Us / 1000, 3)} ms, ${fmt(search.meanResults)} results`)

      const http = ctx.opts.http ? await runHttp(ctx, q, d) : null
      return {
        boundaries: q.all().length,
        inForce: inForceByType,
        asAt: d,
        probes: count,
        rounds,
        foundNear: kinds[0] ? found[0] / kinds[0] : NaN,
        foundRandom: kinds[1] ? found[1] / kinds[1] : NaN,
        batches,
        rows,
        search,
        http,
      }
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<JurisdictionData>) {
    const d = r.data
    if (d.skipped) return `_Not measured: ${d.skipped}._`
    const national = r.dataset.scale === 'national'
    const verdict = (value: number, target: number, unit: string) =>
      !national ? '(target is for national scale)' : value <= target ? 'met' : `missed by ${fmt(value - target, 2)} ${unit} (${fmt(value / target, 2)}x)`
    const pct = (v: number) => `${fmt(v * 100)} %`
    const counts = BOUNDARY_TYPES.filter((t) => d.inForce[t]).map((t) => `${d.inForce[t]!.toLocaleString('en-US')} ${t}`).join(', ')
    const lines = [
      `Scale **${r.dataset.scale}**: ${d.boundaries.toLocaleString('en-US')} boundary records; in force on ${d.asAt} (today in Africa/Johannesburg, the date every call uses): ${counts}. ` +
        `${d.probes.toLocaleString('en-US')} seeded probes (80 % within ${fmt(NEAR_MAX_M / 1000)} km of a random township's or ward's label point, 20 % uniform over the box of the provinces, some outside the country), ` +
        `${d.rounds} timed round(s) after a warm-up; ops/s from one untimed pass. Resolved: ${pct(d.foundNear)} of near probes, ${pct(d.foundRandom)} of random ones (the rest lie outside every boundary: not found). ` +
        `"route path" adds the \`nearest()\` the route runs before its 404 for those. Batches: ${d.batches} bodies of ${BATCH_MAX} of those points; "mean results" = points resolved.`,
      '',
      '| query | variant | p50 | p99 | mean | p50 near / random | ops/s | mean results | target | verdict |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|---|',
    ]
    for (const row of d.rows) {
      const batch = row.op.startsWith('batch')
      const v = (s: Summary | null) => (s ? (batch ? `${fmt(s.p50Us / 1000, 2)} ms` : `${fmt(s.p50Us)} µs`) : '')
      const target = batch ? (row.variant.startsWith('whole') ? TARGETS.batchMs : null) : row.variant === 'service' ? TARGETS.atP50Us : null
      lines.push(
        `| ${row.op} | ${row.variant} | ${v(row.all)} | ${batch ? `${fmt(row.all.p99Us / 1000, 2)} ms` : `${fmt(row.all.p99Us)} µs`} | ${batch ? `${fmt(row.all.meanUs / 1000, 2)} ms` : `${fmt(row.all.meanUs)} µs`} | ` +
          `${row.near ? `${v(row.near)} / ${v(row.random)}` : ''} | ${fmt(row.opsPerS)} | ${batch ? fmt(row.meanResults) : fmt(row.meanResults, 2)} | ${target === null ? '' : batch ? `≤ ${target} ms` : `≤ ${target} µs`} | ` +
          `${target === null ? '' : batch ? verdict(row.all.p50Us / 1000, target, 'ms') : verdict(row.all.p50Us, target, 'µs')} |`,
      )
    }
    const s = d.search
    if (s) {
      const ms = (us: number) => `${fmt(us / 1000, 3)} ms`
      lines.push(
        '',
        `Search: \`search(q, every type, ${d.asAt}, ${SEARCH_LIMIT_DEFAULT})\` as \`GET /jurisdiction/search?q=…\` calls it, over ${s.queries} seeded queries (random names in force, lower-cased, ` +
          `one character dropped, two neighbours swapped, or cut to a prefix (at least 60 %) of one of its place words, plus ${FIXED_QUERIES.map((x) => `'${x}'`).join(', ')}), ${s.rounds} timed round(s) after a warm-up. ` +
          `The first call builds the trigram index over ${s.names.toLocaleString('en-US')} names: **${fmt(s.buildMs, 2)} ms** (including that one query). ${pct(s.hitShare)} of queries match something.`,
        '',
        '| query | p50 | p95 | p99 | mean | ops/s | mean results | target | verdict |',
        '|---|--:|--:|--:|--:|--:|--:|--:|---|',
        `| search | ${ms(s.all.p50Us)} | ${ms(s.all.p95Us)} | ${ms(s.all.p99Us)} | ${ms(s.all.meanUs)} | ${fmt(s.opsPerS)} | ${fmt(s.meanResults)} | ≤ ${TARGETS.searchP50Ms} ms | ${verdict(s.all.p50Us / 1000, TARGETS.searchP50Ms, 'ms')} |`,
        '',
        '| fixed query | results | top match | similarity | one call |',
        '|---|--:|---|--:|--:|',
        ...s.fixed.map((f) => `| ${f.q} | ${f.results} | ${f.top ?? '–'} | ${f.similarity === null ? '–' : fmt(f.similarity, 3)} | ${ms(f.us)} |`),
      )
    }
    if (d.http) {
      const h = d.http
      lines.push(
        '',
        `Over HTTP: \`GET /jurisdiction/at\` on ${h.paths.toLocaleString('en-US')} seeded points near townships and wards that each resolve (every answer a 200), ${h.tool}, 50 connections, loopback, ${h.durationS} s per run after a warm-up; ` +
          `hello-world floor with the same number of processes in the same round; median of rounds. Answer check: ${h.check.agreed}/${h.check.probes} chains and notes identical to in-process \`resolve()\`.`,
        '',
        '| workers | hello req/s | /jurisdiction/at req/s | per round | vs hello | p50 ms | p99 ms | errors |',
        '|--:|--:|--:|---|--:|--:|--:|--:|',
      )
      for (const workers of [1, 2]) {
        const hello = h.runs.filter((x) => x.target === 'hello' && x.workers === workers)
        const server = h.runs.filter((x) => x.target === 'server' && x.workers === workers)
        if (!server.length) continue
        const hm = median(hello.map((x) => x.result.reqPerS))
        const sm = median(server.map((x) => x.result.reqPerS))
        const mid = server.reduce((a, b) => (Math.abs(b.result.reqPerS - sm) < Math.abs(a.result.reqPerS - sm) ? b : a))
        lines.push(
          `| ${workers} | ${fmt(hm)} | ${fmt(sm)} | ${server.map((x) => fmt(x.result.reqPerS)).join(', ')} | ${fmt(sm / hm, 2)}x | ${fmt(mid.result.p50Ms, 2)} | ${fmt(mid.result.p99Ms, 2)} | ${server.reduce((s, x) => s + x.result.errors, 0)} |`,
        )
      }
    }
    return lines.join('\n')
  },
}
