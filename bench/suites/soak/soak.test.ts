import { describe, expect, it } from 'vitest'
import type { WindowRow } from '../../lib/paced.js'
import type { RssSample } from '../../lib/servers.js'
import type { SuiteRecord } from '../../lib/suite.js'
import { gauge } from './index.js'
import { type Kind, mixSequence, pointOf, WEIGHTS } from './mix.js'
import { joinWindows, type MemorySample, renderSoak, type SoakData, type SoakWindow, soakVerdict } from './report.js'

const ROLES = ['primary', 'worker 1', 'worker 2']

/** A window with p99 `p99Ms`, private memory `anon` MB per process and heap `heap` MB. */
const win = (index: number, p99Ms: number, anon: number[], heap: number, errors = 0): SoakWindow => ({
  index,
  requests: 1000,
  errors,
  errorCauses: errors ? { 'GET /parcels/at: 503': errors } : {},
  p50Ms: p99Ms / 4,
  p99Ms,
  maxMs: p99Ms * 2,
  rssMb: anon.map((a) => a + 100),
  anonMb: anon,
  heapMinMb: heap * 0.8,
  heapMaxMb: heap * 1.5,
  liveHeapMb: heap,
})

describe('soakVerdict', () => {
  const steady = [win(0, 10, [50, 80, 80], 40), win(1, 12, [60, 100, 100], 50), win(2, 11, [61, 105, 104], 52)]

  it('passes a run without errors, p99 drift or growth past the limits', () => {
    expect(soakVerdict(steady, ROLES)).toEqual({ pass: true, reasons: [] })
  })

  it('fails on any error, naming the commonest causes', () => {
    const v = soakVerdict([steady[0], win(1, 12, [60, 100, 100], 50, 3), steady[2]], ROLES)
    expect(v.pass).toBe(false)
    expect(v.reasons).toEqual(['3 error(s) (GET /parcels/at: 503 ×3)'])
  })

  it('fails when the last p99 is more than 1.5x the first, and not at exactly 1.5x', () => {
    expect(soakVerdict([...steady.slice(0, 2), win(2, 15, [61, 105, 104], 52)], ROLES).pass).toBe(true)
    const v = soakVerdict([...steady.slice(0, 2), win(2, 15.1, [61, 105, 104], 52)], ROLES)
    expect(v.reasons).toEqual(["p99 of the last window 15.10 ms is 1.51x the first's 10.00 ms (limit 1.5x)"])
  })

  it('judges growth from window 2, not the first, per process and for the heap (3 windows)', () => {
    // window 1 → 3 grows 30 %, window 2 → 3 only 8 %: passes
    expect(
      soakVerdict([win(0, 10, [50, 80, 80], 40), win(1, 10, [50, 100, 100], 50), win(2, 10, [54, 108, 108], 54)], ROLES)
        .pass,
    ).toBe(true)
    const v = soakVerdict(
      [win(0, 10, [50, 80, 80], 40), win(1, 10, [50, 100, 100], 50), win(2, 10, [50, 100, 111], 56)],
      ROLES,
    )
    expect(v.reasons).toEqual([
      'worker 2 private memory grew 11.0 % from window 2 to window 3 (medians) (limit 10 %)',
      'the workers’ live heap grew 12.0 % from window 2 to window 3 (medians) (limit 10 %)',
    ])
  })

  it('passes a warm-up that stops growing, fails a leak that goes on, whatever one window spikes', () => {
    const run = (anon: (i: number) => number) => Array.from({ length: 9 }, (_, i) => win(i, 10, [50, anon(i), 100], 50))
    // 30 % up over the first third, then flat with a spike in the last window: passes
    const warmup = run((i) => (i < 3 ? 100 + 10 * i : i === 8 ? 160 : 130))
    expect(soakVerdict(warmup, ROLES)).toEqual({ pass: true, reasons: [] })
    // 4 MB a window throughout: windows 4-6 median 116, windows 7-9 median 128
    const leak = soakVerdict(
      run((i) => 100 + 4 * i),
      ROLES,
    )
    expect(leak.reasons).toEqual([
      'worker 1 private memory grew 10.3 % from windows 4-6 to windows 7-9 (medians) (limit 10 %)',
    ])
  })

  it('fails a run too short to judge growth, or whose memory was not sampled', () => {
    expect(soakVerdict(steady.slice(0, 2), ROLES).reasons).toEqual([
      'only 2 window(s): memory growth over the last two thirds needs 3 or more',
    ])
    const unsampled = { ...steady[2], liveHeapMb: null }
    expect(soakVerdict([steady[0], steady[1], unsampled], ROLES).reasons).toEqual([
      'the workers’ live heap: not sampled from window 2 to window 3 (medians)',
    ])
    expect(soakVerdict([], ROLES)).toEqual({ pass: false, reasons: ['no window was measured'] })
  })

  it('judges the primary’s live heap when the server served it', () => {
    const withPrimary = (heaps: (number | null)[]) => steady.map((w, i) => ({ ...w, primaryLiveHeapMb: heaps[i] }))
    expect(soakVerdict(withPrimary([8, 9, 9.5]), ROLES)).toEqual({ pass: true, reasons: [] })
    expect(soakVerdict(withPrimary([8, 9, 10]), ROLES).reasons).toEqual([
      'the primary’s live heap grew 11.1 % from window 2 to window 3 (medians) (limit 10 %)',
    ])
    // served but not sampled in the last third: not judged, which fails
    expect(soakVerdict(withPrimary([8, 9, null]), ROLES).reasons).toEqual([
      'the primary’s live heap: not sampled from window 2 to window 3 (medians)',
    ])
  })
})

