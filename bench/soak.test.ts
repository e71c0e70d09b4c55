/**
 * End to end: `npm run bench -- --only soak` for 18 s (6 windows of 3 s) over the test
 * dataset with 2 workers, every feature on. Asserts what the suite must record whatever the
 * machine's speed: every service of the mix sent and answered without an error, requests in every
 * window at the paced rate, the memory of every process and the heap sampled in every window, and
 * a verdict that is the one its figures give. Whether the verdict passes depends on the machine
 * (a p99 drift in 18 s on a shared VM), so a failing verdict is allowed, never an error.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, inject, it } from 'vitest'
import { WEIGHTS } from './suites/soak/mix.js'
import { type SoakData, soakVerdict } from './suites/soak/report.js'

it('npm run bench --only soak paces the whole mix and records errors, latency and memory per window', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-soak-'))
  try {
    const out = join(dir, 'run.json')
    // biome-ignore format: one flag and its value a line
    const r = spawnSync(process.execPath, [
      resolve('dist/bench.js'),
      '--only', 'soak',
      '--scale', 'tiny',
      '--dataset', inject('datasetDir'),
      '--quick',
      '--soak-minutes', '0.3',
      '--soak-window', '3',
      '--duration', '3',
      '--no-write',
      '--json', out,
    ], { encoding: 'utf8', timeout: 170_000 })
    const { records } = JSON.parse(readFileSync(out, 'utf8'))
    expect(records).toHaveLength(1)
    const d = records[0].data as SoakData
    const roles = d.processes.map((p) => p.role)
    expect(roles).toEqual(['primary', 'worker 1', 'worker 2'])
    // every kind of the mix was seeded from the test dataset, sent and answered
    expect(d.kinds.map((k) => k.kind).sort()).toEqual(Object.keys(WEIGHTS).sort())
    for (const k of d.kinds) expect(k.requests, k.kind).toBeGreaterThan(0)
    expect(d.maxReqPerS).toBeGreaterThan(0)
    expect(d.rate).toBe(Math.round(d.maxReqPerS * 0.8))
    expect(d.windows).toHaveLength(6)
    for (const w of d.windows) {
      expect(w.errors, JSON.stringify(w.errorCauses)).toBe(0)
      // paced: each window holds the requests due in it
      expect(Math.abs(w.requests - d.rate * 3)).toBeLessThanOrEqual(1)
      expect(w.p99Ms).toBeGreaterThanOrEqual(w.p50Ms)
      for (const v of [...w.rssMb, ...w.anonMb]) expect(v).toBeGreaterThan(0)
      expect(w.heapMinMb).toBeGreaterThan(0)
      expect(w.liveHeapMb).toBeGreaterThan(0)
      // the primary's own, apart from the workers'
      expect(w.primaryLiveHeapMb).toBeGreaterThan(0)
      expect(w.primaryLiveHeapMb!).toBeLessThan(w.liveHeapMb!)
    }
    expect(d.verdict).toEqual(soakVerdict(d.windows, roles))
    // the run fails exactly when the verdict does, and for no other reason
    expect(records[0].failures).toEqual(d.verdict.pass ? [] : [`soak: ${d.verdict.reasons.join('; ')}`])
    expect(r.status).toBe(d.verdict.pass ? 0 : 1)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}, 180_000)
