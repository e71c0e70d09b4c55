import { describe, expect, it } from 'vitest'
import { JOB_OPERATIONS } from '../../../src/jobs/operations.js'
import type { SuiteRecord } from '../../lib/suite.js'
import { loadResult } from '../../lib/test-fixtures.js'
import { type JobsData, jobsSuite } from './index.js'
import { inputKind, jobCsv, type OnlineRun, onlineJobRows, onlineVerdict, type RowSource } from './plan.js'

const SOURCE: RowSource = {
  points: [
    [28.0473, -26.2041],
    [18.4241, -33.9249],
    [27.7536032, -26.1704468],
  ],
  lpis: ['C05500010000001900000', 'T0JR00000000000100000'],
}

const load = (reqPerS: number, p50Ms: number, p99Ms: number) => loadResult(reqPerS, 50, p50Ms, p99Ms)

describe('jobCsv', () => {
  it('names the columns of each operation: an LPI for the parcel lookups, a point for the others', () => {
    expect(JOB_OPERATIONS.filter((o) => inputKind(o) === 'lpi')).toEqual([
      'getParcelByLpi',
      'getEncumbrancesOfParcel',
      'getEncumbranceSummaryOfParcel',
      'getJurisdictionOfParcel',
    ])
    expect(jobCsv('getParcelAt', 3, SOURCE, 1, 'a').split('\n')[0]).toBe('latitude,longitude')
    expect(jobCsv('getParcelByLpi', 3, SOURCE, 1, 'a').split('\n')[0]).toBe('lpi')
  })

  it('draws the same rows for the same seed and salt, others for another, each from the source', () => {
    const a = jobCsv('getParcelAt', 200, SOURCE, 7, 'getParcelAt')
    expect(jobCsv('getParcelAt', 200, SOURCE, 7, 'getParcelAt')).toBe(a)
    expect(jobCsv('getParcelAt', 200, SOURCE, 8, 'getParcelAt')).not.toBe(a)
    expect(jobCsv('getParcelAt', 200, SOURCE, 7, 'online/1')).not.toBe(a)
    const rows = a.trimEnd().split('\n').slice(1)
    expect(rows.length).toBe(200)
    // latitude first, 7 decimals, every point of the source drawn in 200 rows
    const allowed = SOURCE.points.map(([lon, lat]) => `${lat.toFixed(7)},${lon.toFixed(7)}`)
    for (const r of rows) expect(allowed).toContain(r)
    expect(new Set(rows).size).toBe(3)
    expect(() => jobCsv('getParcelByLpi', 1, { points: SOURCE.points, lpis: [] }, 1, 'x')).toThrow(/no published/)
  })
})

describe('onlineJobRows', () => {
  it('is three times the rows of the load, within the bounds; the least without a rate', () => {
    expect(onlineJobRows(500, 12, 10_000, 1_000_000)).toBe(18_000)
    expect(onlineJobRows(50, 12, 10_000, 1_000_000)).toBe(10_000)
    expect(onlineJobRows(1e6, 12, 10_000, 1_000_000)).toBe(1_000_000)
    expect(onlineJobRows(null, 12, 10_000, 1_000_000)).toBe(10_000)
  })
})

describe('onlineVerdict', () => {
  const runs = (alone: number[], withJob: number[]): OnlineRun[] => [
    ...alone.map((p99, i) => ({ round: i + 1, load: 'alone' as const, result: load(1000 + i, 10, p99) })),
    ...withJob.map((p99, i) => ({ round: i + 1, load: 'with a job' as const, result: load(900 + i, 12, p99) })),
  ]

  it('compares the median p99 of each load: at most twice passes', () => {
    const v = onlineVerdict(runs([40, 10, 20], [41, 39, 90]))!
    expect(v).toMatchObject({ p99Alone: 20, p99WithJob: 41, reqPerSAlone: 1001, reqPerSWithJob: 901 })
    expect(v.ratio).toBeCloseTo(2.05)
    expect(v.pass).toBe(false)
    expect(onlineVerdict(runs([40, 10, 20], [40, 39, 90]))!.pass).toBe(true)
  })

  it('has no verdict without both loads', () => {
    expect(onlineVerdict(runs([10], []))).toBeNull()
    expect(onlineVerdict(runs([], [10]))).toBeNull()
  })
})

describe('the section', () => {
  it('lists every job and run, and the verdict', () => {
    const online: OnlineRun[] = [
      { round: 1, load: 'alone', result: load(2000, 15, 100) },
      {
        round: 1,
        load: 'with a job',
        result: load(1800, 16, 150),
        job: { operation: 'getParcelAt', rowsPerS: 300, runningAtEnd: false },
      },
    ]
    const data: JobsData = {
      tool: 'wrk',
      workers: 2,
      rowsPerJob: 100_000,
      capS: 120,
      durationS: 10,
      jobs: JOB_OPERATIONS.map((operation, i) => ({
        operation,
        rows: 100_000,
        status: i ? 'done' : 'capped',
        rowsDone: i ? 100_000 : 64_000,
        rowsFailed: i,
        submitS: 1.5,
        runS: i ? 100 : 120,
        rowsPerS: i ? 1000 : 533.3,
        capped: i === 0,
      })),
      online,
      verdict: onlineVerdict(online),
    }
    const md = jobsSuite.render({ data } as SuiteRecord<JobsData>)
    for (const o of JOB_OPERATIONS) expect(md).toContain(`| \`${o}\` | 100,000 |`)
    expect(md).toContain('| `getParcelAt` | 100,000 | 64,000 (capped) | 0 | 1.50 | 120 | 533 |')
    expect(md).toContain('| 1 | with a job | 1,800 | 16.00 | 150 | 0 | 300 (ended early) |')
    expect(md).toContain('**Verdict: PASS.**')
    expect(md).toContain('(1.50x, at most 2x)')
  })
})
