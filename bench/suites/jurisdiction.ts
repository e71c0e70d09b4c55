/**
 * The jurisdiction service: `/jurisdiction/at` (the chain at a point), `POST /jurisdiction/batch`
 * of 5000 points and `/jurisdiction/search` in process, and `/jurisdiction/at` over HTTP with 1
 * and 2 workers next to the Hono hello-world floor of the same run.
 *
 * In process, "service" is `createJurisdictionQueries(ds).resolve(lon, lat, today)` exactly as
 * the `/at` route calls it (today in Africa/Johannesburg); "route path" adds the `nearest()` call
 * the route makes before its 404 for a point outside every boundary. "Batch, whole handler" sends
 * a 5000-point body through the app (`app.request`: JSON parse, validation of every point, key
 * check, rate limit, lookups, the JSON answer's bytes read from the Response, neither decoded nor parsed) without a
 * socket.
 * Search is `search(q, every type, today, 20)` as the route calls it without `types`/`limit`; the
 * trigram index it searches (built with the service at start-up) is timed on its own.
 *
 * Issue 6 targets at national scale: `/at` p50 <= 50 us, a batch of 5000 points <= 50 ms, search
 * p50 <= 2 ms.
 *
 * @module
 */
import { johannesburgDate } from '../../src/auth/dates.js'
import { openDataset } from '../../src/data/open-dataset.js'
import { BOUNDARY_TYPES, type BoundaryType } from '../../src/data/jurisdiction-format.js'
import {
  createJurisdictionQueries,
  inForce,
  type BoundaryRow,
  type JurisdictionQueries,
} from '../../src/features/jurisdiction/queries.js'
import { batchAnswer } from '../../src/features/jurisdiction/routes.js'
import { TrigramIndex } from '../../src/features/jurisdiction/trigram.js'
import { BATCH_MAX, SEARCH_LIMIT_DEFAULT } from '../../src/features/jurisdiction/schemas.js'
import { batchBodies, measureBatchHandler, measureBatches } from '../lib/batches.js'
import { httpRoundsSection, runHttpRounds, type HttpRoundsData } from '../lib/http-rounds.js'
import { measure, type OpRow } from '../lib/measure.js'
import { Random } from '../lib/prng.js'
import { nearOrUniformProbes, type PointProbes } from '../lib/probes.js'
import { serviceOpTable, verdict } from '../lib/report.js'
import { fmt, percentile, Samples, type Summary } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'

/** Issue 6 targets (national scale). */
export const TARGETS = { atP50Us: 50, batchMs: 50, searchP50Ms: 2 }
/** Near probes land within this distance of a random township's or ward's label point. */
const NEAR_MAX_M = 2_000
const NEAR_SHARE = 0.8
/** Untimed batch calls before the timed ones. */
const BATCH_WARMUPS = 3
/** Boundary types whose label points seed the near probes. */
const NEAR_TYPES: readonly BoundaryType[] = ['township', 'ward']
/** Search queries besides the ones made from the dataset's names. */
const FIXED_QUERIES = ['tshwan', 'mandela bay', 'johannesburg', 'cape town ward 12']
/** Words a prefix query is not cut from: they name no place. */
const GENERIC_WORDS = new Set([
  'ward',
  'city',
  'local',
  'municipality',
  'metropolitan',
  'district',
  'division',
  'registration',
])

export interface SearchData {
  queries: number
  rounds: number
  /** building the trigram index (before 2026-11-25 evening: the first call, which built it and answered one query) */
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
  http: HttpRoundsData | null
  skipped?: string
}

/** Union of the boxes of `rows` (null when none has geometry). */
function extentOf(rows: BoundaryRow[]): [number, number, number, number] | null {
  let e: [number, number, number, number] | null = null
  for (const r of rows) {
    if (!r.bbox) continue
    if (!e) e = [...r.bbox]
    else
      e = [Math.min(e[0], r.bbox[0]), Math.min(e[1], r.bbox[1]), Math.max(e[2], r.bbox[2]), Math.max(e[3], r.bbox[3])]
  }
  return e
}

/**
 * Jittered label points (within {@link NEAR_MAX_M}) of random townships and wards in force on
 * `d`, and uniform points over the box of the provinces in force (some fall outside the country).
 */
export function makeJurisdictionProbes(
  q: JurisdictionQueries,
  d: string,
  count: number,
  seed: number,
  label: string,
  nearShare = NEAR_SHARE,
): PointProbes {
  const live = q.all().filter((r) => inForce(r, d))
  let seeds = live.filter((r) => NEAR_TYPES.includes(r.type) && r.label !== null)
  if (!seeds.length) seeds = live.filter((r) => r.label !== null)
  const ext = extentOf(live.filter((r) => r.type === 'province')) ?? extentOf(live)
  if (!seeds.length || !ext) throw new Error('jurisdiction: no boundary in force has a label point or geometry')
  const rnd = new Random(seed >>> 0, `bench/jurisdiction/${label}`)
  // 0 = near a township's or ward's label point, 1 = uniform in the provinces' extent
  return nearOrUniformProbes(rnd, count, {
    nearShare,
    nearMaxM: NEAR_MAX_M,
    pick: () => seeds[rnd.int(0, seeds.length - 1)].label!,
    extent: ext,
  })
}

