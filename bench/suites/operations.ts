/**
 * Operations (docs/operations.md): what a platform team pays for the weekly cycle.
 * - swap: live dataset switches under load (2 workers, 50 connections): SIGHUP to every worker
 *   serving the new build, each worker's check and load time, RSS, and the failed requests
 *   (any is a failure of the run);
 * - incremental: `build-index --reuse` after a weekly encumbrance export (one encumbrance file
 *   and export.json changed) against the full build of the same source;
 * - compression: req/s and latency of one worker with `Accept-Encoding` identity, gzip and br,
 *   on a large answer and on a small one (which stays on the uncompressed path).
 *
 * @module
 */
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { buildInChild, type ChildBuild } from '../lib/dataset.js'
import { BenchKeys } from '../lib/keys.js'
import { reversePaths } from '../lib/layers.js'
import { findWrk, runLoad, type LoadResult } from '../lib/load.js'
import { startApiServer, type RunningProcess } from '../lib/servers.js'
import { fmt, median, mib } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'
import { openDataset } from '../../src/data/open-dataset.js'
import { createParcelQueries } from '../../src/features/parcels/queries.js'
import { makeParcelProbes } from './parcels.js'

interface SwapRow {
  /** ms from SIGHUP until every worker logged `dataset switched` */
  hupToServedMs: number
  /** the check, ms: the primary's hash of every file plus the slowest worker's size and header check; then the slowest open-and-load */
  verifyMs: number
  loadMs: number
  /** summed over the workers, MB: before, with both builds open, a second after the swap */
  rssMbBefore: number
  rssMbBothOpen: number
  rssMbAfter: number
}

interface SwapData {
  workers: number
  connections: number
  tool: string
  rows: SwapRow[]
  requests: number
  reqPerS: number
  failed: number
}

interface IncrementalData {
  /** the full build: measured in this run, or taken from the bench dataset's build record */
  fullS: number
  fullFrom: 'this run' | 'build record'
  fullPeakRssBytes: number
  incrementalS: number
  incrementalPeakRssBytes: number
  phases: Record<string, number>
  domains: Record<string, string>
  /** what the weekly export changed */
  changed: string
}

interface CompressionRow {
  endpoint: string
  encoding: string
  /** median answer size on the wire, bytes */
  bytes: number
  reqPerS: number
  p50Ms: number
  p99Ms: number
}

interface CompressionData {
  tool: string
  connections: number
  durationS: number
  rows: CompressionRow[]
}

export interface OperationsData {
  swap: SwapData | null
  incremental: IncrementalData | null
  compression: CompressionData | null
  notes: string[]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const tool = (ctx: SuiteContext): 'wrk' | 'autocannon' =>
  ctx.opts.tool === 'auto' ? (findWrk() ? 'wrk' : 'autocannon') : ctx.opts.tool

/** Points the symlink `link` at `target` atomically (a new link renamed over the old). */
function pointAt(link: string, target: string): void {
  const tmp = `${link}.next`
  rmSync(tmp, { force: true })
  symlinkSync(target, tmp)
  renameSync(tmp, link)
}

interface SwitchedLine {
  pid: number
  verifyMs: number
  loadMs: number
  rssMbBefore: number
  rssMbBothOpen: number
}

/** The log's switch lines: each worker's `dataset switched`, the primary's `dataset checked` (its hashing), refusals. */
function switchedLines(logFile: string): { done: SwitchedLine[]; checkedMs: number[]; refused: string[] } {
  const done: SwitchedLine[] = []
  const checkedMs: number[] = []
  const refused: string[] = []
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const switched = line.includes('"dataset switched"')
    if (switched || line.includes('"dataset checked: ')) {
      try {
        const parsed = JSON.parse(line) as SwitchedLine
        if (switched) done.push(parsed)
        else checkedMs.push(parsed.verifyMs)
      } catch {
        // a line being written: read again next time
      }
    } else if (line.includes('dataset switch refused')) refused.push(line)
  }
  return { done, checkedMs, refused }
}

