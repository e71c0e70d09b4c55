/**
 * The http suite's section of RESULTS.md: the table of every load (median req/s over the rounds,
 * each round's, the latency of the run nearest the median, errors, and the ratios the issue's
 * targets are set in), the target lines, where the CPU goes, and the chart.
 *
 * @module
 */
import { profileTable } from '../../lib/http-targets.js'
import type { LoadResult } from '../../lib/load.js'
import { fmt, median } from '../../lib/stats.js'
import type { SuiteRecord } from '../../lib/suite.js'
import { barChart } from '../../lib/svg.js'
import { FOLDED_TOP, type HttpData, type Load } from './run.js'
import { BOX_SIDE_DEG, ENDPOINTS, type Endpoint } from './urls.js'

/** Issue #37 targets: ratio to the same-run hello-world (item 2), to the same-bytes floor (item 3), to `/parcels/at` (items 4, 5). */
export const TARGETS = {
  vsHello: 0.6,
  vsSameBytes: 0.6,
  encumbrancesVsAt: 0.5,
  tilesVsAt: 0.5,
  tilesP99Ms: 50,
}
/** The point lookups held to {@link TARGETS}.vsHello. */
const POINT_LOOKUPS: Endpoint[] = ['/plots/reverse', '/parcels/at', '/jurisdiction/at']

export interface HttpRow {
  load: Load
  reqPerS: number
  perRound: number[]
  p50Ms: number
  p99Ms: number
  errors: number
  vsHello: number | null
  /** radius and box: over their same-bytes floor */
  vsSameBytes: number | null
  /** `/encumbrances/at` and the tiles: over `/parcels/at` */
  vsAt: number | null
}

const ORDER: Load[] = ['hello', ...ENDPOINTS.map((e) => `same bytes: ${e}` as Load), ...ENDPOINTS]

/** One row per load, floors first: median req/s over the rounds, the latency of the run nearest it, and the ratios. */
export function aggregate(runs: HttpData['runs']): HttpRow[] {
  const byLoad = new Map<Load, LoadResult[]>()
  for (const r of runs) byLoad.set(r.load, [...(byLoad.get(r.load) ?? []), r.result])
  const rows: HttpRow[] = []
  for (const [load, results] of byLoad) {
    const rates = results.map((r) => r.reqPerS)
    const m = median(rates)
    const mid = results.reduce((a, b) => (Math.abs(b.reqPerS - m) < Math.abs(a.reqPerS - m) ? b : a))
    rows.push({
      load,
      reqPerS: m,
      perRound: rates,
      p50Ms: mid.p50Ms,
      p99Ms: mid.p99Ms,
      errors: results.reduce((s, r) => s + r.errors, 0),
      vsHello: null,
      vsSameBytes: null,
      vsAt: null,
    })
  }
  const rate = (load: Load) => rows.find((r) => r.load === load)?.reqPerS ?? null
  const over = (a: number, b: number | null) => (b ? a / b : null)
  for (const row of rows) {
    if (row.load === 'hello' || row.load.startsWith('same bytes: ')) continue
    row.vsHello = over(row.reqPerS, rate('hello'))
    row.vsSameBytes = over(row.reqPerS, rate(`same bytes: ${row.load}` as Load))
    if (row.load === '/encumbrances/at' || row.load === 'z15 parcel tiles')
      row.vsAt = over(row.reqPerS, rate('/parcels/at'))
  }
  return rows.sort((a, b) => ORDER.indexOf(a.load) - ORDER.indexOf(b.load))
}

const ratio = (x: number | null) => (x === null ? '' : `${fmt(x, 2)}x`)
const verdict = (value: number, target: number) => (value >= target ? 'met' : `missed by ${fmt(target - value, 2)}x`)

