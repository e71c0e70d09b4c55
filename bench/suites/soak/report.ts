/**
 * The soak's figures per window (a minute by default): the load generator's counts joined with
 * the memory samples taken during it, the verdict, and the section of RESULTS.md with its chart.
 *
 * @module
 */
import type { KindRow, WindowRow } from '../../lib/paced.js'
import type { RssSample } from '../../lib/servers.js'
import { fmt } from '../../lib/stats.js'
import type { SuiteRecord } from '../../lib/suite.js'
import { lineChart } from '../../lib/svg.js'
import { WEIGHTS } from './mix.js'

/** The verdict's limits. */
export const LIMITS = {
  /** p99 of the last window at most this times the first window's */
  p99Ratio: 1.5,
  /**
   * private memory (RssAnon) of each process and the workers' live heap: growth of the median of
   * the last third of the windows over the median of the middle third, percent
   */
  growthPct: 10,
}

/** A memory sample taken during the run: `atMs` after the paced run started. */
export interface MemorySample {
  atMs: number
  processes: RssSample[]
  /** `nodejs_heap_size_used_bytes` of the metrics endpoint: the workers' heaps summed; null when the scrape failed */
  heapBytes: number | null
  /** `landdata_heap_after_major_gc_bytes`: the workers' heaps after their last major collection, summed */
  liveHeapBytes: number | null
  /** `landdata_primary_heap_after_major_gc_bytes`: the cluster primary's own live heap; null when absent */
  primaryLiveHeapBytes?: number | null
}

/** One window of the soak. Memory in MB (10^6 bytes); per process in {@link SoakData.processes} order. */
export interface SoakWindow extends WindowRow {
  /** RSS of each process at the window's last sample */
  rssMb: (number | null)[]
  /** its private part (RssAnon): the heap, buffers, native allocations; not the mapped dataset */
  anonMb: (number | null)[]
  /** the workers' heap used, least and most over the window's samples */
  heapMinMb: number | null
  heapMaxMb: number | null
  /** the workers' live heap (after their last major collection) at the window's last sample */
  liveHeapMb: number | null
  /** the primary's live heap at the window's last sample (absent in runs before it was served) */
  primaryLiveHeapMb?: number | null
}

export interface SoakData {
  workers: number
  /** connections of the closed-loop probe, and of the paced run's pool */
  probeConnections: number
  connections: number
  probeS: number
  /** answers per second of the closed-loop probe: the mix's maximum */
  maxReqPerS: number
  /** the probe's errors */
  probeErrors: number
  /** share of the maximum the paced run asks */
  loadShare: number
  rate: number
  durationS: number
  windowS: number
  sampleS: number
  mostInFlight: number
  /** the processes, by role and pid: the primary first */
  processes: { role: string; pid: number }[]
  windows: SoakWindow[]
  kinds: KindRow[]
  /** seeded requests per kind, and those dropped because they did not answer 2xx when checked */
  requests: { kind: string; seeded: number; dropped: number }[]
  notes: string[]
  verdict: Verdict
}

export interface Verdict {
  pass: boolean
  reasons: string[]
}

const MB = 1e6

/** Joins each window's counts with the memory samples taken during it (by `atMs`). */
export function joinWindows(rows: WindowRow[], samples: MemorySample[], windowS: number, pids: number[]): SoakWindow[] {
  return rows.map((row) => {
    const inside = samples.filter((s) => Math.floor(s.atMs / (windowS * 1000)) === row.index)
    const last = inside.at(-1)
    const of = (pid: number, f: (x: RssSample) => number) => {
      const x = last?.processes.find((q) => q.pid === pid)
      return x && Number.isFinite(f(x)) ? f(x) / MB : null
    }
    const heaps = inside.map((s) => s.heapBytes).filter((h): h is number => h !== null)
    return {
      ...row,
      rssMb: pids.map((pid) => of(pid, (x) => x.rssBytes)),
      anonMb: pids.map((pid) => of(pid, (x) => x.anonBytes)),
      heapMinMb: heaps.length ? Math.min(...heaps) / MB : null,
      heapMaxMb: heaps.length ? Math.max(...heaps) / MB : null,
      liveHeapMb: last?.liveHeapBytes ? last.liveHeapBytes / MB : null,
      primaryLiveHeapMb: last?.primaryLiveHeapBytes ? last.primaryLiveHeapBytes / MB : null,
    }
  })
}

const growth = (from: number | null, to: number | null) => (from && to !== null ? (to / from - 1) * 100 : null)

/** The median of the values that were sampled; null when none was. */
function median(values: (number | null)[]): number | null {
  const v = values.filter((x): x is number => x !== null).sort((a, b) => a - b)
  if (!v.length) return null
  const mid = v.length >> 1
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2
}