async function runSwap(ctx: SuiteContext, work: string): Promise<SwapData> {
  const switches = ctx.opts.quick ? 2 : 5
  const workers = 2
  const connections = 50
  const other = join(work, 'other-build')
  // a second build with the same content in another directory: hard links, so no copy is made
  execFileSync('cp', ['-al', ctx.dataset.dir, other])
  const current = join(work, 'current')
  pointAt(current, ctx.dataset.dir)
  const keys = new BenchKeys(join(work, 'keys.db'))
  const headers = { 'X-API-KEY': keys.issue(['plots']) }
  keys.close()
  const paths = reversePaths(ctx.dataset.dir, 2000, ctx.opts.seed, 'operations')
  const p = await startApiServer({ datasetDir: current, keysDb: join(work, 'keys.db'), workers, workDir: work })
  const logFile = join(work, `server-${p.port}.log`)
  const rows: SwapRow[] = []
  const loads: LoadResult[] = []
  let switching = true
  const load = (async () => {
    while (switching)
      loads.push(await runLoad(tool(ctx), { port: p.port, paths, headers, connections, durationS: 2, workDir: work }))
  })()
  try {
    await sleep(1000)
    for (let n = 0; n < switches; n++) {
      pointAt(current, n % 2 === 0 ? other : ctx.dataset.dir)
      const before = p.rss().reduce((s, r) => s + r.rssBytes, 0)
      const t0 = performance.now()
      process.kill(p.pid, 'SIGHUP')
      const want = workers * (n + 1)
      for (;;) {
        const { done, checkedMs, refused } = switchedLines(logFile)
        if (refused.length) throw new Error(`switch refused: ${refused[0]}`)
        if (done.length >= want) {
          const mine = done.slice(want - workers, want)
          const hupToServedMs = performance.now() - t0
          await sleep(1000)
          rows.push({
            hupToServedMs,
            // the primary hashes the build once for its workers, which then check sizes and headers
            verifyMs: (checkedMs[n] ?? 0) + Math.max(...mine.map((l) => l.verifyMs)),
            loadMs: Math.max(...mine.map((l) => l.loadMs)),
            rssMbBefore: Math.round(before / 2 ** 20),
            rssMbBothOpen: mine.reduce((s, l) => s + l.rssMbBothOpen, 0),
            rssMbAfter: Math.round(p.rss().reduce((s, r) => s + r.rssBytes, 0) / 2 ** 20),
          })
          break
        }
        if (performance.now() - t0 > 300_000) throw new Error('no switch within 300 s')
        await sleep(20)
      }
      ctx.log(`operations: switch ${n + 1}/${switches} in ${fmt(rows[n].hupToServedMs, 0)} ms`)
    }
  } finally {
    switching = false
    await load
    await p.stop()
    rmSync(other, { recursive: true, force: true })
  }
  const requests = loads.reduce((s, l) => s + l.requests, 0)
  const failed = loads.reduce((s, l) => s + l.errors + l.non2xx, 0)
  if (failed) ctx.fail(`operations: ${failed} of ${requests} requests failed across ${switches} dataset switches`)
  return {
    workers,
    connections,
    tool: tool(ctx),
    rows,
    requests,
    reqPerS: median(loads.map((l) => l.reqPerS)),
    failed,
  }
}

/** The largest line-delimited encumbrance file of the source, or null. */
function largestEncumbranceFile(source: string): string | null {
  let best: string | null = null
  let size = 0
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (p.includes('/encumbrances/') && p.endsWith('.geojsonl') && statSync(p).size > size) {
        best = p
        size = statSync(p).size
      }
    }
  }
  walk(source)
  return best
}

/** Rewrites a hard-linked file without touching the original: unlinked first, then written. */
function rewrite(path: string, text: string): void {
  unlinkSync(path)
  writeFileSync(path, text)
}