describe('joinWindows', () => {
  const rss = (pid: number, anonMb: number): RssSample => ({
    pid,
    rssBytes: (anonMb + 100) * 1e6,
    hwmBytes: 0,
    anonBytes: anonMb * 1e6,
    fileBytes: 100e6,
  })
  const sample = (atMs: number, anon: number, heapMb: number | null): MemorySample => ({
    atMs,
    processes: [rss(1, 10), rss(2, anon), rss(3, anon + 1)],
    heapBytes: heapMb === null ? null : heapMb * 1e6,
    liveHeapBytes: heapMb === null ? null : (heapMb - 5) * 1e6,
    primaryLiveHeapBytes: heapMb === null ? null : 7e6,
  })
  const row = (index: number): WindowRow => ({
    index,
    requests: 5,
    errors: 0,
    errorCauses: {},
    p50Ms: 1,
    p99Ms: 2,
    maxMs: 3,
  })

  it("takes each window's last RSS sample and its least and most heap", () => {
    const samples = [sample(9_999, 70, 30), sample(30_000, 71, 20), sample(59_990, 72, 25), sample(60_000, 90, 40)]
    const [first, second] = joinWindows([row(0), row(1)], samples, 60, [1, 2, 3])
    expect(first.anonMb).toEqual([10, 72, 73])
    expect(first.rssMb).toEqual([110, 172, 173])
    expect([first.heapMinMb, first.heapMaxMb, first.liveHeapMb]).toEqual([20, 30, 20])
    expect(second.anonMb).toEqual([10, 90, 91])
    expect([second.heapMinMb, second.heapMaxMb, second.liveHeapMb]).toEqual([40, 40, 35])
    expect([first.primaryLiveHeapMb, second.primaryLiveHeapMb]).toEqual([7, 7])
  })

  it('leaves a window without samples, a failed scrape or a gone process unmeasured', () => {
    const [a, b] = joinWindows([row(0), row(1)], [sample(1_000, 70, null)], 60, [1, 2, 9])
    expect(a.anonMb).toEqual([10, 70, null])
    expect(a.heapMinMb).toBeNull()
    expect(a.liveHeapMb).toBeNull()
    expect(b.anonMb).toEqual([null, null, null])
  })
})

