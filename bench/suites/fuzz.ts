/**
 * A long run of the property-based fuzz (issue 39: "a 100,000-request fuzz run ... reported in
 * bench/RESULTS.md"): test/fuzz.test.ts run by vitest with this run's seed and a count of its
 * own (100,000; 3,000 with `--quick`), its figures read from the JSON it writes (FUZZ_REPORT).
 * The fuzz sends its requests in process to the app over the test dataset that vitest's global
 * setup builds (test/global-setup.ts), whatever `--scale` says: what it measures is that no
 * request of any shape is a 5xx or leaves the envelope, not speed. Any failure fails the run,
 * with the replay line the fuzz printed.
 *
 * @module
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fmt } from '../lib/stats.js'
import type { Suite, SuiteRecord } from '../lib/suite.js'

/** Requests of a full run, and of `--quick`. */
export const FUZZ_COUNT = 100_000
export const FUZZ_QUICK_COUNT = 3_000

/** What test/fuzz.test.ts writes to FUZZ_REPORT. */
export interface FuzzData {
  seed: number
  requests: number
  seconds: number
  failed: boolean
  failure: string | null
  operations: { op: string; statuses: Record<string, number>; slowestMs: number }[]
}

/** Answers by status class over every operation. */
export function byClass(d: FuzzData): Record<'2xx' | '3xx' | '4xx' | '5xx', number> {
  const out = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 }
  for (const o of d.operations)
    for (const [status, n] of Object.entries(o.statuses)) {
      const k = `${String(status)[0]}xx` as keyof typeof out
      if (k in out) out[k] += n
    }
  return out
}

export const fuzzSuite: Suite<FuzzData> = {
  name: 'fuzz',
  title: 'Fuzz: every operation of the OpenAPI document, a long run',
  summary: `the property-based fuzz of npm test with ${fmt(FUZZ_COUNT, 0)} requests (quick: ${fmt(FUZZ_QUICK_COUNT, 0)})`,
  async run(ctx) {
    const count = ctx.opts.quick ? FUZZ_QUICK_COUNT : FUZZ_COUNT
    const dir = mkdtempSync(join(tmpdir(), 'bench-fuzz-'))
    const file = join(dir, 'report.json')
    try {
      const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')
      ctx.log(`fuzz: ${fmt(count, 0)} requests, seed ${ctx.opts.seed} (vitest runs test/fuzz.test.ts) …`)
      const r = spawnSync(process.execPath, [vitest, 'run', 'test/fuzz.test.ts'], {
        env: { ...process.env, FUZZ_SEED: String(ctx.opts.seed), FUZZ_COUNT: String(count), FUZZ_REPORT: file },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      })
      let data: FuzzData
      try {
        data = JSON.parse(readFileSync(file, 'utf8')) as FuzzData
      } catch {
        throw new Error(`the fuzz wrote no report (exit ${r.status}):\n${(r.stdout + r.stderr).slice(-4000)}`)
      }
      const classes = byClass(data)
      ctx.log(`fuzz: ${fmt(data.requests, 0)} requests in ${data.seconds} s, 5xx ${classes['5xx']}`)
      if (data.failed) ctx.fail(`the fuzz failed: ${data.failure}\n${(r.stdout + r.stderr).slice(-2000)}`)
      if (classes['5xx'] > 0) ctx.fail(`${classes['5xx']} answers were 5xx`)
      return data
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
  render(record: SuiteRecord<FuzzData>) {
    const d = record.data
    const c = byClass(d)
    const verdict =
      d.failed || c['5xx'] > 0
        ? `**Failed**: ${d.failure ?? `${c['5xx']} answers were 5xx`}`
        : `**Passed**: no 5xx, every error in the envelope with its code, every answer within its time bound.`
    const slowest = [...d.operations].sort((a, b) => b.slowestMs - a.slowestMs).slice(0, 5)
    return [
      `${fmt(d.requests, 0)} requests generated from the served OpenAPI document (seed ${d.seed}) by test/fuzz.test.ts ` +
        '(docs/architecture.md "Fuzzing"): valid, boundary and invalid values of every parameter and body field, ' +
        'sent in process to the app over the test dataset. Each answer must be no 5xx, JSON or a tile, every error ' +
        `in the envelope with a PascalCase code, and within its route's time bound. Run time ${d.seconds} s.`,
      '',
      verdict,
      '',
      '| answers | 2xx | 3xx | 4xx | 5xx | operations |',
      '|---|--:|--:|--:|--:|--:|',
      `| all | ${fmt(c['2xx'], 0)} | ${fmt(c['3xx'], 0)} | ${fmt(c['4xx'], 0)} | ${fmt(c['5xx'], 0)} | ${d.operations.length} |`,
      '',
      `Slowest answers: ${slowest.map((o) => `${o.op} ${fmt(o.slowestMs, 0)} ms`).join('; ')}.`,
    ].join('\n')
  },
}
