/**
 * End to end: `npm run bench -- --only jobs` with 200-row jobs and 1 s load runs over the test
 * dataset, 2 workers. Asserts what the suite must record whatever the machine's speed: a job of
 * every operation done with every row, a rate for each, `/parcels/at` alone and with a job
 * without an error, and a verdict that is the one its figures give. Whether the verdict passes
 * depends on the machine (a p99 over 1 s on a shared VM), so a failing verdict is allowed, never
 * an error.
 */
import { inject, expect, it } from 'vitest'
import { JOB_OPERATIONS } from '../src/jobs/operations.js'
import { runBench } from './lib/test-fixtures.js'
import type { JobsData } from './suites/jobs/index.js'
import { onlineVerdict } from './suites/jobs/plan.js'

it('npm run bench --only jobs times a job of each operation, and /parcels/at with and without one', () => {
  // biome-ignore format: one flag and its value a line
  const { records, status, stderr } = runBench([
    '--only', 'jobs',
    '--scale', 'tiny',
    '--dataset', inject('datasetDir'),
    '--quick',
    '--job-rows', '200',
    '--duration', '1',
  ], 110_000)
  expect(records).toHaveLength(1)
  const d = records[0]!.data as JobsData
  expect(d.jobs.map((j) => j.operation)).toEqual([...JOB_OPERATIONS])
  for (const j of d.jobs) {
    expect(j, j.operation).toMatchObject({ rows: 200, status: 'done', rowsDone: 200, capped: false })
    expect(j.rowsPerS, j.operation).toBeGreaterThan(0)
  }
  expect(d.online.map((o) => o.load)).toEqual(['alone', 'with a job'])
  for (const o of d.online) {
    expect(o.result.errors).toBe(0)
    expect(o.result.requests).toBeGreaterThan(0)
  }
  expect(d.online[1]!.job!.operation).toBe('getParcelAt')
  expect(d.verdict).toEqual(onlineVerdict(d.online))
  // the run fails exactly when the verdict does, and for no other reason
  expect(records[0]!.failures.length).toBe(d.verdict!.pass ? 0 : 1)
  expect(status, stderr).toBe(d.verdict!.pass ? 0 : 1)
}, 120_000)