describe('gauge', () => {
  it('reads an unlabelled gauge of a scrape, not one whose name it begins', () => {
    const text =
      '# TYPE nodejs_heap_size_used_bytes gauge\nnodejs_heap_size_used_bytes 123456\nnodejs_heap_size_total_bytes 9'
    expect(gauge(text, 'nodejs_heap_size_used_bytes')).toBe(123456)
    expect(gauge(text, 'nodejs_heap_size')).toBeNull()
    expect(gauge('', 'nodejs_heap_size_total_bytes')).toBeNull()
  })
})

describe('the mix', () => {
  it('sends each kind its weight in every 100 requests, rotating through its own requests', () => {
    const kinds = new Map<Kind, { kind: string; method: 'GET'; path: string }[]>()
    for (const kind of Object.keys(WEIGHTS) as Kind[])
      kinds.set(
        kind,
        [0, 1, 2].map((i) => ({ kind, method: 'GET', path: `/${kind}/${i}` })),
      )
    kinds.delete('GET /plots/tiles z15')
    const next = mixSequence(kinds, 7)
    const drawn = Array.from({ length: 200 }, next)
    // one cycle: 100 slots less the missing kind's
    const cycle = drawn.slice(0, 100 - WEIGHTS['GET /plots/tiles z15'])
    const count = (k: string) => cycle.filter((r) => r.kind === k).length
    expect(count('GET /parcels/at')).toBe(WEIGHTS['GET /parcels/at'])
    expect(count('GET /encumbrances/tiles z15')).toBe(WEIGHTS['GET /encumbrances/tiles z15'])
    expect(count('POST /jurisdiction/batch')).toBe(1)
    expect(count('GET /plots/tiles z15')).toBe(0)
    const ats = drawn.filter((r) => r.kind === 'GET /parcels/at').map((r) => r.path)
    expect(ats.slice(0, 4)).toEqual([
      '/GET /parcels/at/0',
      '/GET /parcels/at/1',
      '/GET /parcels/at/2',
      '/GET /parcels/at/0',
    ])
    expect(Array.from({ length: 200 }, mixSequence(kinds, 7))).toEqual(drawn)
  })

  it('reads the point of either spelling of a lookup', () => {
    expect(pointOf('/api/v1/parcels/at?latitude=-26.1&longitude=28.2')).toEqual({ latitude: -26.1, longitude: 28.2 })
    expect(pointOf('/api/v1/jurisdiction/at?lat=-26.1&lon=28.2')).toEqual({ latitude: -26.1, longitude: 28.2 })
  })
})

describe('renderSoak', () => {
  it('has a row per window and per kind, and the verdict line', () => {
    const windows = [win(0, 10, [50, 80, 80], 40), win(1, 12, [60, 100, 100], 50), win(2, 11, [61, 105, 104], 52)]
    const data = {
      workers: 2,
      probeConnections: 50,
      connections: 64,
      probeS: 15,
      maxReqPerS: 2000,
      probeErrors: 0,
      loadShare: 0.8,
      rate: 1600,
      durationS: 180,
      windowS: 60,
      sampleS: 10,
      mostInFlight: 40,
      processes: ROLES.map((role, i) => ({ role, pid: i + 1 })),
      windows,
      kinds: [{ kind: 'GET /parcels/at', requests: 345_600, errors: 0, p50Ms: 1, p99Ms: 5, meanBytes: 1400 }],
      requests: [{ kind: 'GET /parcels/at', seeded: 500, dropped: 2 }],
      notes: [],
      verdict: soakVerdict(windows, ROLES),
    } satisfies SoakData
    const md = renderSoak({ data } as unknown as SuiteRecord<SoakData>)
    expect(md).toContain('**Verdict: pass**')
    expect(md).toContain(
      '| 2 | 1,000 | 16.7 | 0 | 3.00 | 12.00 | 24.0 | 160 / 200 / 200 | 60.0 / 100 / 100 | 50.0 / – | 40.0–75.0 |',
    )
    expect(md).toContain('| GET /parcels/at | 12 | 500 (2) | 345,600 | 1.00 | 5.00 | 1,400 | 0 |')
    expect(md).toContain('**1,600 req/s for 3.0 min**')
  })
})
