/**
 * Histograms and counters cheap enough for every request, shown to prom-client as ordinary
 * metrics (docs/operations.md "Metrics").
 *
 * prom-client's own `Histogram.observe` hashes the label values into a string on every call,
 * even through a `labels()` child: about 600 ns, a few per cent of a small request. Here each
 * label set is a `Series` made once (per route and status, per error code) and kept by the
 * caller, so recording is a bucket search and two additions; the label objects and the
 * cumulative buckets are only built when Prometheus scrapes. The `get()` answers have
 * prom-client's shape, so its registries print them and `AggregatorRegistry` sums them across
 * cluster workers like its own.
 */
import type { Registry } from 'prom-client'

type Labels = Record<string, string>

/** One sample, as prom-client's `get()` gives it (`metricName` for a histogram's parts). */
interface Sample {
  metricName?: string
  labels: Record<string, string | number>
  value: number
}

/** What prom-client's registries read of a metric (`Registry.getMetricsAsJSON`, `metrics()`). */
export interface MetricSnapshot {
  name: string
  help: string
  type: 'histogram' | 'counter'
  values: Sample[]
  aggregator: 'sum'
}

/** One label set of a histogram: counts per bucket (the last is +Inf), their sum and count. */
export class Series {
  readonly counts: Float64Array
  sum = 0
  count = 0
  constructor(
    readonly labels: Labels,
    private readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe(value: number): void {
    const b = this.bounds
    let i = 0
    while (i < b.length && value > b[i]) i++
    this.counts[i]++
    this.sum += value
    this.count++
  }
}

/** A histogram whose label sets are `Series` made once and observed directly. */
export class FastHistogram {
  readonly type = 'histogram' as const
  readonly aggregator = 'sum' as const
  private readonly bounds: Float64Array
  private readonly all: Series[] = []

  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    registry: Registry,
  ) {
    this.bounds = Float64Array.from(buckets)
    registry.registerMetric(this as never)
  }

  /** The series of one label set: call once per label set and keep it. */
  series(labels: Labels = {}): Series {
    const s = new Series(labels, this.bounds)
    this.all.push(s)
    return s
  }

  get(): MetricSnapshot {
    const values: Sample[] = []
    for (const s of this.all) {
      let cumulative = 0
      for (let i = 0; i < s.counts.length; i++) {
        cumulative += s.counts[i]
        const le = i < this.bounds.length ? this.bounds[i] : '+Inf'
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...s.labels }, value: cumulative })
      }
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum })
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }
}

/** A counter with one label: the counts kept in a Map by its value (a bounded set, e.g. error codes). */
export class KeyedCounter {
  readonly type = 'counter' as const
  readonly aggregator = 'sum' as const
  private readonly counts = new Map<string, number>()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string,
    registry: Registry,
  ) {
    registry.registerMetric(this as never)
  }

  inc(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }

  get(): MetricSnapshot {
    const values: Sample[] = []
    for (const [key, value] of this.counts) values.push({ labels: { [this.label]: key }, value })
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }
}
