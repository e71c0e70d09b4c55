/**
 * The parcel cadastre service: `/parcels/at` and `POST /parcels/batch` in process, and
 * `/parcels/at` over HTTP with 1 and 2 workers next to the Hono hello-world floor of the same run.
 *
 * In process, "service" is `createParcelQueries` exactly as the routes call it (default status
 * filter); "batch, whole handler" sends a 1000-point body through the app (`app.request`: JSON
 * parse, validation of every point, key check, rate limit, lookups, JSON answer read back as text,
 * not parsed) without a socket.
 *
 * Issue 4 targets at national scale: `/at` p50 <= 30 us, a batch of 1000 points <= 20 ms.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createApp } from '../../src/app.js'
import { DatasetHandle, openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { createParcelQueries } from '../../src/features/parcels/queries.js'
import { BATCH_MAX } from '../../src/features/parcels/schemas.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { MemoryRateLimiter } from '../../src/rate-limit/memory.js'
import { buildServices } from '../../src/services.js'
import { BenchKeys } from '../lib/keys.js'
import { findWrk, runLoad, type LoadResult } from '../lib/load.js'
import { Random } from '../lib/prng.js'
import { startApiServer, startHello } from '../lib/servers.js'
import { measure, type OpRow } from '../lib/measure.js'
import { fmt, median, Samples, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

/** Issue 4 targets (national scale). */
export const TARGETS = { atP50Us: 30, batchMs: 20 }
/** Near probes land within this distance of a random parcel's label point. */
const NEAR_MAX_M = 30
const NEAR_SHARE = 0.8

interface ParcelProbes {
  lon: Float64Array
  lat: Float64Array
  /** 0 = near a parcel's label point, 1 = uniform in the cadastre's extent */
  kind: Uint8Array
  length: number
}

interface HttpRow {
  target: 'hello' | 'server'
  workers: number
  round: number
  result: LoadResult
}

export interface ParcelsData {
  parcels: number
  probes: number
  rounds: number
  batches: number
  rows: OpRow[]
  http: { tool: 'wrk' | 'autocannon'; durationS: number; paths: number; check: { probes: number; agreed: number }; runs: HttpRow[] } | null
  skipped?: string
}

/**
 * Random visible parcels' label points (jittered), and some uniform points over the extent. The
 * postgis suite draws the same points (same label).
 */
export function makeParcelProbes(ds: OpenDataset, count: number, seed: number, label: string, nearShare = NEAR_SHARE): ParcelProbes {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const ids = db.prepare('SELECT id FROM parcel WHERE hidden = 0').pluck().all() as number[]
  const ext = db.prepare('SELECT min(label_lon) x0, min(label_lat) y0, max(label_lon) x1, max(label_lat) y1 FROM parcel').get() as Record<string, number>
  const one = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE id = ?')
  const rnd = new Random(seed >>> 0, `bench/parcels/${label}`)
  const lon = new Float64Array(count)
  const lat = new Float64Array(count)
  const kind = new Uint8Array(count)
  for (let k = 0; k < count; k++) {
    if (rnd.float() < nearShare) {
      const p = one.get(ids[rnd.int(0, ids.length - 1)]) as { label_lon: number; label_lat: number }
      const d = NEAR_MAX_M * Math.sqrt(rnd.float())
      const a = rnd.range(0, 2 * Math.PI)
      const m = metresPerDegree(p.label_lat)
      lon[k] = p.label_lon + (d * Math.cos(a)) / m.lon
      lat[k] = p.label_lat + (d * Math.sin(a)) / m.lat
    } else {
      lon[k] = rnd.range(ext.x0, ext.x1)
      lat[k] = rnd.range(ext.y0, ext.y1)
      kind[k] = 1
    }
  }
  return { lon, lat, kind, length: count }
}

