/**
 * Timing and summary statistics for the benchmarks. Per-call times come from
 * `performance.now()` (sub-microsecond resolution in Node); percentiles are nearest-rank.
 *
 * @module
 */

/** Summary of a set of per-call durations, in microseconds. */
export interface Summary {
  /** number of timed calls */
  n: number
  p50Us: number
  p99Us: number
  meanUs: number
  minUs: number
  maxUs: number
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]
}

/** Summarises durations given in milliseconds (as `performance.now()` differences). */
export function summarise(durationsMs: ArrayLike<number>, n = durationsMs.length): Summary {
  const us = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) {
    us[i] = durationsMs[i] * 1000
    sum += us[i]
  }
  us.sort()
  return {
    n,
    p50Us: percentile(us, 50),
    p99Us: percentile(us, 99),
    meanUs: n ? sum / n : NaN,
    minUs: us[0],
    maxUs: us[n - 1],
  }
}

/** Median of a few numbers (for repeated whole-run measurements). */
export function median(values: number[]): number {
  if (values.length === 0) return NaN
  const s = [...values].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** A growable Float64Array of per-call durations. */
export class Samples {
  private buf: Float64Array
  length = 0

  constructor(capacity = 1024) {
    this.buf = new Float64Array(Math.max(16, capacity))
  }

  push(ms: number): void {
    if (this.length === this.buf.length) {
      const b = new Float64Array(this.buf.length * 2)
      b.set(this.buf)
      this.buf = b
    }
    this.buf[this.length++] = ms
  }

  summary(): Summary {
    return summarise(this.buf, this.length)
  }
}

/** Rounds for display: 3 significant figures below 100, whole numbers above. */
export function fmt(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–'
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US')
  return v.toFixed(digits)
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`
}
