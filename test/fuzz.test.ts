/**
 * Property-based fuzzing of every operation of the served OpenAPI document (docs/architecture.md
 * "Fuzzing"): requests generated with fast-check from the document (test/fuzz/arbitraries.ts),
 * sent in process; every answer must be no 5xx, a tile or JSON, every error in the envelope
 * with a PascalCase code, and within its time bound (test/fuzz/oracle.ts, run.ts).
 *
 * `npm test` runs a fixed seed and count; `npm run fuzz -- --seed S --count N` any other. A
 * failure prints the request (and a curl command) and the seed and path that replay it.
 */
import { writeFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, inject, it } from 'vitest'
import { anyRequest, type FuzzRequest } from './fuzz/arbitraries.js'
import { answerProblems } from './fuzz/oracle.js'
import { describeRequest } from './fuzz/replay.js'
import { learnLists } from './fuzz/hints.js'
import { readSamples } from './fuzz/samples.js'
import { operationsOf } from './fuzz/spec.js'
import { boundOf, send, settingsFromEnv } from './fuzz/run.js'
import { json, makeTestApp } from './helpers.js'

const settings = settingsFromEnv()
const t = makeTestApp()
const keys = {
  key: t.issue().key,
  narrow: t.issue({ products: ['plots'], countries: ['BOTSWANA'], ratePerMinute: 100_000 }).key,
}

/** The statuses seen per operation, and each operation's slowest answer, for the report of a long run. */
const seen = new Map<string, { statuses: Map<number, number>; slowest: number }>()
function record(r: FuzzRequest, status: number, ms: number): void {
  const s = seen.get(r.op) ?? { statuses: new Map(), slowest: 0 }
  s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1)
  s.slowest = Math.max(s.slowest, ms)
  seen.set(r.op, s)
}

describe('fuzz: every operation of the OpenAPI document', () => {
  // a minute for the suite's count; a long run, a generous bound of its own
  const timeout = Math.max(120_000, settings.count * 200)
  it(
    `answers no 5xx, JSON or a tile, errors in the envelope, in time (seed ${settings.seed}, ${settings.count} requests)`,
    async () => {
      const doc = await json(await t.get('/api/v1/openapi.json'))
      const codes = new Set<string>(doc.components.schemas.Error.properties.error.enum)
      const ops = operationsOf(doc)
      expect(ops.length).toBeGreaterThan(30)
      const samples = readSamples(inject('datasetDir'))
      learnLists(ops, samples)
      const requests = anyRequest(ops, samples).map((r) =>
        Object.assign(r, { [fc.toStringMethod]: () => describeRequest(r) }),
      )
      const t0 = performance.now()
      const details = await fc.check(
        fc.asyncProperty(requests, async (r) => {
          const a = await send(t.app, keys, r)
          record(r, a.status, a.ms)
          const problems = answerProblems({ method: r.method, tile: r.tile, boundMs: boundOf(r) }, a, codes)
          // the request itself is printed as the counterexample (its toString above)
          if (problems.length) throw new Error(problems.join('; '))
        }),
        {
          seed: settings.seed,
          numRuns: settings.count,
          path: settings.path,
          endOnFailure: settings.path !== undefined,
        },
      )
      const s = ((performance.now() - t0) / 1000).toFixed(1)
      // the table of statuses for a run of its own (npm run fuzz), one line in the suite
      const table = process.env.FUZZ_COUNT || process.env.FUZZ_SEED ? `\n${summary()}` : ''
      console.log(`fuzz: ${details.numRuns} requests in ${s} s (seed ${settings.seed})${table}`)
      // FUZZ_REPORT: the run's figures as JSON, for the bench suite `fuzz` (bench/suites/fuzz.ts)
      if (process.env.FUZZ_REPORT) writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(report(details, Number(s))))
      if (details.failed) {
        const replay =
          `npm run fuzz -- --seed ${details.seed} --path ${details.counterexamplePath} ` +
          `(or FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} npx vitest run test/fuzz.test.ts)`
        const why = (details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)
        throw new Error(`${fc.defaultReportMessage(details)}\n\nFailure: ${why}\n\nReplay: ${replay}`)
      }
    },
    timeout,
  )
})

/** What a run saw, per operation (FUZZ_REPORT). */
function report(details: { numRuns: number; failed: boolean; errorInstance?: unknown }, seconds: number) {
  return {
    seed: settings.seed,
    requests: details.numRuns,
    seconds,
    failed: details.failed,
    failure: details.failed
      ? String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance)
      : null,
    operations: [...seen.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, o]) => ({ op, statuses: Object.fromEntries(o.statuses), slowestMs: Math.round(o.slowest) })),
  }
}

function summary(): string {
  return [...seen.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, s]) => {
      const statuses = [...s.statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([k, n]) => `${k}×${n}`)
        .join(' ')
      return `  ${op.padEnd(62)} ${statuses}  slowest ${Math.round(s.slowest)} ms`
    })
    .join('\n')
}
