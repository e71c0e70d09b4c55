/**
 * `--only soak` (issue #39 item 2): the server under a steady realistic load for a long time
 * (10 minutes by default), watching for errors, drifting latency and growing memory. One run:
 *
 * 1. the mix (mix.ts) seeded from the dataset, and the server started as the http suite starts
 *    it: 2 workers, every feature on;
 * 2. every seeded request sent once: a 5xx or socket error fails the run, another non-2xx drops
 *    that request from the mix (noted);
 * 3. the mix closed-loop for `--duration` s (15 by default) after a warm-up: its maximum;
 * 4. the mix paced at {@link LOAD_SHARE} of it for `--soak-minutes`, counted per window of
 *    `--soak-window` s, the memory sampled six times a window;
 * 5. the verdict (report.ts): any error, a p99 drift or memory growth fails the run.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BenchKeys } from '../../lib/keys.js'
import { type MixRequest, runClosed, runPaced, sendEach } from '../../lib/paced.js'
import { startApiServerWithMetrics } from '../../lib/servers.js'
import { fmt } from '../../lib/stats.js'
import type { Suite, SuiteContext } from '../../lib/suite.js'
import { CONNECTIONS, PRODUCTS, WORKERS } from '../http/run.js'
import { buildMix, type Kind, mixSequence } from './mix.js'
import {
  joinWindows,
  type MemorySample,
  renderSoak,
  type SoakData,
  soakChart,
  soakVerdict,
  verdictLine,
} from './report.js'

/** The paced run's rate: this share of the closed-loop maximum. */
export const LOAD_SHARE = 0.8
/** The paced run's connection pool: room for slow answers without holding up the requests due after them. */
export const PACED_CONNECTIONS = 64
/** More requests than this unanswered at once: the server has stopped keeping up (each one more is an error). */
const MAX_IN_FLIGHT = 5_000
/** Memory samples per window. */
const SAMPLES_PER_WINDOW = 6

/** A gauge's value in a metrics scrape (an unlabelled `name value` line); null when absent. */
export function gauge(metricsText: string, name: string): number | null {
  const line = metricsText.split('\n').find((l) => l.startsWith(`${name} `))
  const v = line ? Number(line.split(' ').at(-1)) : NaN
  return Number.isFinite(v) ? v : null
}