/** One line per target of issue #37 (items 2–5), met or missed by how much; a load not measured says so. */
export function targetLines(rows: HttpRow[]): string[] {
  const row = (load: Load) => rows.find((r) => r.load === load)
  const lines: string[] = []
  const held = (label: string, r: HttpRow | undefined, value: number | null | undefined, target: number, of: string) =>
    lines.push(
      r && value !== null && value !== undefined
        ? `${label}: ${fmt(value, 2)}x ${of} (target ≥ ${target}x) → ${verdict(value, target)}`
        : `${label}: not measured`,
    )
  for (const e of POINT_LOOKUPS) held(`item 2, ${e}`, row(e), row(e)?.vsHello, TARGETS.vsHello, 'hello')
  for (const e of ['radius 500 m, limit 100', 'box (/parcels/within)'] as const)
    held(`item 3, ${e}`, row(e), row(e)?.vsSameBytes, TARGETS.vsSameBytes, 'same bytes')
  held(
    'item 4, /encumbrances/at',
    row('/encumbrances/at'),
    row('/encumbrances/at')?.vsAt,
    TARGETS.encumbrancesVsAt,
    '/parcels/at',
  )
  const tiles = row('z15 parcel tiles')
  held('item 5, z15 parcel tiles', tiles, tiles?.vsAt, TARGETS.tilesVsAt, '/parcels/at')
  if (tiles)
    lines.push(
      `item 5, z15 parcel tiles: p99 ${fmt(tiles.p99Ms, 2)} ms (target ≤ ${TARGETS.tilesP99Ms} ms) → ${tiles.p99Ms <= TARGETS.tilesP99Ms ? 'met' : `missed by ${fmt(tiles.p99Ms - TARGETS.tilesP99Ms, 2)} ms`}`,
    )
  return lines
}

/** The Markdown table of the rows (header included). */
export function httpTable(rows: HttpRow[], bytesOf: (load: Load) => number | undefined): string[] {
  const lines = [
    '| load | answer bytes | req/s (median) | per round | p50 ms | p99 ms | errors | vs hello | vs same bytes | vs /parcels/at |',
    '|---|--:|--:|---|--:|--:|--:|--:|--:|--:|',
  ]
  for (const r of rows) {
    const b = bytesOf(r.load)
    lines.push(
      `| ${r.load === 'hello' ? 'hello-world (floor)' : r.load.startsWith('same bytes: ') ? `${r.load} (floor)` : r.load} | ${b === undefined ? '' : b.toLocaleString('en-US')} | ${fmt(r.reqPerS)} | ${r.perRound.map((v) => fmt(v)).join(', ')} | ${fmt(r.p50Ms, 3)} | ${fmt(r.p99Ms, 3)} | ${r.errors} | ${ratio(r.vsHello)} | ${ratio(r.vsSameBytes)} | ${ratio(r.vsAt)} |`,
    )
  }
  return lines
}