async function runIncremental(ctx: SuiteContext, work: string): Promise<IncrementalData | string> {
  const source = join(dirname(ctx.dataset.dir), 'source')
  if (!ctx.dataset.build || !existsSync(join(source, 'export.json')))
    return 'incremental build: skipped (no cached source export beside the dataset)'
  // the weekly export: the same files (hard links) but one encumbrance file and export.json
  const week = join(work, 'week-source')
  execFileSync('cp', ['-al', source, week])
  const file = largestEncumbranceFile(week)
  if (!file) return 'incremental build: skipped (no line-delimited encumbrance file to change)'
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  rewrite(file, `${lines.slice(0, -1).join('\n')}\n`)
  const exportFile = join(week, 'export.json')
  const exp = JSON.parse(readFileSync(exportFile, 'utf8')) as { encumbrances: { export_id: string } }
  exp.encumbrances.export_id += '-week'
  rewrite(exportFile, `${JSON.stringify(exp, null, 2)}\n`)
  const changed = `${file.slice(week.length + 1)} lost its last row (${lines.length} → ${lines.length - 1}), export.json's encumbrance export_id`

  // the previous build must have recorded its inputs digests, or nothing can be reused
  const manifest = JSON.parse(readFileSync(join(ctx.dataset.dir, 'manifest.json'), 'utf8')) as { inputs?: unknown }
  let previous = ctx.dataset.dir
  let full: Pick<ChildBuild, 'wallMs' | 'maxRssBytes'> = {
    wallMs: ctx.dataset.build.buildWallMs,
    maxRssBytes: ctx.dataset.build.buildPeakRssBytes,
  }
  let fullFrom: IncrementalData['fullFrom'] = 'build record'
  if (!manifest.inputs) {
    ctx.log('operations: the bench dataset records no inputs digests; a full build first …')
    previous = join(work, 'full')
    full = await buildInChild(source, previous)
    fullFrom = 'this run'
  }
  ctx.log('operations: incremental build of the weekly export …')
  const inc = await buildInChild(week, join(work, 'incremental'), previous)
  if (inc.domains.encumbrances === 'reused') ctx.fail('operations: the changed encumbrances were reused')
  for (const d of ['plots', 'parcels', 'jurisdiction'])
    if (inc.domains[d] && inc.domains[d] !== 'reused') ctx.fail(`operations: unchanged ${d} was ${inc.domains[d]}`)
  return {
    fullS: full.wallMs / 1000,
    fullFrom,
    fullPeakRssBytes: full.maxRssBytes,
    incrementalS: inc.wallMs / 1000,
    incrementalPeakRssBytes: inc.maxRssBytes,
    phases: inc.phases,
    domains: inc.domains,
    changed,
  }
}

const ENCODINGS = ['identity', 'gzip', 'br'] as const

async function answerBytes(port: number, path: string, key: string, encoding: string): Promise<number> {
  // node's fetch decodes bodies, so the bytes on the wire come from Content-Length
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    headers: { 'X-API-KEY': key, 'Accept-Encoding': encoding },
  })
  await res.arrayBuffer()
  return Number(res.headers.get('content-length') ?? Number.NaN)
}

async function runCompression(ctx: SuiteContext, work: string): Promise<CompressionData> {
  const ds = openDataset(ctx.dataset.dir)
  let parcelPaths: string[]
  try {
    const probes = makeParcelProbes(ds, 4000, ctx.opts.seed, 'compression', 1)
    const q = createParcelQueries(ds)
    parcelPaths = []
    for (let k = 0; k < probes.lat.length && parcelPaths.length < 2000; k++) {
      const lat = probes.lat[k].toFixed(7)
      const lon = probes.lon[k].toFixed(7)
      // only points in a parcel: elsewhere the answer is a 404, which would count as a failure
      if (q.at(Number(lon), Number(lat), { all: false }).length)
        parcelPaths.push(`/api/v1/parcels/at?latitude=${lat}&longitude=${lon}`)
    }
  } finally {
    ds.close()
  }
  const endpoints: [string, string[]][] = [
    ['/parcels/at', parcelPaths],
    ['/plots/reverse', reversePaths(ctx.dataset.dir, 2000, ctx.opts.seed, 'operations')],
  ]
  const keys = new BenchKeys(join(work, 'keys-compression.db'))
  const key = keys.issue(['plots', 'parcels'])
  keys.close()
  const durationS = ctx.opts.durationS
  const connections = 50
  const rows: CompressionRow[] = []
  let p: RunningProcess | null = null
  try {
    p = await startApiServer({
      datasetDir: ctx.dataset.dir,
      keysDb: join(work, 'keys-compression.db'),
      workers: 1,
      workDir: work,
    })
    for (const [endpoint, paths] of endpoints) {
      for (const encoding of ENCODINGS) {
        const headers = { 'X-API-KEY': key, 'Accept-Encoding': encoding }
        const sizes: number[] = []
        for (const path of paths.slice(0, 50)) sizes.push(await answerBytes(p.port, path, key, encoding))
        const o = { port: p.port, paths, headers, connections, workDir: work }
        await runLoad(tool(ctx), { ...o, durationS: 1 })
        const r = await runLoad(tool(ctx), { ...o, durationS })
        if (r.errors + r.non2xx)
          ctx.fail(`operations: ${endpoint} with ${encoding}: ${r.errors + r.non2xx} failed requests`)
        rows.push({ endpoint, encoding, bytes: median(sizes), reqPerS: r.reqPerS, p50Ms: r.p50Ms, p99Ms: r.p99Ms })
        ctx.log(`operations: ${endpoint} ${encoding}: ${fmt(r.reqPerS, 0)} req/s, ${median(sizes)} B`)
      }
    }
  } finally {
    await p?.stop()
  }
  return { tool: tool(ctx), connections, durationS, rows }
}

