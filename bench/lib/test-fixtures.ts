/**
 * What the bench's own tests share: a load run's result made by hand, and a run of the bench
 * command over the test dataset with its records read back. Test-only: no suite imports it.
 *
 * @module
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { LoadResult } from './load.js'
import type { SuiteRecord } from './suite.js'

/** A wrk result of a 10 s run at `reqPerS` with these latencies. */
export const loadResult = (
  reqPerS: number,
  connections: number,
  p50Ms: number,
  p99Ms: number,
  errors = 0,
): LoadResult => ({
  tool: 'wrk',
  connections,
  durationS: 10,
  requests: reqPerS * 10,
  reqPerS,
  p50Ms,
  p99Ms,
  meanMs: p50Ms,
  errors,
  non2xx: 0,
})

/** Runs `node dist/bench.js ...args --no-write --json FILE`; its exit status, stderr and records. */
export function runBench(
  args: string[],
  timeoutMs: number,
): { status: number | null; stderr: string; records: SuiteRecord[] } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-run-'))
  try {
    const out = join(dir, 'run.json')
    const r = spawnSync(process.execPath, [resolve('dist/bench.js'), ...args, '--no-write', '--json', out], {
      encoding: 'utf8',
      timeout: timeoutMs,
    })
    const { records } = JSON.parse(readFileSync(out, 'utf8')) as { records: SuiteRecord[] }
    return { status: r.status, stderr: r.stderr, records }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
