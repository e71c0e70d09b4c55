/**
 * Bulk jobs end to end (docs/api.md "Bulk jobs"): a 10,000-row CSV job of each operation jobs
 * may run completes, and a sample of its rows equals the online answers for the same parameters.
 */
import { describe, expect, it } from 'vitest'
import { JOB_OPERATIONS } from '../src/jobs/operations.js'
import { FARM_LPI, PORTION1_LPI, POINTS, erfLpi } from './fixtures/parcel-fixtures.js'
import { STRADDLING_FARM_LPI } from './fixtures/jurisdiction-fixtures.js'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()

/** Points in and around the fixtures (erven, the farm, Cape Town, Pretoria, Gaborone, the sea). */
const POINT_SEEDS: [number, number][] = [
  [POINTS.inErf1.latitude, POINTS.inErf1.longitude],
  [POINTS.onSharedEdge.latitude, POINTS.onSharedEdge.longitude],
  [POINTS.inHole.latitude, POINTS.inHole.longitude],
  [POINTS.southOfFarm.latitude, POINTS.southOfFarm.longitude],
  [POINTS.farSouth.latitude, POINTS.farSouth.longitude],
  [-33.95, 18.72],
  [-33.9249, 18.4241],
  [-25.7479, 28.2293],
  [-24.6545, 25.9086],
  [-34.5, 16.0],
]
const LPIS = [
  erfLpi(1),
  erfLpi(2),
  erfLpi(3),
  erfLpi(4),
  erfLpi(7),
  FARM_LPI,
  PORTION1_LPI,
  STRADDLING_FARM_LPI,
  erfLpi(999),
]

/** `n` CSV rows for `operation`: points (jittered, some under the alias spelling) or LPIs. */
function csvFor(operation: string, n: number): string {
  const byLpi = /Lpi|OfParcel/.test(operation)
  // the jurisdiction service's own names are lat/lon: its rows use the other spelling (an alias)
  const head = byLpi ? 'lpi' : operation === 'getJurisdictionAt' ? 'latitude,longitude' : 'lat,lon'
  const lines = [head]
  for (let i = 0; i < n; i++) {
    if (byLpi) lines.push(LPIS[i % LPIS.length]!)
    else {
      const [lat, lon] = POINT_SEEDS[i % POINT_SEEDS.length]!
      const jitter = ((i * 7919) % 1000) / 1e7
      lines.push(`${(lat + jitter).toFixed(7)},${(lon - jitter).toFixed(7)}`)
    }
  }
  return `${lines.join('\n')}\n`
}

/** The online URL of a row, as a client would ask it. */
function onlineUrl(operation: string, input: Record<string, string>): string {
  const paths: Record<string, string> = {
    getParcelAt: '/parcels/at',
    getParcelByLpi: `/parcels/${input.lpi}`,
    getEncumbrancesOfParcel: `/encumbrances/parcel/${input.lpi}`,
    getEncumbranceSummaryOfParcel: `/encumbrances/summary/parcel/${input.lpi}`,
    getEncumbrancesAt: '/encumbrances/at',
    getJurisdictionAt: '/jurisdiction/at',
    getJurisdictionOfParcel: `/jurisdiction/parcel/${input.lpi}`,
    getPlotsReverse: '/plots/reverse',
  }
  const q = new URLSearchParams(Object.entries(input).filter(([k]) => k !== 'lpi'))
  return `/api/v1${paths[operation]}${q.size ? `?${q}` : ''}`
}

const submit = (operation: string, body: string, type = 'text/csv', apiKey = key) =>
  t.app.request(`/api/v1/jobs?operation=${operation}`, {
    method: 'POST',
    headers: { 'X-API-KEY': apiKey, 'Content-Type': type },
    body,
  })

/** Drops what differs between two answers of one request: the request id of an error. */
function comparable(body: unknown): unknown {
  if (body && typeof body === 'object' && 'requestId' in body) return { ...body, requestId: undefined }
  return body
}

describe('a 10,000-row CSV job of each operation', () => {
  for (const operation of JOB_OPERATIONS)
    it(`${operation}: completes, and sampled rows equal the online answers`, { timeout: 240_000 }, async () => {
      const res = await submit(operation, csvFor(operation, 10_000))
      expect(res.status, await res.clone().text()).toBe(202)
      const made = await json(res)
      expect(made).toMatchObject({ status: 'queued', rows: 10_000, operation })
      expect(res.headers.get('Location')).toBe(`/api/v1/jobs/${made.id}`)
      await t.runner.wake()
      await t.runner.idle()
      const job = await json(await t.get(`/api/v1/jobs/${made.id}`, key))
      expect(job).toMatchObject({ status: 'done', rows: 10_000, rows_done: 10_000, eta_seconds: 0 })
      expect(job.build).toBeTruthy()
      // answered on the pool's thread (test/jobs-threads.test.ts), which did the rows' work
      expect(t.threads!.usage()).toEqual([expect.objectContaining({ cpuMicros: expect.any(Number) })])
      expect(t.threads!.usage()[0]!.cpuMicros).toBeGreaterThan(0)
      const text = await (await t.get(`/api/v1/jobs/${made.id}/results`, key)).text()
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1))
      expect(lines.filter((l) => l.status >= 400).length).toBe(job.rows_failed)
      // a sample across the rows: every seed point or LPI at least once
      for (let i = 0; i < 10_000; i += 97) {
        const l = lines[i]
        const online = await t.get(onlineUrl(operation, l.input), key)
        expect(l.status, `row ${l.row}`).toBe(online.status)
        expect(comparable(l.result ?? l.error), `row ${l.row}`).toEqual(comparable(await json(online)))
      }
    })
})
