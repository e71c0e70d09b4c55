/**
 * Smoke test of the boundary point-in-polygon strategies over the test dataset: every strategy
 * answers every point with the same boundary as grid + banded, and that is the service's ward.
 * Timings are not asserted.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, inject, it } from 'vitest'
import type { BoundaryStrategiesData } from './suites/boundary-strategies.js'

it('npm run bench --quick --only boundary-strategies: every strategy gives every point the production boundary', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'bench-boundary-')), 'run.json')
  execFileSync(
    process.execPath,
    [
      resolve('dist/bench.js'),
      '--quick',
      '--no-write',
      '--only',
      'boundary-strategies',
      '--dataset',
      inject('datasetDir'),
      '--json',
      out,
    ],
    {
      stdio: 'pipe',
      timeout: 120_000,
    },
  )
  const { records } = JSON.parse(readFileSync(out, 'utf8'))
  expect(records.map((r: { name: string }) => r.name)).toEqual(['boundary-strategies'])
  expect(records[0].failures).toEqual([])
  const d = records[0].data as BoundaryStrategiesData
  expect(d.notMeasured).toBeUndefined()
  expect(new Set(d.rows.map((r) => r.layer))).toEqual(new Set(['ward', 'local_municipality']))
  expect(new Set(d.rows.map((r) => r.strategy))).toEqual(
    new Set([
      'grid + banded (production)',
      'flatbush + banded',
      'flatbush + ray-cast',
      'sqlite r*tree + ray-cast',
      'brute force',
    ]),
  )
  for (const r of d.rows) {
    expect(r.probes).toBe(d.probes)
    expect(r.t.n).toBe(d.probes)
    expect(r.agree + r.edgeCases).toBe(r.probes)
    expect(r.found).toBeGreaterThan(0)
  }
  // the on-edge points exercised the lowest-code rule
  expect(d.kinds.onEdge).toBeGreaterThan(0)
  expect(d.ties.ward).toBeGreaterThan(0)
  expect(d.service?.agree).toBe(d.probes)
}, 120_000)
