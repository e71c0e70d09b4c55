/**
 * The parcel cadastre service: `/parcels/at` and `POST /parcels/batch` in process, and
 * `/parcels/at` over HTTP with 1 and 2 workers next to the Hono hello-world floor of the same run.
 *
 * In process, "service" is `createParcelQueries` exactly as the routes call it (default status
 * filter); "batch, whole handler" sends a 1000-point body through the app (`app.request`: JSON
 * parse, validation of every point, key check, rate limit, lookups, the JSON answer's bytes read
 * from the Response, neither decoded nor parsed) without a socket.
 *
 * Lookups by LPI (`GET /parcels/{lpi}`): the service through the LPI hash index and, in the same
 * run, through SQLite's `lpi` index (what a dataset built before the hash file gets), and the
 * whole handler.
 *
 * Issue 4 targets at national scale: `/at` p50 <= 30 us, a batch of 1000 points <= 20 ms.
 *
 * @module
 */
import { openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { createParcelQueries } from '../../src/features/parcels/queries.js'
import { JsonBytes } from '../../src/http/json-bytes.js'
import { BATCH_MAX } from '../../src/features/parcels/schemas.js'
import { batchBodies, measureBatchHandler, measureBatches, withInProcessApp } from '../lib/batches.js'
import { httpRoundsSection, runHttpRounds, type HttpRoundsData } from '../lib/http-rounds.js'
import { Random } from '../lib/prng.js'
import { nearOrUniformProbes, type PointProbes } from '../lib/probes.js'
import { measure, measureAsync, type OpRow } from '../lib/measure.js'
import { serviceOpTable } from '../lib/report.js'
import { fmt } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

/** Issue 4 targets (national scale). */
export const TARGETS = { atP50Us: 30, batchMs: 20 }
/** Near probes land within this distance of a random parcel's label point. */
const NEAR_MAX_M = 30
const NEAR_SHARE = 0.8
/** Untimed batch calls before the timed ones. */
const BATCH_WARMUPS = 5

export interface ParcelsData {
  parcels: number
  probes: number
  rounds: number
  batches: number
  rows: OpRow[]
  http: HttpRoundsData | null
  /** lookups by LPI (absent from records made before 2026-11-27) */
  lpi?: LpiLookupData | null
  skipped?: string
}

interface LpiLookupData {
  found: number
  absent: number
  rounds: number
  /** whether the dataset has the LPI hash index file */
  hashIndex: boolean
  rows: OpRow[]
}

/** Share of the LPI probes naming a published parcel; the others name none (the 404 path). */
const LPI_FOUND_SHARE = 0.8

/**
 * Seeded LPIs: kind 0 those of published parcels drawn uniformly over parcel rows (so mostly
 * erven, as the cadastre is); kind 1 well-formed LPIs no parcel carries (a drawn LPI with its
 * last eight digits replaced).
 */
export function makeLpiLookupProbes(
  ds: OpenDataset,
  count: number,
  seed: number,
): { lpi: string[]; kind: Uint8Array; length: number } {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const maxId = (db.prepare('SELECT max(id) FROM parcel').pluck().get() as number | null) ?? 0
  const published = db.prepare('SELECT lpi FROM parcel WHERE id = ? AND hidden = 0').pluck()
  const carried = db.prepare('SELECT 1 FROM parcel WHERE lpi = ? LIMIT 1').pluck()
  const rnd = new Random(seed >>> 0, 'bench/parcels/lpi')
  const want = [Math.round(count * LPI_FOUND_SHARE), count - Math.round(count * LPI_FOUND_SHARE)]
  const lpi: string[] = []
  const kinds: number[] = []
  for (let tries = 0; maxId && lpi.length < count && tries < count * 200; tries++) {
    const l = published.get(rnd.int(1, maxId)) as string | undefined
    if (!l) continue
    const kind = rnd.chance(LPI_FOUND_SHARE) ? 0 : 1
    if (want[kind] === 0) continue
    const probe = kind === 0 ? l : l.slice(0, -8) + String(rnd.int(0, 99_999_999)).padStart(8, '0')
    if (kind === 1 && carried.get(probe)) continue
    want[kind]--
    lpi.push(probe)
    kinds.push(kind)
  }
  return { lpi, kind: Uint8Array.from(kinds), length: lpi.length }
}

/** `GET /parcels/{lpi}` in process: the service with and without the hash index, and the whole handler. */
async function measureLpiLookups(ctx: SuiteContext, ds: OpenDataset): Promise<LpiLookupData | null> {
  const quick = ctx.opts.quick
  const rounds = quick ? 1 : 3
  const probes = makeLpiLookupProbes(ds, quick ? 200 : 5_000, ctx.opts.seed)
  if (!probes.length) return null
  const found = probes.kind.filter((k) => k === 0).length
  ctx.log(
    `parcels: ${probes.length} LPIs (${found} of published parcels, ${probes.length - found} absent) x ${rounds} rounds`,
  )
  const f = { all: false }
  const hashIndex = ds.has(PARCEL_FILES.lpiHash)
  const q = createParcelQueries(ds)
  const rows: OpRow[] = [
    measure(
      '/{lpi}',
      hashIndex ? 'service, LPI hash index' : 'service, SQLite lpi index',
      probes,
      rounds,
      (k) => q.byLpi(probes.lpi[k], f).length,
    ),
  ]
  if (hashIndex) {
    // the same dataset as one built before the hash index file: lookups through SQLite's index
    const plain = createParcelQueries({ ...ds, has: (path: string) => path !== PARCEL_FILES.lpiHash && ds.has(path) })
    rows.push(
      measure(
        '/{lpi}',
        'service, SQLite lpi index (as a dataset without the hash file)',
        probes,
        rounds,
        (k) => plain.byLpi(probes.lpi[k], f).length,
      ),
    )
    let differ = 0
    for (let k = 0; k < probes.length; k++) {
      if (JSON.stringify(q.byLpi(probes.lpi[k], f)) === JSON.stringify(plain.byLpi(probes.lpi[k], f))) continue
      if (differ++ < 3)
        ctx.fail(`parcels: LPI ${probes.lpi[k]}: the hash index and SQLite's lpi index give different records`)
    }
  }
  rows.push(
    await withInProcessApp(ds, 'parcels', 'parcels', async (app, key) => {
      const headers = { 'X-API-KEY': key }
      const paths = probes.lpi.map((l) => `/api/v1/parcels/${l}`)
      const statuses = new Uint16Array(probes.length)
      const whole = await measureAsync(
        '/{lpi}',
        'whole handler (app.request, no socket)',
        probes.length,
        rounds,
        probes.kind,
        async (k) => {
          const res = await app.request(paths[k], { headers })
          // the body as the server sends it: bytes
          await res.arrayBuffer()
          statuses[k] = res.status
          return res.status === 200 ? 1 : 0
        },
      )
      let wrong = 0
      for (let k = 0; k < probes.length; k++) {
        const want = probes.kind[k] === 0 ? 200 : 404
        if (statuses[k] !== want && wrong++ < 3)
          ctx.fail(`parcels: GET /parcels/${probes.lpi[k]} answered ${statuses[k]}, expected ${want}`)
      }
      return whole.row
    }),
  )
  ctx.log(`parcels: /{lpi} p50 ${rows.map((r) => `${r.variant} ${fmt(r.all.p50Us)} us`).join(', ')}`)
  return { found, absent: probes.length - found, rounds, hashIndex, rows }
}

/**
 * Random visible parcels' label points (jittered), and some uniform points over the extent. The
 * postgis suite draws the same points (same label).
 */
export function makeParcelProbes(
  ds: OpenDataset,
  count: number,
  seed: number,
  label: string,
  nearShare = NEAR_SHARE,
): PointProbes {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const ids = db.prepare('SELECT id FROM parcel WHERE hidden = 0').pluck().all() as number[]
  const ext = db
    .prepare('SELECT min(label_lon) x0, min(label_lat) y0, max(label_lon) x1, max(label_lat) y1 FROM parcel')
    .get() as Record<string, number>
  const one = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE id = ?')
  const rnd = new Random(seed >>> 0, `bench/parcels/${label}`)
  const pick = () => {
    const p = one.get(ids[rnd.int(0, ids.length - 1)]) as { label_lon: number; label_lat: number }
    return [p.label_lon, p.label_lat] as const
  }
  // 0 = near a parcel's label point, 1 = uniform in the cadastre's extent
  return nearOrUniformProbes(rnd, count, {
    nearShare,
    nearMaxM: NEAR_MAX_M,
    pick,
    extent: [ext.x0, ext.y0, ext.x1, ext.y1],
  })
}

/** `/parcels/at` over HTTP, on points that each lie in a published parcel. */
function runHttp(ctx: SuiteContext, ds: OpenDataset): Promise<HttpRoundsData> {
  return runHttpRounds<{ parcels?: { id: number }[] }>(ctx, {
    name: 'parcels',
    endpoint: '/parcels/at',
    product: 'parcels',
    requests(count) {
      // only points on a parcel, so every answer is a 200 (a 404 would count as an error)
      const probes = makeParcelProbes(ds, count, ctx.opts.seed, 'http', 1)
      const q = createParcelQueries(ds)
      const paths: string[] = []
      const expected: string[] = []
      for (let k = 0; k < count; k++) {
        const lat = probes.lat[k].toFixed(7)
        const lon = probes.lon[k].toFixed(7)
        const found = q.at(Number(lon), Number(lat), { all: false })
        if (!found.length) continue
        paths.push(`/api/v1/parcels/at?latitude=${lat}&longitude=${lon}`)
        expected.push(JSON.stringify(found.map((p) => p.id)))
      }
      return { paths, expected }
    },
    answer: (body) => JSON.stringify(body.parcels?.map((p) => p.id) ?? []),
  })
}

export const parcelsSuite: Suite<ParcelsData> = {
  name: 'parcels',
  title: 'Parcel cadastre: /parcels/at and batch in process, /parcels/at over HTTP',
  summary:
    '/parcels/at p50/p99 us, POST /parcels/batch of 1000 points ms, /parcels/at req/s with 1 and 2 workers vs ' +
    'hello-world',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    try {
      const parcels = ds.domain('parcels')?.layers
      // the domain's layers also list each province's beacons and General Plans: count parcels only
      const total = parcels
        ? Object.entries(parcels).reduce((s, [name, l]) => (/\/(beacon|general_plan)$/.test(name) ? s : s + l.rows), 0)
        : 0
      if (!total)
        return {
          parcels: 0,
          probes: 0,
          rounds: 0,
          batches: 0,
          rows: [],
          http: null,
          skipped: 'the dataset has no cadastre',
        }
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
      // the route's whole answer: the same records written as JSON bytes with the envelope
      const w = new JsonBytes()
      rows.push(
        measure('/at', 'service + answer bytes (as the route)', probes, rounds, (k) => {
          const found = q.found(probes.lon[k], probes.lat[k], f)
          w.start().ascii('{"parcels":')
          found.write(w)
          w.ascii(',"message":').string('m').ascii(',"dataset_version":').string(q.version).ascii('}')
          return w.take().length > 0 ? found.count : 0
        }),
      )
      rows.push(
        measure('/at', 'most specific only (batch item)', probes, rounds, (k) =>
          q.firstAt(probes.lon[k], probes.lat[k], f) ? 1 : 0,
        ),
      )

      // batches of 1000 points drawn from the same probes
      const batches = quick ? 10 : 100
      const bodies = batchBodies(probes, batches, BATCH_MAX)
      rows.push(
        await measureBatches(
          'batch of 1000 points',
          'service + answer bytes (as the route)',
          batches,
          BATCH_WARMUPS,
          (b) => {
            let found = 0
            w.start().ascii('{"results":[')
            for (const [k, p] of bodies[b].entries()) {
              if (k) w.ascii(',')
              if (q.writeFirstAt(w, p.longitude, p.latitude, f)) found++
            }
            w.ascii(']}').take()
            return found
          },
        ),
      )
      rows.push(
        await measureBatchHandler(ctx, ds, {
          name: 'parcels',
          product: 'parcels',
          path: '/api/v1/parcels/batch',
          op: 'batch of 1000 points',
          bodies,
          warmups: BATCH_WARMUPS,
          found: (text) => Number(/"found":(\d+)/.exec(text)?.[1] ?? NaN),
        }),
      )
      ctx.log(`parcels: batch p50 ${fmt(rows.at(-1)!.all.p50Us / 1000, 2)} ms`)
      const lpi = await measureLpiLookups(ctx, ds)
      const http = ctx.opts.http ? await runHttp(ctx, ds) : null
      return { parcels: total, probes: count, rounds, batches, rows, http, lpi }
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<ParcelsData>) {
    const d = r.data
    if (d.skipped) return `_Not measured: ${d.skipped}._`
    const lines = [
      `${d.parcels.toLocaleString('en-US')} parcels. ${d.probes.toLocaleString('en-US')} seeded probes (80 % ` +
        `within ${NEAR_MAX_M} m of a random ` +
        `published parcel's label point, 20 % uniform over the cadastre's extent), ` +
        `${d.rounds} timed round(s) after a warm-up; ops/s from one untimed pass. Batches: ${d.batches} bodies of 1000 of ` +
        `those points. "whole handler" POSTs each body through the app and reads the answer as bytes (since ` +
        `2026-11-26; until then it also decoded them to a string, which is the client's cost).`,
      '',
      ...serviceOpTable(d.rows, TARGETS, r.dataset.scale === 'national'),
    ]
    if (d.lpi) {
      const l = d.lpi
      lines.push(
        '',
        `**Lookups by LPI** (\`GET /parcels/{lpi}\`, default status filter): ${l.found.toLocaleString('en-US')} seeded LPIs of ` +
          `published parcels (drawn uniformly over parcel rows) and ` +
          `${l.absent.toLocaleString('en-US')} well-formed LPIs that no parcel carries (the 404 path), ${l.rounds} timed round(s) ` +
          `after a warm-up. ` +
          (l.hashIndex
            ? "The service finds an LPI's ids in the LPI hash index file and reads each row by id; the second row " +
              "is the same service told the file is absent, so it asks SQLite's `lpi` index as a dataset built " +
              'before the file does (same run, same probes; every answer identical). '
            : "This dataset has no LPI hash index file: the service asks SQLite's `lpi` index. ") +
          '"whole handler" sends each GET through the app and reads the answer as bytes; every status was checked ' +
          '(200 found, 404 absent).',
        '',
        ...serviceOpTable(l.rows, TARGETS, r.dataset.scale === 'national', 2, 'p50 found / absent'),
      )
    }
    if (d.http) {
      const wording = {
        endpoint: '/parcels/at',
        points: 'seeded points that each lie in a published parcel',
        agreement: 'identical to in-process `createParcelQueries`',
        targets: true,
        scale: r.dataset.scale,
      }
      lines.push('', ...httpRoundsSection(d.http, wording))
    }
    return lines.join('\n')
  },
}
