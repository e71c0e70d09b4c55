import { describe, expect, it } from 'vitest'
import type { LoadResult } from '../../lib/load.js'
import type { SuiteRecord } from '../../lib/suite.js'
import { aggregate, httpTable, renderHttp, targetLines } from './report.js'
import { countedRequests, type HttpData, medianIndex, profileSlug } from './run.js'

const result = (reqPerS: number, p99Ms = 5, errors = 0): LoadResult => ({
  tool: 'wrk',
  connections: 50,
  durationS: 10,
  requests: reqPerS * 10,
  reqPerS,
  p50Ms: p99Ms / 4,
  p99Ms,
  meanMs: p99Ms / 4,
  errors,
  non2xx: errors,
})

/** Two rounds; the floors 40 k (hello) and 10 k (radius's same bytes). */
const runs: HttpData['runs'] = [
  { round: 1, load: 'hello', result: result(40_000) },
  { round: 2, load: 'hello', result: result(44_000, 7) },
  { round: 1, load: 'same bytes: radius 500 m, limit 100', result: result(10_000) },
  { round: 2, load: 'same bytes: radius 500 m, limit 100', result: result(10_000) },
  { round: 1, load: 'radius 500 m, limit 100', result: result(7_000) },
  { round: 2, load: 'radius 500 m, limit 100', result: result(5_000) },
  { round: 1, load: '/parcels/at', result: result(30_000) },
  { round: 2, load: '/parcels/at', result: result(30_000) },
  { round: 1, load: '/plots/reverse', result: result(20_000, 9, 3) },
  { round: 2, load: '/plots/reverse', result: result(22_000) },
  { round: 1, load: 'z15 parcel tiles', result: result(12_000, 60) },
  { round: 2, load: 'z15 parcel tiles', result: result(18_000, 40) },
  { round: 1, load: '/encumbrances/at', result: result(16_000) },
  { round: 2, load: '/encumbrances/at', result: result(16_000) },
]

describe('aggregate', () => {
  const rows = aggregate(runs)
  const row = (load: string) => rows.find((r) => r.load === load)!

  it('orders the floors first, then the endpoints in the order of a round', () => {
    expect(rows.map((r) => r.load)).toEqual([
      'hello',
      'same bytes: radius 500 m, limit 100',
      '/plots/reverse',
      '/parcels/at',
      '/encumbrances/at',
      'radius 500 m, limit 100',
      'z15 parcel tiles',
    ])
  })

  it('takes the median req/s, sums errors, and sets the ratios each target reads', () => {
    expect(row('hello').reqPerS).toBe(42_000)
    expect(row('hello').vsHello).toBeNull()
    expect(row('/plots/reverse').errors).toBe(3)
    expect(row('/plots/reverse').vsHello).toBeCloseTo(21_000 / 42_000, 9)
    expect(row('radius 500 m, limit 100').vsSameBytes).toBeCloseTo(0.6, 9)
    expect(row('/parcels/at').vsSameBytes).toBeNull()
    expect(row('/parcels/at').vsAt).toBeNull()
    expect(row('/encumbrances/at').vsAt).toBeCloseTo(16 / 30, 9)
    expect(row('z15 parcel tiles').vsAt).toBeCloseTo(0.5, 9)
  })

  it('reports the latency of the run nearest the median', () => {
    // median of 12 k and 18 k is 15 k: equally near both, the first is kept
    expect(row('z15 parcel tiles').p99Ms).toBe(60)
    expect(row('hello').p99Ms).toBe(5)
  })
})

describe('targetLines', () => {
  it('holds each load to its item of the issue, and says what was not measured', () => {
    expect(targetLines(aggregate(runs))).toEqual([
      'item 2, /plots/reverse: 0.50x hello (target ≥ 0.6x) → missed by 0.10x',
      'item 2, /parcels/at: 0.71x hello (target ≥ 0.6x) → met',
      'item 2, /jurisdiction/at: not measured',
      'item 3, radius 500 m, limit 100: 0.60x same bytes (target ≥ 0.6x) → met',
      'item 3, box (/parcels/within): not measured',
      'item 4, /encumbrances/at: 0.53x /parcels/at (target ≥ 0.5x) → met',
      'item 5, z15 parcel tiles: 0.50x /parcels/at (target ≥ 0.5x) → met',
      'item 5, z15 parcel tiles: p99 60.00 ms (target ≤ 50 ms) → missed by 10.00 ms',
    ])
  })
})

describe('httpTable', () => {
  it('has one line per load with its bytes, rounds and ratios', () => {
    const lines = httpTable(aggregate(runs), (l) => (l === 'radius 500 m, limit 100' ? 21_500 : undefined))
    expect(lines).toHaveLength(2 + 7)
    expect(lines[2]).toBe('| hello-world (floor) |  | 42,000 | 40,000, 44,000 | 1.250 | 5.000 | 0 |  |  |  |')
    expect(lines[7]).toBe(
      '| radius 500 m, limit 100 | 21,500 | 6,000 | 7,000, 5,000 | 1.250 | 5.000 | 0 | 0.14x | 0.60x |  |',
    )
  })
})

describe('renderHttp', () => {
  it('says a record of the suite before issue #37 is to be measured again', () => {
    const old = { data: { tool: 'wrk', runs: [] } } as unknown as SuiteRecord<HttpData>
    expect(renderHttp(old)).toMatch(/plot-only suite that came before issue #37/)
  })
})

describe('run helpers', () => {
  it('sums the request histogram counts of a metrics scrape', () => {
    const text = [
      '# TYPE landdata_http_request_duration_seconds histogram',
      'landdata_http_request_duration_seconds_bucket{le="0.001",route="/plots/reverse"} 90',
      'landdata_http_request_duration_seconds_count{route="/plots/reverse"} 100',
      'landdata_http_request_duration_seconds_count{route="/parcels/at"} 23',
      'landdata_http_errors_total 4',
    ].join('\n')
    expect(countedRequests(text)).toBe(123)
    expect(countedRequests('')).toBe(0)
  })

  it('finds the median, the lower middle of an even count', () => {
    expect(medianIndex([500, 100, 300])).toBe(2)
    expect(medianIndex([40, 10, 30, 20])).toBe(3)
    expect(medianIndex([7])).toBe(0)
  })

  it('names profile files after the endpoint', () => {
    expect(profileSlug('/plots/reverse')).toBe('plots-reverse')
    expect(profileSlug('hello')).toBe('hello')
    expect(profileSlug('/jurisdiction/at')).toBe('jurisdiction-at')
  })
})