/**
 * The windows memory growth is judged on: the middle third and the last third (with 3 windows,
 * window 2 and window 3). The first third is left out: it holds the warm-up (code compiled, caches
 * and the allocator's arenas filled), which grows memory once and then stops; a leak goes on
 * growing through the last two thirds.
 */
export function growthThirds(windows: SoakWindow[]): { middle: SoakWindow[]; last: SoakWindow[] } {
  const n = windows.length
  return {
    middle: windows.slice(Math.floor(n / 3), Math.floor((2 * n) / 3)),
    last: windows.slice(Math.floor((2 * n) / 3)),
  }
}

const span = (w: SoakWindow[]) =>
  w.length === 1 ? `window ${w[0]!.index + 1}` : `windows ${w[0]!.index + 1}-${w.at(-1)!.index + 1}`

/**
 * Pass when no request failed, the last window's p99 is within {@link LIMITS}.p99Ratio of the
 * first's, and neither any process's private memory nor the workers' or the primary's live heap
 * (after the last major collection) grew more than {@link LIMITS}.growthPct from the middle third of the
 * windows to the last third (medians, so one window's spike does not decide: {@link growthThirds}).
 * Fails otherwise, with every reason; with fewer than 3 windows growth cannot be judged, which
 * fails too.
 */
export function soakVerdict(windows: SoakWindow[], roles: string[], limits = LIMITS): Verdict {
  const reasons: string[] = []
  const errors = windows.reduce((s, w) => s + w.errors, 0)
  if (errors > 0) {
    const causes: Record<string, number> = {}
    for (const w of windows) for (const [c, n] of Object.entries(w.errorCauses)) causes[c] = (causes[c] ?? 0) + n
    const top = Object.entries(causes)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([c, n]) => `${c} ×${n}`)
    reasons.push(`${errors} error(s) (${top.join('; ')})`)
  }
  const first = windows[0]
  const last = windows.at(-1)
  if (!first || !last) return { pass: false, reasons: [...reasons, 'no window was measured'] }
  if (windows.length > 1 && last.p99Ms > limits.p99Ratio * first.p99Ms)
    reasons.push(
      `p99 of the last window ${fmt(last.p99Ms, 2)} ms is ${fmt(last.p99Ms / first.p99Ms, 2)}x the first's ` +
        `${fmt(first.p99Ms, 2)} ms (limit ${limits.p99Ratio}x)`,
    )
  if (windows.length < 3)
    reasons.push(`only ${windows.length} window(s): memory growth over the last two thirds needs 3 or more`)
  else {
    const { middle, last: tail } = growthThirds(windows)
    const between = `from ${span(middle)} to ${span(tail)} (medians)`
    const grew = (what: string, of: (w: SoakWindow) => number | null) => {
      const pct = growth(median(middle.map(of)), median(tail.map(of)))
      if (pct === null) reasons.push(`${what}: not sampled ${between}`)
      else if (pct > limits.growthPct)
        reasons.push(`${what} grew ${fmt(pct, 1)} % ${between} (limit ${limits.growthPct} %)`)
    }
    roles.forEach((role, i) => {
      grew(`${role} private memory`, (w) => w.anonMb[i] ?? null)
    })
    grew('the workers’ live heap', (w) => w.liveHeapMb)
    // judged when the server served it (runs recorded before it did have none)
    if (windows.some((w) => w.primaryLiveHeapMb != null))
      grew('the primary’s live heap', (w) => w.primaryLiveHeapMb ?? null)
  }
  return { pass: reasons.length === 0, reasons }
}

/** The verdict as one line. */
export function verdictLine(v: Verdict): string {
  return v.pass
    ? `**Verdict: pass**: no error, p99 of the last window within ${LIMITS.p99Ratio}x the first's, private memory and live heap grew less than ${LIMITS.growthPct} % from the middle third of the windows to the last (medians).`
    : `**Verdict: fail**: ${v.reasons.join('; ')}.`
}

const mb = (v: number | null) => (v === null ? '–' : fmt(v, 1))
const windowName = (d: SoakData) => (d.windowS === 60 ? 'minute' : `window (${d.windowS} s)`)

