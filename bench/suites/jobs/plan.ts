/**
 * The jobs suite's pure parts: the seeded rows of each operation's job, how long the online job
 * must hold, and the verdict (issue #41 item 6: a job must not more than double the online p99).
 *
 * @module
 */
import type { LoadResult } from '../../lib/load.js'
import { Random } from '../../lib/prng.js'
import { median } from '../../lib/stats.js'

/** The verdict's bound: the online p99 with a job running over the p99 without. */
export const MAX_P99_RATIO = 2

/** What a row of an operation's job names: a point, or a parcel's LPI. */
export type InputKind = 'point' | 'lpi'

/** The operations that take a parcel (by LPI); the others take a point. */
export const inputKind = (operation: string): InputKind => (/Lpi|OfParcel/.test(operation) ? 'lpi' : 'point')

/** The seeded picks rows are drawn from: published erven's label points, and published parcels' LPIs. */
export interface RowSource {
  points: readonly (readonly [number, number])[]
  lpis: readonly string[]
}

/**
 * The CSV upload of `count` rows for `operation`: points (`latitude,longitude`, 7 decimals) or
 * LPIs, drawn with replacement from `source` by `seed`, the same rows on every run. `salt`
 * names the draw, so each operation gets its own rows.
 */
export function jobCsv(operation: string, count: number, source: RowSource, seed: number, salt: string): string {
  const rnd = new Random(seed >>> 0, `bench/jobs/${salt}`)
  const kind = inputKind(operation)
  const pool = kind === 'lpi' ? source.lpis : source.points
  if (!pool.length) throw new Error(`jobs: the dataset has no ${kind === 'lpi' ? 'published parcel' : 'erf'} to draw`)
  const lines = [kind === 'lpi' ? 'lpi' : 'latitude,longitude']
  for (let k = 0; k < count; k++) {
    const pick = pool[rnd.int(0, pool.length - 1)]!
    lines.push(typeof pick === 'string' ? pick : `${pick[1].toFixed(7)},${pick[0].toFixed(7)}`)
  }
  return `${lines.join('\n')}\n`
}

/**
 * Rows the job under the online load needs so that it still runs when the load ends: three
 * times what its operation ran alone in the load's seconds, at least `min`, at most `max`
 * (the upload limit).
 */
export function onlineJobRows(rowsPerS: number | null, seconds: number, min: number, max: number): number {
  const want = rowsPerS === null || !Number.isFinite(rowsPerS) ? min : Math.ceil(rowsPerS * seconds * 3)
  return Math.min(max, Math.max(min, want))
}

export type OnlineLoad = 'alone' | 'with a job'

export interface OnlineRun {
  round: number
  load: OnlineLoad
  result: LoadResult
  /** with a job: its rows a second during the timed run, and whether it ran to the run's end */
  job?: { operation: string; rowsPerS: number; runningAtEnd: boolean }
}

export interface OnlineVerdict {
  /** medians over the rounds */
  p99Alone: number
  p99WithJob: number
  p50Alone: number
  p50WithJob: number
  reqPerSAlone: number
  reqPerSWithJob: number
  /** p99 with a job over p99 alone */
  ratio: number
  pass: boolean
}

/** The verdict from the runs: medians of each load over the rounds; null without both loads. */
export function onlineVerdict(runs: readonly OnlineRun[]): OnlineVerdict | null {
  const of = (load: OnlineLoad) => runs.filter((r) => r.load === load).map((r) => r.result)
  const alone = of('alone')
  const withJob = of('with a job')
  if (!alone.length || !withJob.length) return null
  const m = (rs: LoadResult[], f: (r: LoadResult) => number) => median(rs.map(f))
  const p99Alone = m(alone, (r) => r.p99Ms)
  const p99WithJob = m(withJob, (r) => r.p99Ms)
  const ratio = p99Alone > 0 ? p99WithJob / p99Alone : Number.POSITIVE_INFINITY
  return {
    p99Alone,
    p99WithJob,
    p50Alone: m(alone, (r) => r.p50Ms),
    p50WithJob: m(withJob, (r) => r.p50Ms),
    reqPerSAlone: m(alone, (r) => r.reqPerS),
    reqPerSWithJob: m(withJob, (r) => r.reqPerS),
    ratio,
    pass: ratio <= MAX_P99_RATIO,
  }
}