async function measureBatches(op: string, variant: string, batches: number, fn: (b: number) => Promise<number> | number): Promise<OpRow> {
  for (let b = 0; b < Math.min(batches, 5); b++) await fn(b) // warm-up
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

async function runHttp(ctx: SuiteContext, ds: OpenDataset): Promise<ParcelsData['http']> {
  const quick = ctx.opts.quick
  const wrk = findWrk()
  const tool = ctx.opts.tool === 'auto' ? (wrk ? 'wrk' : 'autocannon') : ctx.opts.tool
  if (tool === 'wrk' && !wrk) throw new Error('--tool wrk: wrk is not installed (apt-get install wrk)')
  const pathCount = quick ? 200 : 2_000
  // only points on a parcel, so every answer is a 200 (a 404 would count as an error)
  const probes = makeParcelProbes(ds, pathCount, ctx.opts.seed, 'http', 1)
  const q = createParcelQueries(ds)
  const paths: string[] = []
  const expected: number[][] = []
  for (let k = 0; k < pathCount; k++) {
    const lat = probes.lat[k].toFixed(7)
    const lon = probes.lon[k].toFixed(7)
    const found = q.at(Number(lon), Number(lat), { all: false })
    if (!found.length) continue
    paths.push(`/api/v1/parcels/at?latitude=${lat}&longitude=${lon}`)
    expected.push(found.map((p) => p.id))
  }
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-parcels-'))
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
          const key = keys.issue(['parcels'])
          if (round === 1 && workers === 1) {
            for (let k = 0; k < checked; k++) {
              const res = await fetch(`http://127.0.0.1:${server.port}${paths[k]}`, { headers: { 'X-API-KEY': key } })
              const ids = ((await res.json()) as { parcels?: { id: number }[] }).parcels?.map((p) => p.id) ?? []
              if (res.status === 200 && JSON.stringify(ids) === JSON.stringify(expected[k])) agreed++
              else ctx.fail(`parcels http: ${paths[k]} answered ${res.status} ${JSON.stringify(ids)}, in process ${JSON.stringify(expected[k])}`)
            }
          }
          const o = { port: server.port, paths, headers: { 'X-API-KEY': key }, connections: 50, workDir: work }
          await runLoad(tool, { ...o, durationS: warmupS })
          const result = await runLoad(tool, { ...o, durationS })
          runs.push({ target: 'server', workers, round, result })
          ctx.log(`parcels http: round ${round} w${workers}: ${fmt(result.reqPerS)} req/s (hello ${fmt(runs.at(-2)!.result.reqPerS)}), p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}`)
          if (result.errors > 0) ctx.fail(`parcels http: /parcels/at w${workers} had ${result.errors} errors (${result.non2xx} non-2xx)`)
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

export const parcelsSuite: Suite<ParcelsData> = {
  name: 'parcels',
  title: 'Parcel cadastre: /parcels/at and batch in process, /parcels/at over HTTP',
  summary: '/parcels/at p50/p99 us, POST /parcels/batch of 1000 points ms, /parcels/at req/s with 1 and 2 workers vs hello-world',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    try {
      const parcels = ds.domain('parcels')?.layers
      // the domain's layers also list each province's beacons and General Plans: count parcels only
      const total = parcels ? Object.entries(parcels).reduce((s, [name, l]) => (/\/(beacon|general_plan)$/.test(name) ? s : s + l.rows), 0) : 0
      if (!total) return { parcels: 0, probes: 0, rounds: 0, batches: 0, rows: [], http: null, skipped: 'the dataset has no cadastre' }
      const quick = ctx.opts.quick
      const count = quick ? 1_000 : 20_000
      const rounds = quick ? 1 : 3
      const q = createParcelQueries(ds)
      const probes = makeParcelProbes(ds, count, ctx.opts.seed, 'at')
      ctx.log(`parcels: ${count} probes x ${rounds} rounds over ${total.toLocaleString('en-US')} parcels`)
      const rows: OpRow[] = []
      const f = { all: false }
      rows.push(measure('/at', 'service', probes, rounds, (k) => q.at(probes.lon[k], probes.lat[k], f).length))
      ctx.log(`parcels: /at p50 ${fmt(rows.at(-1)!.all.p50Us)} us`)
      rows.push(measure('/at', 'most specific only (batch item)', probes, rounds, (k) => (q.firstAt(probes.lon[k], probes.lat[k], f) ? 1 : 0)))

      // batches of 1000 points drawn from the same probes
      const batches = quick ? 10 : 100
      const batchPoints = (b: number) => {
        const pts: { latitude: number; longitude: number }[] = []
        for (let i = 0; i < BATCH_MAX; i++) {
          const k = (b * BATCH_MAX + i) % probes.length
          pts.push({ latitude: probes.lat[k], longitude: probes.lon[k] })
        }
        return pts
      }
      const bodies = Array.from({ length: batches }, (_, b) => batchPoints(b))
      rows.push(
        await measureBatches('batch of 1000 points', 'service + JSON answer', batches, (b) => {
          const results = bodies[b].map((p) => q.firstAt(p.longitude, p.latitude, f))
          const found = results.filter(Boolean).length
          JSON.stringify({ results, found, not_found: results.length - found })
          return found
        }),
      )
      const work = mkdtempSync(join(tmpdir(), 'landdata-bench-batch-'))
      const keys = new BenchKeys(join(work, 'keys.db'))
      try {
        const key = keys.issue(['parcels'])
        const { SqliteKeyStore } = await import('../../src/auth/key-store.js')
        const store = new SqliteKeyStore(keys.path)
        const app = createApp({ log: pino({ level: 'silent' }), keys: store, limiter: new MemoryRateLimiter(), data: new DatasetHandle(ds, buildServices) })
        const texts = bodies.map((pts) => JSON.stringify({ points: pts }))
        rows.push(
          await measureBatches('batch of 1000 points', 'whole handler (app.request, no socket)', batches, async (b) => {
            const res = await app.request('/api/v1/parcels/batch', { method: 'POST', headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' }, body: texts[b] })
            if (res.status !== 200) ctx.fail(`parcels: batch answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
            // the body as the server sends it; not parsed back (parsing 0.5 MB of JSON is the
            // client's cost, ~3 ms, not the service's)
            const text = await res.text()
            return Number(/"found":(\d+)/.exec(text)?.[1] ?? NaN)
          }),
        )
        store.close()
      } finally {
        keys.close()
        rmSync(work, { recursive: true, force: true })
      }
      ctx.log(`parcels: batch p50 ${fmt(rows.at(-1)!.all.p50Us / 1000, 2)} ms`)
      const http = ctx.opts.http ? await runHttp(ctx, ds) : null
      return { parcels: total, probes: count, rounds, batches, rows, http }
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<ParcelsData>) {
    const d = r.data
    if (d.skipped) return `_Not measured: ${d.skipped}._`
    const national = r.dataset.scale === 'national'
    const verdict = (value: number, target: number, unit: string) =>
      !national ? '(target is for national scale)' : value <= target ? 'met' : `missed by ${fmt(value - target, 2)} ${unit} (${fmt(value / target, 2)}x)`
    const lines = [
      `${d.parcels.toLocaleString('en-US')} parcels. ${d.probes.toLocaleString('en-US')} seeded probes (80 % within ${NEAR_MAX_M} m of a random published parcel's label point, 20 % uniform over the cadastre's extent), ` +
        `${d.rounds} timed round(s) after a warm-up; ops/s from one untimed pass. Batches: ${d.batches} bodies of 1000 of those points.`,
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
          `${row.near ? `${v(row.near)} / ${v(row.random)}` : ''} | ${fmt(row.opsPerS)} | ${fmt(row.meanResults)} | ${target === null ? '' : batch ? `≤ ${target} ms` : `≤ ${target} µs`} | ` +
          `${target === null ? '' : batch ? verdict(row.all.p50Us / 1000, target, 'ms') : verdict(row.all.p50Us, target, 'µs')} |`,
      )
    }
    if (d.http) {
      const h = d.http
      lines.push(
        '',
        `Over HTTP: \`GET /parcels/at\` on ${h.paths.toLocaleString('en-US')} seeded points that each lie in a published parcel (every answer a 200), ${h.tool}, 50 connections, loopback, ${h.durationS} s per run after a warm-up; ` +
          `hello-world floor with the same number of processes in the same round; median of rounds. Answer check: ${h.check.agreed}/${h.check.probes} identical to in-process \`createParcelQueries\`.`,
        '',
        '| workers | hello req/s | /parcels/at req/s | per round | vs hello | p50 ms | p99 ms | errors |',
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