/** The section body. */
export function renderHttp(r: SuiteRecord<HttpData>): string {
  const d = r.data
  if (d.format !== 2)
    return (
      '_This record was made by the plot-only suite that came before issue #37 (reverse and radius, 1 and 2 ' +
      'workers, hello-world floor only); its table is in the history of this file. ' +
      '`npm run bench -- --only http` measures the current suite._'
    )
  const rows = aggregate(d.runs)
  const scale = r.dataset.scale
  const bytesOf = (load: Load) => {
    if (load === 'hello') return undefined
    const e = (load.startsWith('same bytes: ') ? load.slice('same bytes: '.length) : load) as Endpoint
    if (load !== e) return d.floors.find((f) => f.endpoint === e)?.bytes
    return d.sets.find((s) => s.endpoint === e)?.medianBytes
  }
  const lines = [
    `Load: ${d.tool === 'wrk' ? 'wrk (1 thread, a Lua script rotating the URLs)' : 'autocannon (in the bench process: it takes about a core, so these figures understate)'}, ` +
      `loopback, ${d.workers} workers, ${d.connections} connections, ${d.durationS} s per run after a ${d.warmupS} s warm-up, ` +
      `${d.rounds} round(s), each: the hello-world floor, the same-bytes floor, then the API server; median req/s, with the ` +
      `p50/p99 of the run nearest it. Every server has ${d.workers} processes (node:cluster). The API server (\`node dist/server.js\`) ` +
      'runs with every feature on: a fresh key per run (1 000 000 a minute), the access log at info to a file, ' +
      `METRICS_PORT set (round 1's scrape counted ${d.metricsCounted === null ? 'nothing: not scraped' : d.metricsCounted.toLocaleString('en-US')} requests), ETags. ` +
      'wrk sends no `Accept-Encoding`, so answers go uncompressed, except the tiles, asked with `Accept-Encoding: gzip` as ' +
      'a map client asks them (stored tiles are sent as stored).',
    '',
    'Floors (Hono on @hono/node-server, same process count): the hello-world answers every path with a small JSON; ' +
      'the same-bytes floor answers each radius and box URL with the bytes and `Content-Type` the API server sent for ' +
      `one of them (the answer of median size among the checked ones: ${d.floors.map((f) => `\`${f.path}\`, ${f.bytes.toLocaleString('en-US')} B`).join('; ') || 'none'}). ` +
      `Boxes: \`/parcels/within\` over ${BOX_SIDE_DEG}° centred on a random erf, the first page at the default size. ` +
      "`/encumbrances/at` runs on the `/parcels/at` points; the tiles at other erf points (the tiles suite's).",
    '',
    `Answer check before loading: ${d.sets.map((s) => `${s.endpoint} ${s.agreed}/${s.checked}${s.compared ? ' identical to in process' : ' answered'}`).join(', ')}. ` +
      `URLs per set: ${d.sets.map((s) => `${s.endpoint} ${s.paths.toLocaleString('en-US')}`).join(', ')}. Answer bytes: median of the checked answers.`,
    '',
    ...httpTable(rows, bytesOf),
    '',
    `Issue #37 targets (${scale === 'tiny' ? 'set for the sample and national scales; shown for reference' : 'at sample and national scale'}):`,
    '',
    ...targetLines(rows).map((x) => `- ${x}`),
  ]
  if (d.profiles.length) lines.push('', ...profileTable(d.profiles))
  const written = d.flames.filter((f) => f.files.length)
  if (d.flames.length)
    lines.push(
      '',
      `Flame graphs of the same profiled runs (collapsed stacks, the ${FOLDED_TOP} heaviest per run; samples kept of ` +
        `request samples): ${d.flames.map((f) => `${f.endpoint} ${f.kept.toLocaleString('en-US')} of ${f.samples.toLocaleString('en-US')}`).join(', ')}` +
        (written.length
          ? `. Files: ${written.map((f) => f.files.map((x) => `[${x.replace(/^bench\//, '')}](${x.replace(/^bench\//, '')})`).join(', ')).join('; ')}.`
          : ' (not written: `--no-write`).'),
    )
  if (d.rss.length) {
    const last = d.rss[d.rss.length - 1]
    lines.push(
      '',
      `Resident memory after round ${last.round}'s loads: ${last.processes.map((p) => `pid ${p.pid} ${fmt(p.rssBytes / 2 ** 20)} MiB (peak ${fmt(p.hwmBytes / 2 ** 20)} MiB)`).join('; ')} ` +
        '(the cluster primary holds the rate-limit counters and the metrics, not the dataset).',
    )
  }
  if (d.notes.length) lines.push('', ...d.notes.map((n) => `- ${n}`))
  return lines.join('\n')
}

/** The bar chart: every load's median req/s, floors grey-first, each endpoint's ratio beside it. */
export function httpChart(r: SuiteRecord<HttpData>): { file: string; svg: string } | null {
  const d = r.data
  if (d.format !== 2) return null
  const rows = aggregate(d.runs)
  return {
    file: 'results-http.svg',
    svg: barChart({
      title: 'Endpoints over HTTP against their floors, req/s on loopback (median of rounds)',
      subtitle: `${r.dataset.scale} dataset, ${d.tool}, ${d.workers} workers, ${d.connections} connections, ${r.machine.cores} cores, Node ${r.machine.node}, ${r.ranAt.slice(0, 10)}`,
      unit: 'req/s',
      groups: [
        {
          label: `${d.workers} processes (WORKERS=${d.workers})`,
          bars: rows.map((x) => ({
            label: x.load === 'hello' ? 'Hono hello-world' : x.load,
            value: x.reqPerS,
            note:
              x.vsSameBytes !== null
                ? `(${fmt(x.vsSameBytes, 2)}x same bytes)`
                : x.vsHello === null
                  ? ''
                  : `(${fmt(x.vsHello, 2)}x)`,
          })),
        },
      ],
    }),
  }
}
