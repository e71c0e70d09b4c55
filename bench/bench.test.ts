/**
 * Smoke test of the benchmark runner: the in-process suites run over the test dataset, every
 * agreement check passes and the run's records are written as JSON. Timings are not asserted
 * (performance goals are checked by `npm run bench`, never by tests).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, inject, it } from 'vitest'

it('npm run bench --quick runs the in-process suites (plots, strategies, parcels) and reports agreement', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'bench-smoke-')), 'run.json')
  execFileSync(
    process.execPath,
    [resolve('dist/bench.js'), '--quick', '--no-write', '--no-http', '--only', 'plots,strategies,parcels', '--dataset', inject('datasetDir'), '--json', out],
    { stdio: 'pipe', timeout: 120_000 },
  )
  const { records } = JSON.parse(readFileSync(out, 'utf8'))
  expect(records.map((r: { name: string }) => r.name)).toEqual(['plots', 'strategies', 'parcels'])
  for (const r of records) expect(r.failures).toEqual([])
  const rows = records[1].data.rows as { strategy: string; probes: number; radiusAgree: number; nearestAgree: number }[]
  expect(new Set(rows.map((r) => r.strategy))).toEqual(new Set(['kdbush (PointIndex)', 'kdbush + geokdbush around', 'flatbush', 'sqlite r*tree', 'brute force']))
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
    '/at | most specific only (batch item)',
    'batch of 1000 points | service + JSON answer',
    'batch of 1000 points | whole handler (app.request, no socket)',
  ])
  for (const r of parcels.rows) expect(r.all.n).toBeGreaterThan(0)
}, 120_000)