function renderSwap(s: SwapData): string[] {
  return [
    '### Live dataset switch',
    '',
    `${s.rows.length} switches (SIGHUP; the primary hashes the new build whole once, then every worker checks sizes ` +
      'and headers, opens it and swaps) between the ' +
      `bench dataset and a hard-linked copy of it in another directory, under continuous load: ${s.workers} workers, ` +
      `${s.connections} connections, ${s.tool}, \`/plots/reverse\`. ${s.requests.toLocaleString('en-US')} requests ` +
      `(median ${fmt(s.reqPerS, 0)} req/s over 2 s runs), **${s.failed} failed**.`,
    '',
    '| switch | SIGHUP → all workers serve it | check (primary hash + worker) | open and load (slowest worker) | RSS before → both open → after (all processes) |',
    '|--:|--:|--:|--:|--:|',
    ...s.rows.map(
      (r, k) =>
        `| ${k + 1} | ${fmt(r.hupToServedMs, 0)} ms | ${fmt(r.verifyMs, 0)} ms | ${fmt(r.loadMs, 0)} ms | ` +
        `${r.rssMbBefore} → ${r.rssMbBothOpen}¹ → ${r.rssMbAfter} MB |`,
    ),
    '',
    '¹ the workers only (the primary holds no dataset).',
  ]
}

function renderIncremental(d: IncrementalData): string[] {
  const domains = Object.entries(d.domains)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ')
  return [
    '### Incremental build (`build-index --reuse`)',
    '',
    `The weekly encumbrance export: ${d.changed}. Full build (${d.fullFrom}): **${fmt(d.fullS)} s**, peak RSS ` +
      `${mib(d.fullPeakRssBytes)}. Incremental build reusing it: **${fmt(d.incrementalS)} s**, peak RSS ` +
      `${mib(d.incrementalPeakRssBytes)} (${fmt((d.incrementalS / d.fullS) * 100, 0)} % of the full build). ` +
      `Domains: ${domains}.`,
    '',
    `Phases of the incremental build (s): ${Object.entries(d.phases)
      .map(([k, v]) => `${k} ${fmt(v)}`)
      .join(', ')}.`,
  ]
}

function renderCompression(c: CompressionData): string[] {
  const lines = [
    '### Compression',
    '',
    `One worker, ${c.connections} connections, ${c.tool}, ${c.durationS} s per run after a 1 s warm-up; the same ` +
      'seeded URLs with each `Accept-Encoding`. Answers under 1 KiB are sent as they are, so the small endpoint ' +
      'shows what negotiating alone costs. CPU per request: the difference of 1/(req/s) against identity, ' +
      'with the worker saturating one core.',
    '',
    '| endpoint | Accept-Encoding | median answer | req/s | p50 | p99 | cost per request |',
    '|---|---|--:|--:|--:|--:|--:|',
  ]
  for (const r of c.rows) {
    const base = c.rows.find((x) => x.endpoint === r.endpoint && x.encoding === 'identity')
    const cost = base && r !== base ? `${fmt((1 / r.reqPerS - 1 / base.reqPerS) * 1e6, 0)} µs` : '–'
    lines.push(
      `| ${r.endpoint} | ${r.encoding} | ${r.bytes.toLocaleString('en-US')} B | ${fmt(r.reqPerS, 0)} | ` +
        `${fmt(r.p50Ms, 2)} ms | ${fmt(r.p99Ms, 2)} ms | ${cost} |`,
    )
  }
  return lines
}

export const operationsSuite: Suite<OperationsData> = {
  name: 'operations',
  title: 'Operations: live dataset switch, incremental build, compression',
  summary: 'dataset switch time and memory under load, build-index --reuse vs a full build, gzip/br cost per request',
  async run(ctx) {
    // beside the dataset, so that the hard-linked copies stay on its filesystem
    const work = mkdtempSync(join(dirname(ctx.dataset.dir), 'ops-'))
    const notes: string[] = []
    try {
      const swap = await runSwap(ctx, work)
      const inc = await runIncremental(ctx, work)
      if (typeof inc === 'string') notes.push(inc)
      const compression = await runCompression(ctx, work)
      return { swap, incremental: typeof inc === 'string' ? null : inc, compression, notes }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  },
  render(record: SuiteRecord<OperationsData>) {
    const d = record.data
    return [
      ...(d.swap ? renderSwap(d.swap) : []),
      '',
      ...(d.incremental ? renderIncremental(d.incremental) : []),
      '',
      ...(d.compression ? renderCompression(d.compression) : []),
      ...(d.notes.length ? ['', ...d.notes.map((n) => `- ${n}`)] : []),
    ].join('\n')
  },
}
