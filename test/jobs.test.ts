/**
 * Bulk jobs end to end (docs/api.md "Bulk jobs"): a 10,000-row CSV job of each operation jobs
 * may run completes, and a sample of its rows equals the online answers for the same parameters;
 * its results as CSV (flattened) parse, keep the header they had before the job ran, and hold
 * the NDJSON's values.
 */
import { parse } from 'csv-parse/sync'
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

/** The list of records of each operation's answer, which the CSV gives one line per record. */
const CSV_LIST: Record<string, string | null> = {
  getParcelAt: 'parcels',
  getParcelByLpi: 'parcels',
  getEncumbrancesOfParcel: 'encumbrances',
  getEncumbranceSummaryOfParcel: null,
  getEncumbrancesAt: 'encumbrances',
  getJurisdictionAt: null,
  getJurisdictionOfParcel: null,
  getPlotsReverse: 'plots',
}

interface NdjsonLine {
  row: number
  input: Record<string, string>
  status: number
  result?: Record<string, unknown>
  error?: { error: string; message: string }
}

/**
 * Checks the CSV lines of one result line against its NDJSON, flattened here on its own: every
 * field of the answer is a column (dotted), a list of text is joined with `; `, a deeper array is
 * its JSON text, a null object leaves its columns empty, and the list gives one line a record.
 */
function expectCsvOf(header: string[], lines: string[][], l: NdjsonLine, list: string | null): void {
  const where = `row ${l.row}`
  const cell = (line: string[], name: string) => {
    const k = header.includes(`result.${name}`) ? header.indexOf(`result.${name}`) : header.indexOf(name)
    expect(k, `${where}: a column ${name}`).toBeGreaterThanOrEqual(0)
    return line[k]
  }
  const check = (line: string[], v: unknown, name: string) => {
    if (v === null) {
      for (const [k, h] of header.entries())
        if (h === name || h.startsWith(`${name}.`) || h === `result.${name}`) expect(line[k], `${where} ${h}`).toBe('')
    } else if (Array.isArray(v))
      expect(cell(line, name), `${where} ${name}`).toBe(
        v.every((x) => typeof x !== 'object') ? v.join('; ') : JSON.stringify(v),
      )
    else if (typeof v === 'object') for (const [k, x] of Object.entries(v)) check(line, x, name ? `${name}.${k}` : k)
    else expect(cell(line, name), `${where} ${name}`).toBe(String(v))
  }
  for (const line of lines) {
    for (const [k, v] of Object.entries(l.input)) expect(line[header.indexOf(k)]).toBe(v)
    expect(line.slice(header.indexOf('row'), header.indexOf('row') + 2)).toEqual([String(l.row), String(l.status)])
  }
  if (l.error) {
    expect(lines.length, where).toBe(1)
    expect(cell(lines[0]!, 'error_code')).toBe(l.error.error)
    expect(cell(lines[0]!, 'error_message')).toBe(l.error.message)
    return
  }
  const { [list ?? '']: records, ...rest } = l.result!
  const items = list ? (records as unknown[]) : []
  expect(lines.length, where).toBe(Math.max(1, items.length))
  lines.forEach((line, i) => {
    check(line, list ? rest : l.result, '')
    if (list) expect(cell(line, 'item')).toBe(items.length ? String(i + 1) : '')
    if (list && items.length) check(line, items[i], list)
  })
}

describe('a 10,000-row CSV job of each operation', () => {
  for (const operation of JOB_OPERATIONS)
    it(`${operation}: completes, and sampled rows equal the online answers`, { timeout: 240_000 }, async () => {
      const res = await submit(operation, csvFor(operation, 10_000))
      expect(res.status, await res.clone().text()).toBe(202)
      const made = await json(res)
      expect(made).toMatchObject({ status: 'queued', rows: 10_000, operation })
      expect(res.headers.get('Location')).toBe(`/api/v1/jobs/${made.id}`)
      const csvUrl = `/api/v1/jobs/${made.id}/results`
      // while the job is queued or runs: the CSV's header, as it stays
      const before = await t.get(csvUrl, key, { Accept: 'text/csv' })
      expect(['queued', 'running']).toContain(before.headers.get('Job-Status'))
      expect(before.headers.get('Accept-Ranges')).toBe('none')
      const header = parse(await before.text()) as string[][]
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
      // the same results flattened: the same header, and the sampled rows' values
      const csv = await t.get(csvUrl, key, { Accept: 'text/csv' })
      expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
      const table = parse(await csv.text()) as string[][]
      expect(table[0]).toEqual(header[0])
      const rowAt = table[0]!.indexOf('row')
      const byRow = new Map<number, string[][]>()
      for (const line of table.slice(1)) {
        const n = Number(line[rowAt])
        byRow.set(n, [...(byRow.get(n) ?? []), line])
      }
      expect(byRow.size).toBe(10_000)
      for (let i = 0; i < 10_000; i += 97)
        expectCsvOf(table[0]!, byRow.get(lines[i].row)!, lines[i], CSV_LIST[operation] ?? null)
    })
})