async function run(ctx: SuiteContext): Promise<SoakData> {
  const { quick } = ctx.opts
  const { minutes, windowS, probeS } = ctx.opts.soak
  const { kinds, notes } = buildMix(ctx.dataset.dir, quick ? 50 : 500, ctx.opts.seed)
  for (const n of notes) ctx.log(`soak: ${n}`)
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-soak-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  try {
    const headers = { 'X-API-KEY': keys.issue(PRODUCTS) }
    const { p, metricsPort } = await startApiServerWithMetrics({
      datasetDir: ctx.dataset.dir,
      keysDb: keys.path,
      workers: WORKERS,
      workDir: work,
    })
    try {
      const target = { port: p.port, headers }
      const requests = await checkMix(ctx, target, kinds)
      const next = mixSequence(kinds, ctx.opts.seed)
      await runClosed({ ...target, next, connections: CONNECTIONS }, quick ? 1 : 3)
      const probe = await runClosed({ ...target, next, connections: CONNECTIONS }, probeS)
      const rate = Math.max(1, Math.round(probe.reqPerS * LOAD_SHARE))
      ctx.log(
        `soak: the mix's maximum ${fmt(probe.reqPerS)} req/s (${probe.row.errors} errors); paced at ${fmt(rate)} req/s ` +
          `for ${fmt(minutes, 2)} min in windows of ${windowS} s`,
      )
      if (probe.row.errors > 0)
        ctx.fail(`soak: the closed-loop probe had ${probe.row.errors} errors: ${JSON.stringify(probe.row.errorCauses)}`)

      const samples: MemorySample[] = []
      const sampleS = windowS / SAMPLES_PER_WINDOW
      let t0 = 0
      const sample = async () => {
        const atMs = performance.now() - t0
        const processes = p.rss()
        let text = ''
        try {
          text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
        } catch {
          // counted as not sampled
        }
        samples.push({
          atMs,
          processes,
          heapBytes: gauge(text, 'nodejs_heap_size_used_bytes'),
          liveHeapBytes: gauge(text, 'landdata_heap_after_major_gc_bytes'),
          primaryLiveHeapBytes: gauge(text, 'landdata_primary_heap_after_major_gc_bytes'),
        })
      }
      const pending: Promise<void>[] = []
      let timer: NodeJS.Timeout | undefined
      const paced = await runPaced(
        { ...target, next, connections: PACED_CONNECTIONS },
        {
          rate,
          durationS: minutes * 60,
          windowS,
          maxInFlight: MAX_IN_FLIGHT,
          onStart: (start) => {
            t0 = start
            // a sample just before each window ends, and five more spread over it
            timer = setInterval(() => pending.push(sample()), sampleS * 1000 - 1)
          },
        },
      )
      clearInterval(timer)
      await Promise.all(pending)
      const pids = [p.pid, ...p.workerPids]
      const processes = pids.map((pid, i) => ({ role: i === 0 ? 'primary' : `worker ${i}`, pid }))
      const windows = joinWindows(paced.windows.rows(), samples, windowS, pids)
      const verdict = soakVerdict(
        windows,
        processes.map((x) => x.role),
      )
      for (const w of windows)
        ctx.log(
          `soak: window ${w.index + 1}: ${w.requests} requests, ${w.errors} errors, p50 ${fmt(w.p50Ms, 2)} ms, ` +
            `p99 ${fmt(w.p99Ms, 2)} ms, RSS ${w.rssMb.map((v) => fmt(v, 0)).join('/')} MB, live heap ${fmt(w.liveHeapMb, 1)} MB ` +
            `(primary ${fmt(w.primaryLiveHeapMb ?? Number.NaN, 1)} MB)`,
        )
      ctx.log(`soak: ${verdictLine(verdict)}`)
      if (!verdict.pass) ctx.fail(`soak: ${verdict.reasons.join('; ')}`)
      return {
        workers: WORKERS,
        probeConnections: CONNECTIONS,
        connections: PACED_CONNECTIONS,
        probeS,
        maxReqPerS: probe.reqPerS,
        probeErrors: probe.row.errors,
        loadShare: LOAD_SHARE,
        rate,
        durationS: minutes * 60,
        windowS,
        sampleS,
        mostInFlight: paced.mostInFlight,
        processes,
        windows,
        kinds: paced.windows.kinds(),
        requests,
        notes,
        verdict,
      }
    } finally {
      await p.stop()
    }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * Sends every seeded request once. A 5xx or a socket error fails the run; a request that answers
 * another non-2xx is dropped from `kinds` (a seeding miss, not the server's fault), and a kind
 * left with none is dropped with a note.
 */
async function checkMix(
  ctx: SuiteContext,
  target: { port: number; headers: Record<string, string> },
  kinds: Map<Kind, MixRequest[]>,
): Promise<SoakData['requests']> {
  const counts: SoakData['requests'] = []
  for (const [kind, list] of kinds) {
    const outcomes = await sendEach(target, list, 4)
    const kept = list.filter((r, i) => {
      const o = outcomes[i]
      if ('error' in o || o.status >= 500) {
        ctx.fail(`soak: ${r.method} ${r.path} answered ${'error' in o ? o.error : o.status} when checked`)
        return false
      }
      return o.status >= 200 && o.status < 300
    })
    counts.push({ kind, seeded: list.length, dropped: list.length - kept.length })
    if (kept.length) kinds.set(kind, kept)
    else kinds.delete(kind)
  }
  const dropped = counts.filter((c) => c.dropped)
  if (dropped.length)
    ctx.log(`soak: dropped (not 2xx when checked): ${dropped.map((c) => `${c.kind} ${c.dropped}`).join(', ')}`)
  return counts
}

export const soakSuite: Suite<SoakData> = {
  name: 'soak',
  title: 'Soak: a realistic mix at 80 % of its maximum, held for --soak-minutes',
  summary:
    'every service (lookups, batches, intersect, z15 tiles of each family) paced at 80 % of the measured maximum with ' +
    '2 workers for --soak-minutes: errors, p50/p99, RSS and heap per minute, a verdict',
  run,
  render: renderSoak,
  chart: soakChart,
}