/**
 * Search queries as users type them: real boundary names, lower-cased, with one character
 * dropped, two neighbours swapped, or cut to a word prefix; then the fixed ones.
 */
export function makeSearchQueries(q: JurisdictionQueries, d: string, count: number, seed: number): string[] {
  const names = [
    ...new Set(
      q
        .all()
        .filter((r) => inForce(r, d) && /[\p{L}\p{Nd}]{3}/u.test(r.name))
        .map((r) => r.name),
    ),
  ].sort()
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

function measureSearch(ctx: SuiteContext, q: JurisdictionQueries, d: string): SearchData {
  const quick = ctx.opts.quick
  const queries = makeSearchQueries(q, d, 200, ctx.opts.seed)
  const rounds = quick ? 1 : 5
  const types = BOUNDARY_TYPES
  const limit = SEARCH_LIMIT_DEFAULT
  // the trigram index, timed on its own as the service builds it at start-up
  const b0 = performance.now()
  new TrigramIndex(q.all().map((r) => r.name))
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
    return {
      q: s,
      results: found.length,
      top: found[0] ? `${found[0].row.type} ${found[0].row.code} ${found[0].row.name}` : null,
      similarity: found[0]?.similarity ?? null,
      us,
    }
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

/** `/jurisdiction/at` over HTTP, on points near townships and wards that each resolve. */
function runHttp(ctx: SuiteContext, q: JurisdictionQueries, d: string): Promise<HttpRoundsData> {
  return runHttpRounds<{ jurisdiction?: unknown; notes?: unknown }>(ctx, {
    name: 'jurisdiction',
    endpoint: '/jurisdiction/at',
    product: 'jurisdiction',
    requests(count) {
      // only points that resolve, so every answer is a 200 (a 404 would count as an error)
      const probes = makeJurisdictionProbes(q, d, count, ctx.opts.seed, 'http', 1)
      const paths: string[] = []
      const expected: string[] = []
      for (let k = 0; k < count; k++) {
        const lat = probes.lat[k].toFixed(7)
        const lon = probes.lon[k].toFixed(7)
        const r = q.resolve(Number(lon), Number(lat), d)
        if (!r.found) continue
        paths.push(`/api/v1/jurisdiction/at?lat=${lat}&lon=${lon}`)
        expected.push(JSON.stringify({ jurisdiction: r.jurisdiction, notes: r.notes }))
      }
      if (!paths.length) throw new Error('jurisdiction http: no probe resolves')
      return { paths, expected }
    },
    answer: (body) => JSON.stringify({ jurisdiction: body.jurisdiction, notes: body.notes }),
    quote: (answer) => answer.slice(0, 300),
  })
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
  summary:
    '/jurisdiction/at p50/p99 us, POST /jurisdiction/batch of 5000 points ms, search p50/p95/p99 ms, ' +
    '/jurisdiction/at req/s with 1 and 2 workers vs hello-world',

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
      rows.push(
        measure('/at', 'service', probes, rounds, (k) => (q.resolve(probes.lon[k], probes.lat[k], d).found ? 1 : 0)),
      )
      ctx.log(
        `jurisdiction: /at p50 ${fmt(rows.at(-1)!.all.p50Us)} us (near ${fmt(rows.at(-1)!.near!.p50Us)}, random ${fmt(rows.at(-1)!.random!.p50Us)}), p99 ${fmt(rows.at(-1)!.all.p99Us)} us`,
      )
      // what the route does for a point outside every boundary: nearest() for its 404
      rows.push(
        measure('/at', 'route path (+ nearest() before a 404)', probes, rounds, (k) => {
          const r = q.resolve(probes.lon[k], probes.lat[k], d)
          if (!r.found && q.earliest !== null && d >= q.earliest) q.nearest(probes.lon[k], probes.lat[k], d)
          return r.found ? 1 : 0
        }),
      )
      ctx.log(
        `jurisdiction: /at route path p50 ${fmt(rows.at(-1)!.all.p50Us)} us, random p50 ${fmt(rows.at(-1)!.random!.p50Us)} us, p99 ${fmt(rows.at(-1)!.all.p99Us)} us`,
      )

      // batches of 5000 points drawn from the same probes
      const batches = quick ? 3 : 20
      const bodies = batchBodies(probes, batches, BATCH_MAX)
      rows.push(
        await measureBatches(
          `batch of ${BATCH_MAX} points`,
          'lookups only (resolve + JSON answer)',
          batches,
          BATCH_WARMUPS,
          (b) => {
            // what the route does: resolve the points (in map order), then write their cached
            // UTF-8 items into one answer buffer
            const { items, found } = q.resolveBatch(bodies[b], d)
            const bytes = batchAnswer(items, `{"found":${found},"not_found":${items.length - found}}`)
            return bytes.length > 0 ? found : 0
          },
        ),
      )
      ctx.log(`jurisdiction: batch lookups only p50 ${fmt(rows.at(-1)!.all.p50Us / 1000, 2)} ms`)
      rows.push(
        await measureBatchHandler(ctx, ds, {
          name: 'jurisdiction',
          product: 'jurisdiction',
          path: '/api/v1/jurisdiction/batch',
          op: `batch of ${BATCH_MAX} points`,
          bodies,
          warmups: BATCH_WARMUPS,
          found(text) {
            const at = text.lastIndexOf('"found":')
            return at < 0 ? NaN : parseInt(text.slice(at + 8, at + 20), 10)
          },
        }),
      )
      ctx.log(`jurisdiction: batch whole handler p50 ${fmt(rows.at(-1)!.all.p50Us / 1000, 2)} ms`)
      const lookups = rows.at(-2)!
      const handler = rows.at(-1)!
      if (handler.meanResults !== lookups.meanResults)
        ctx.fail(
          `jurisdiction: the batch handler resolved ${fmt(handler.meanResults)} points per batch, resolve() ${fmt(lookups.meanResults)}`,
        )

      const search = measureSearch(ctx, q, d)
      ctx.log(
        `jurisdiction: search index built in ${fmt(search.buildMs, 2)} ms; search p50 ${fmt(search.all.p50Us / 1000, 3)} ms, p99 ${fmt(search.all.p99Us / 1000, 3)} ms, ${fmt(search.meanResults)} results`,
      )

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
    const pct = (v: number) => `${fmt(v * 100)} %`
    const counts = BOUNDARY_TYPES.filter((t) => d.inForce[t])
      .map((t) => `${d.inForce[t]!.toLocaleString('en-US')} ${t}`)
      .join(', ')
    const lines = [
      `Scale **${r.dataset.scale}**: ${d.boundaries.toLocaleString('en-US')} boundary records; in force on ${d.asAt} (today in ` +
        `Africa/Johannesburg, the date every call uses): ${counts}. ` +
        `${d.probes.toLocaleString('en-US')} seeded probes (80 % within ${fmt(NEAR_MAX_M / 1000)} km of a random ` +
        `township's or ward's label point, 20 % uniform over the box of the provinces, some outside the ` +
        `country), ` +
        `${d.rounds} timed round(s) after a warm-up; ops/s from one untimed pass. Resolved: ${pct(d.foundNear)} of near probes, ${pct(d.foundRandom)} of random ones (the ` +
        `rest lie outside every boundary: not found). ` +
        `"route path" adds the \`nearest()\` the route runs before its 404 for those. Batches: ${d.batches} bodies of ${BATCH_MAX} of those points; ` +
        `"mean results" = points resolved. "whole handler" POSTs each body through the app and reads the answer ` +
        `as bytes (since 2026-11-26; until then it also decoded them to a string, which is the client's cost).`,
      '',
      ...serviceOpTable(d.rows, TARGETS, national, 2),
    ]
    const s = d.search
    if (s) {
      const ms = (us: number) => `${fmt(us / 1000, 3)} ms`
      lines.push(
        '',
        `Search: \`search(q, every type, ${d.asAt}, ${SEARCH_LIMIT_DEFAULT})\` as \`GET /jurisdiction/search?q=…\` calls it, over ${s.queries} seeded queries (random names in force, lower-cased, ` +
          `one character dropped, two neighbours swapped, or cut to a prefix (at least 60 %) of one of its place ` +
          `words, plus ${FIXED_QUERIES.map((x) => `'${x}'`).join(', ')}), ${s.rounds} timed round(s) ` +
          `after a warm-up. ` +
          `The trigram index over ${s.names.toLocaleString('en-US')} names is built with the service at start-up: ` +
          `**${fmt(s.buildMs, 2)} ms**. ${pct(s.hitShare)} of queries match ` +
          `something.`,
        '',
        '| query | p50 | p95 | p99 | mean | ops/s | mean results | target | verdict |',
        '|---|--:|--:|--:|--:|--:|--:|--:|---|',
        `| search | ${ms(s.all.p50Us)} | ${ms(s.all.p95Us)} | ${ms(s.all.p99Us)} | ${ms(s.all.meanUs)} | ${fmt(s.opsPerS)} | ${fmt(s.meanResults)} | ≤ ${TARGETS.searchP50Ms} ms | ${verdict(national, s.all.p50Us / 1000, TARGETS.searchP50Ms, 'ms')} |`,
        '',
        '| fixed query | results | top match | similarity | one call |',
        '|---|--:|---|--:|--:|',
        ...s.fixed.map(
          (f) =>
            `| ${f.q} | ${f.results} | ${f.top ?? '–'} | ${f.similarity === null ? '–' : fmt(f.similarity, 3)} | ${ms(f.us)} |`,
        ),
      )
    }
    if (d.http) {
      const wording = {
        endpoint: '/jurisdiction/at',
        points: 'seeded points near townships and wards that each resolve',
        agreement: 'chains and notes identical to in-process `resolve()`',
        targets: true,
        scale: r.dataset.scale,
      }
      lines.push('', ...httpRoundsSection(d.http, wording))
    }
    return lines.join('\n')
  },
}
