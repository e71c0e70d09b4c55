/**
 * Smoke test of the benchmark runner: the in-process suites run over the test dataset, every
 * agreement check passes and the run's records are written as JSON. Timings are not asserted
 * (performance goals are checked by `npm run bench`, never by tests).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, inject, it } from 'vitest'

it('npm run bench --quick runs the in-process suites (plots, strategies, parcels, parcel-strategies, encumbrances) ' +
  'and reports agreement', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'bench-smoke-')), 'run.json')
  execFileSync(
    process.execPath,
    [
      resolve('dist/bench.js'),
      '--quick',
      '--no-write',
      '--no-http',
      '--only',
      'plots,strategies,parcels,parcel-strategies,encumbrances',
      '--dataset',
      inject('datasetDir'),
      '--json',
      out,
    ],
    { stdio: 'pipe', timeout: 120_000 },
  )
  const { records } = JSON.parse(readFileSync(out, 'utf8'))
  expect(records.map((r: { name: string }) => r.name)).toEqual([
    'plots',
    'strategies',
    'parcels',
    'parcel-strategies',
    'encumbrances',
  ])
  for (const r of records) expect(r.failures).toEqual([])
  const rows = records[1].data.rows as { strategy: string; probes: number; radiusAgree: number; nearestAgree: number }[]
  expect(new Set(rows.map((r) => r.strategy))).toEqual(
    new Set(['kdbush (PointIndex)', 'kdbush + geokdbush around', 'flatbush', 'sqlite r*tree', 'brute force']),
  )
  for (const r of rows) {
    expect(r.probes).toBeGreaterThan(0)
    expect(r.radiusAgree).toBe(r.probes)
    expect(r.nearestAgree).toBe(r.probes)
  }
  // the test dataset holds the hand-made cadastre fixtures: /at and a 1000-point batch ran
  const parcels = records[2].data as { parcels: number; rows: { op: string; variant: string; all: { n: number } }[] }
  expect(parcels.parcels).toBeGreaterThan(0)
  expect(parcels.rows.map((r) => `${r.op} | ${r.variant}`)).toEqual([
    '/at | service',
    '/at | service + answer bytes (as the route)',
    '/at | most specific only (batch item)',
    'batch of 1000 points | service + answer bytes (as the route)',
    'batch of 1000 points | whole handler (app.request, no socket)',
  ])
  for (const r of parcels.rows) expect(r.all.n).toBeGreaterThan(0)
  // lookups by LPI: through the hash index file and SQLite's index on the same probes (the suite
  // fails the run on any differing answer or unexpected status), found and absent LPIs both timed
  const lpi = (
    records[2].data as {
      lpi: {
        found: number
        absent: number
        hashIndex: boolean
        rows: { op: string; variant: string; near: { n: number }; random: { n: number }; meanResults: number }[]
      }
    }
  ).lpi
  expect(lpi.hashIndex).toBe(true)
  expect(lpi.found).toBeGreaterThan(0)
  expect(lpi.absent).toBeGreaterThan(0)
  expect(lpi.rows.map((r) => `${r.op} | ${r.variant}`)).toEqual([
    '/{lpi} | service, LPI hash index',
    '/{lpi} | service, SQLite lpi index (as a dataset without the hash file)',
    '/{lpi} | whole handler (app.request, no socket)',
  ])
  for (const r of lpi.rows) expect(r.near.n * r.random.n).toBeGreaterThan(0)
  // records per lookup: at least one for each found LPI, none for the absent ones
  expect(lpi.rows[0].meanResults).toBeGreaterThanOrEqual(lpi.found / (lpi.found + lpi.absent))
  expect(lpi.rows[1].meanResults).toBe(lpi.rows[0].meanResults)
  // the whole handler counts 200 answers: exactly the found share
  expect(lpi.rows[2].meanResults).toBeCloseTo(lpi.found / (lpi.found + lpi.absent), 10)
  // parcel index strategies: every strategy returns the production id set for every probe
  const ps = records[3].data as {
    parcels: number
    identicalToServed: boolean
    rows: {
      strategy: string
      pipProbes: number
      boxProbes: number
      pipAgree: number
      boxAgree: number
      pip: { n: number }
      box: { n: number }
    }[]
  }
  expect(ps.parcels).toBeGreaterThan(0)
  // both suites count the parcel rows (not beacons or General Plans)
  expect(parcels.parcels).toBe(ps.parcels)
  expect(ps.identicalToServed).toBe(true)
  expect(ps.rows.map((r) => r.strategy)).toEqual([
    'flatbush (production)',
    'service at() / within()',
    'sqlite r*tree',
    'kdbush over box centres',
    'brute force',
  ])
  for (const r of ps.rows) {
    expect(r.pipProbes).toBeGreaterThan(0)
    expect(r.boxProbes).toBeGreaterThan(0)
    expect(r.pipAgree).toBe(r.pipProbes)
    expect(r.boxAgree).toBe(r.boxProbes)
    expect(r.pip.n).toBe(r.pipProbes)
    expect(r.box.n).toBe(r.boxProbes)
  }
  // encumbrances: parcel lookups, /at next to /parcels/at, routes and areas through /intersect,
  // z14 tiles; every answer checked against the queries (a mismatch would be in failures, asserted
  // empty above)
  const enc = records[4].data as {
    skipped?: string
    records: number
    lookupRows: { all: { n: number } }[]
    atRows: { op: string; variant: string; all: { n: number } }[]
    intersectRows: { all: { n: number } }[]
    tiles: { tiles: number } | null
  }
  expect(enc.skipped).toBeUndefined()
  expect(enc.records).toBeGreaterThan(0)
  expect(enc.lookupRows).toHaveLength(4)
  expect(enc.intersectRows).toHaveLength(4)
  expect(enc.atRows.map((r) => `${r.op} | ${r.variant}`)).toEqual([
    '/at | queries only',
    '/at radius 1 km | queries only',
    '/at | whole handler (app.request, no socket)',
    '/parcels/at (same points) | whole handler (app.request, no socket)',
  ])
  for (const r of [...enc.lookupRows, ...enc.atRows, ...enc.intersectRows]) expect(r.all.n).toBeGreaterThan(0)
  expect(enc.tiles?.tiles).toBeGreaterThan(0)
}, 120_000)

it('npm run bench --render rewrites RESULTS.md and the charts from results.json, running nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-render-'))
  mkdirSync(join(dir, 'bench'))
  // the committed results, with one section's figure changed by hand: the page shows the file's figures
  const results = JSON.parse(readFileSync('bench/results.json', 'utf8'))
  results.suites.jobs.data.jobs[0].rowsPerS = 123_456
  writeFileSync(join(dir, 'bench', 'results.json'), JSON.stringify(results))
  const out = execFileSync(process.execPath, [resolve('dist/bench.js'), '--render'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: 'pipe',
    timeout: 30_000,
  })
  const md = readFileSync(join(dir, 'bench', 'RESULTS.md'), 'utf8')
  expect(md).toMatch(/^# Benchmark results\n/)
  expect(md).toContain('| 123,456 |')
  expect(md).toContain(
    readFileSync('bench/RESULTS.md', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('_Measured')),
  )
  expect(readdirSync(join(dir, 'bench')).sort()).toEqual([
    'RESULTS.md',
    'results-http.svg',
    'results-soak.svg',
    'results.json',
  ])
  expect(out).toBe('')
})