export function renderSoak(r: SuiteRecord<SoakData>): string {
  const d = r.data
  const roles = d.processes.map((p) => p.role)
  const lines = [
    `${d.workers} workers (\`node dist/server.js\`) with every feature on: one key for every product at the store's ` +
      'highest rate (1 000 000 a minute, so the limiter counts every request and refuses none), the access log at info to a file, ' +
      '`METRICS_PORT` set (scraped for the heap), ETags and compression as by default. The mix (below) is first sent closed-loop on ' +
      `${d.probeConnections} connections for ${d.probeS} s: **${fmt(d.maxReqPerS)} req/s**, its maximum here ` +
      `(${d.probeErrors} errors). Then paced, open loop, at ${Math.round(d.loadShare * 100)} % of it: ` +
      `**${fmt(d.rate)} req/s for ${fmt(d.durationS / 60, 1)} min** over a pool of ${d.connections} keep-alive connections ` +
      `(undici; bench/lib/paced.ts): each request is sent when due, whatever the answers before it, and its latency runs from ` +
      `when it was due, so queueing counts (at most ${d.mostInFlight} requests were waiting at once). Memory sampled every ` +
      `${d.sampleS} s: RSS and its private part (RssAnon) of each process from /proc at the window's end; from the metrics ` +
      "endpoint, the workers' live heap (`landdata_heap_after_major_gc_bytes`: after their last major collection, summed) " +
      "and the primary's (`landdata_primary_heap_after_major_gc_bytes`) at the end, and the workers' heap used " +
      '(`nodejs_heap_size_used_bytes`) least and most over the window. Mapped dataset ' +
      "pages (RSS's file part) grow as more of the dataset is read and are shared with the page cache: the verdict judges the " +
      'private part.',
    '',
    verdictLine(d.verdict),
    '',
    `| ${windowName(d)} | requests | req/s | errors | p50 ms | p99 ms | max ms | RSS MB (${roles.join(' / ')}) | private MB (${roles.join(' / ')}) | live heap MB (workers / primary) | heap used MB (least–most) |`,
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ]
  for (const w of d.windows)
    lines.push(
      `| ${w.index + 1} | ${w.requests.toLocaleString('en-US')} | ${fmt(w.requests / d.windowS)} | ${w.errors} | ` +
        `${fmt(w.p50Ms, 2)} | ${fmt(w.p99Ms, 2)} | ${fmt(w.maxMs, 1)} | ${w.rssMb.map(mb).join(' / ')} | ` +
        `${w.anonMb.map(mb).join(' / ')} | ${mb(w.liveHeapMb)} / ${mb(w.primaryLiveHeapMb ?? null)} | ${mb(w.heapMinMb)}–${mb(w.heapMaxMb)} |`,
    )
  lines.push(
    '',
    'The mix: weight is the share of requests asked (bench/suites/soak/mix.ts); seeded is the distinct requests each kind ' +
      'rotates through, every one checked to answer 2xx before the load (dropped: those that did not). Errors: any answer ' +
      'not 2xx (an empty tile is a 204), any socket error or timeout (10 s); no other status is expected.',
    '',
    '| request | weight % | seeded (dropped) | sent | p50 ms | p99 ms | mean answer bytes | errors |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
  )
  for (const k of d.kinds) {
    const s = d.requests.find((x) => x.kind === k.kind)
    lines.push(
      `| ${k.kind} | ${WEIGHTS[k.kind as keyof typeof WEIGHTS] ?? ''} | ${s ? `${s.seeded}${s.dropped ? ` (${s.dropped})` : ''}` : ''} | ` +
        `${k.requests.toLocaleString('en-US')} | ${fmt(k.p50Ms, 2)} | ${fmt(k.p99Ms, 2)} | ${fmt(k.meanBytes, 0)} | ${k.errors} |`,
    )
  }
  if (d.notes.length) lines.push('', ...d.notes.map((n) => `- ${n}`))
  return lines.join('\n')
}

export function soakChart(r: SuiteRecord<SoakData>): { file: string; svg: string } {
  const d = r.data
  const workers = d.processes.map((p, i) => ({ ...p, i })).filter((p) => p.role !== 'primary')
  return {
    file: 'results-soak.svg',
    svg: lineChart({
      title: `Soak: ${fmt(d.rate)} req/s (${Math.round(d.loadShare * 100)} % of the maximum) for ${fmt(d.durationS / 60, 1)} min`,
      subtitle: `${r.dataset.scale} dataset, ${d.workers} workers, every feature on, ${r.ranAt.slice(0, 10)}; one point per ${windowName(d)}`,
      xLabels: d.windows.map((w) => String(w.index + 1)),
      panels: [
        {
          title: 'Latency',
          unit: 'ms',
          series: [
            { label: 'p50', values: d.windows.map((w) => w.p50Ms) },
            { label: 'p99', values: d.windows.map((w) => w.p99Ms) },
          ],
        },
        {
          title: 'Memory',
          unit: 'MB',
          series: [
            ...workers.map((p) => ({ label: `${p.role} RSS`, values: d.windows.map((w) => w.rssMb[p.i]) })),
            ...workers.map((p) => ({ label: `${p.role} private`, values: d.windows.map((w) => w.anonMb[p.i]) })),
            { label: 'live heap (workers)', values: d.windows.map((w) => w.liveHeapMb) },
          ],
        },
        {
          title: 'The primary',
          unit: 'MB',
          series: [
            { label: 'primary private', values: d.windows.map((w) => w.anonMb[0] ?? null) },
            { label: 'primary live heap', values: d.windows.map((w) => w.primaryLiveHeapMb ?? null) },
          ],
        },
      ],
    }),
  }
}
