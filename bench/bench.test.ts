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

it('npm run bench --quick runs the plots and strategies suites and reports agreement', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'bench-smoke-')), 'run.json')
  execFileSync(
    process.execPath,
    [resolve('dist/bench.js'), '--quick', '--no-write', '--only', 'plots,strategies', '--dataset', inject('datasetDir'), '--json', out],
    { stdio: 'pipe', timeout: 120_000 },
  )
  const { records } = JSON.parse(readFileSync(out, 'utf8'))
  expect(records.map((r: { name: string }) => r.name)).toEqual(['plots', 'strategies'])
  for (const r of records) expect(r.failures).toEqual([])
  const rows = records[1].data.rows as { strategy: string; probes: number; radiusAgree: number; nearestAgree: number }[]
  expect(new Set(rows.map((r) => r.strategy))).toEqual(new Set(['kdbush (PointIndex)', 'flatbush', 'sqlite r*tree', 'brute force']))
  for (const r of rows) {
    expect(r.probes).toBeGreaterThan(0)
    expect(r.radiusAgree).toBe(r.probes)
    expect(r.nearestAgree).toBe(r.probes)
  }
}, 120_000)
