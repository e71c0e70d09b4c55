/**
 * The server's Prometheus metrics (docs/operations.md "Metrics"): made once per process when
 * METRICS_PORT is set, into prom-client's global registry (the one a cluster worker answers its
 * primary's `AggregatorRegistry` with). Without METRICS_PORT nothing here is made and a request
 * records nothing.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import { collectDefaultMetrics, Counter, Gauge, Registry, register } from 'prom-client'
import type { Manifest } from '../data/manifest.js'
import { FastHistogram, KeyedCounter, type Series } from './series.js'

/** The route label of a request no route matched (404, 405): one label, whatever the path. */
export const UNMATCHED = 'unmatched'

/** Seconds: a fast answer is well under a millisecond, a large batch or tile a second or more. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds: microseconds in one process (key cache, in-memory counter), a round trip to the primary in a cluster. */
const STEP_BUCKETS = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05]

/** One route's requests, by status: each status's series made on its first request. */
export class RouteMetrics {
  private readonly byStatus = new Map<number, Series>()

  constructor(
    private readonly histogram: FastHistogram,
    readonly route: string,
  ) {}

  observe(status: number, seconds: number): void {
    let s = this.byStatus.get(status)
    if (s === undefined) {
      s = this.histogram.series({ route: this.route, status: String(status) })
      this.byStatus.set(status, s)
    }
    s.observe(seconds)
  }
}

export interface AppMetrics {
  /** The metrics of one route pattern (e.g. `/api/v1/parcels/{lpi}`), made when the route is registered. */
  route(pattern: string): RouteMetrics
  /** Error answers by error code. */
  errors: KeyedCounter
  /** The time the key store takes to verify a presented key. */
  keyStore: Series
  /** The time the rate limiter takes to count a request. */
  rateLimit: Series
  /** Requests served without being counted: Redis unavailable with RATE_LIMIT_ON_STORE_ERROR=open. */
  rateLimitUncounted: { inc(n: number): void }
}

let switches: Counter | null = null
let served: ((build: string, manifest: Manifest) => void) | null = null

/** Counts a switch of the served dataset (`landdata_dataset_switches_total`); nothing when metrics are off. */
export function countDatasetSwitch(): void {
  switches?.inc()
}

/** Names the build served from now on in `landdata_build_info` and `landdata_dataset_info` (after a switch). */
export function describeServedBuild(build: string, manifest: Manifest): void {
  served?.(build, manifest)
}

/** V8's heap used just after this process's last major (mark-compact) collection; see {@link watchMajorGc}. */
let heapAfterMajorGc = 0
let gcObserver: PerformanceObserver | null = null

/**
 * Keeps {@link heapAfterMajorGc} from the `gc` performance entries (one per collection, delivered
 * after it): the live heap, without the garbage an instant reading of the heap catches, so that
 * a leak shows as a rising line instead of a sawtooth. Until the first major collection, the
 * heap used when first called. One observer per process, however many registries.
 */
function watchMajorGc(): void {
  if (gcObserver) return
  heapAfterMajorGc = getHeapStatistics().used_heap_size
  gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
        heapAfterMajorGc = getHeapStatistics().used_heap_size
  })
  gcObserver.observe({ entryTypes: ['gc'] })
}

/** Makes this process's metrics, with the served build's (`build`: the dataset directory's name). */
export function createMetrics(build: string, manifest: Manifest, registry: Registry = register): AppMetrics {
  collectDefaultMetrics({ register: registry })
  const requests = new FastHistogram(
    'landdata_http_request_duration_seconds',
    'Time to answer a request, by route pattern and status; its _count is the request count.',
    REQUEST_BUCKETS,
    registry,
  )
  const errors = new KeyedCounter(
    'landdata_http_errors_total',
    'Error answers by error code (RateLimitExceeded: the 429s).',
    'code',
    registry,
  )
  const keyStore = new FastHistogram(
    'landdata_key_verify_duration_seconds',
    'Time the key store takes to verify a presented key.',
    STEP_BUCKETS,
    registry,
  ).series()
  const rateLimit = new FastHistogram(
    'landdata_rate_limit_duration_seconds',
    'Time the rate limiter takes to count a request (a round trip to the cluster primary with WORKERS > 1).',
    STEP_BUCKETS,
    registry,
  ).series()
  // every worker serves the same build: the cluster shows it once, not summed
  const info = new Gauge({
    name: 'landdata_build_info',
    help: 'The served build: its directory name and build_digest; always 1.',
    labelNames: ['build', 'build_digest'],
    aggregator: 'first',
    registers: [registry],
  })
  const domains = new Gauge({
    name: 'landdata_dataset_info',
    help: 'Each domain of the served build: its dataset_version and as_of date; always 1.',
    labelNames: ['domain', 'dataset_version', 'as_of'],
    aggregator: 'first',
    registers: [registry],
  })
  served = (build, manifest) => {
    info.reset()
    info.set({ build, build_digest: manifest.build_digest ?? '' }, 1)
    domains.reset()
    for (const [domain, m] of Object.entries(manifest.domains))
      if (m) domains.set({ domain, dataset_version: m.dataset_version, as_of: m.as_of }, 1)
  }
  served(build, manifest)
  // each worker switches: the cluster shows the most any worker has made
  switches = new Counter({
    name: 'landdata_dataset_switches_total',
    help: 'Switches of the served dataset since the process started.',
    aggregator: 'max',
    registers: [registry],
  })
  const rateLimitUncounted = new Counter({
    name: 'landdata_rate_limit_uncounted_total',
    help: 'Requests served without being counted: the rate-limit store (Redis) unavailable, RATE_LIMIT_ON_STORE_ERROR=open.',
    registers: [registry],
  })
  watchMajorGc()
  new Gauge({
    name: 'landdata_heap_after_major_gc_bytes',
    help: "V8 heap used just after the last major (mark-compact) collection: the live heap, a leak's signal.",
    registers: [registry],
    collect() {
      this.set(heapAfterMajorGc)
    },
  })
  return {
    route: (pattern) => new RouteMetrics(requests, pattern),
    errors,
    keyStore,
    rateLimit,
    rateLimitUncounted,
  }
}

/**
 * The cluster primary's own memory, served after its workers' sum (src/metrics/serve.ts): the
 * primary answers no request, but it holds the rate-limit counters of every key and gathers each
 * scrape, so its memory is watched apart from the workers' (the bench's soak judges it). In a
 * registry of its own, so the workers' sum is not mixed with it.
 */
export function primaryMetrics(registry: Registry = new Registry()): Registry {
  watchMajorGc()
  new Gauge({
    name: 'landdata_primary_heap_after_major_gc_bytes',
    help: "The cluster primary's V8 heap used just after its last major collection: its live heap.",
    registers: [registry],
    collect() {
      this.set(heapAfterMajorGc)
    },
  })
  new Gauge({
    name: 'landdata_primary_resident_memory_bytes',
    help: "The cluster primary's resident memory (RSS).",
    registers: [registry],
    collect() {
      this.set(process.memoryUsage.rss())
    },
  })
  return registry
}
