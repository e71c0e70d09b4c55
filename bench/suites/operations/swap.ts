/**
 * The live dataset switch under load (docs/operations.md "Swapping datasets"): five SIGHUP
 * switches between the bench dataset and a hard-linked copy of it, 2 workers, 50 connections;
 * each switch's time from the log lines, RSS, and the failed requests (any fails the run).
 *
 * @module
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { BenchKeys } from '../../lib/keys.js'
import { reversePaths } from '../../lib/layers.js'
import { loadTool, runLoad, type LoadResult } from '../../lib/load.js'
import { startApiServer } from '../../lib/servers.js'
import { fmt, median } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { pointLink } from '../../../src/ship/activate.js'

export interface SwapRow {
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

export interface SwapData {
  workers: number
  connections: number
  tool: string
  rows: SwapRow[]
  requests: number
  reqPerS: number
  failed: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface SwitchedLine {
  pid: number
  verifyMs: number
  loadMs: number
  rssMbBefore: number
  rssMbBothOpen: number
}

/** The log's switch lines: each worker's `dataset switched`, the primary's `dataset checked` (its hashing), refusals. */
export function switchedLines(logFile: string): { done: SwitchedLine[]; checkedMs: number[]; refused: string[] } {
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

export async function runSwap(ctx: SuiteContext, work: string): Promise<SwapData> {
  const switches = ctx.opts.quick ? 2 : 5
  const workers = 2
  const connections = 50
  const other = join(work, 'other-build')
  // a second build with the same content in another directory: hard links, so no copy is made
  execFileSync('cp', ['-al', ctx.dataset.dir, other])
  const current = join(work, 'current')
  pointLink(current, ctx.dataset.dir)
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
      loads.push(
        await runLoad(loadTool(ctx.opts), { port: p.port, paths, headers, connections, durationS: 2, workDir: work }),
      )
  })()
  try {
    await sleep(1000)
    for (let n = 0; n < switches; n++) {
      pointLink(current, n % 2 === 0 ? other : ctx.dataset.dir)
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
    tool: loadTool(ctx.opts),
    rows,
    requests,
    reqPerS: median(loads.map((l) => l.reqPerS)),
    failed,
  }
}

export function renderSwap(s: SwapData): string[] {
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
