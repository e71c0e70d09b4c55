/**
 * `npm run bench -- --scale tiny|sample|national [--only NAME[,NAME]] [--quick] [--seed N]`
 *
 * Generates and builds `bench/.work/<scale>/` when absent (reused otherwise), runs the suites in
 * bench/suites/ over it, and rewrites bench/RESULTS.md, bench/results.json and the charts.
 * Exits non-zero when a check fails (strategies disagree, an HTTP error, a soak or jobs verdict), never for speed
 * alone.
 *
 * Internal modes, used by the bench itself: `__build SOURCE OUT [REUSE]` (the measured dataset build)
 * and `__hello PORT WORKERS [ANSWERS]` (the hello-world floor, or the same-bytes floor).
 *
 * @module
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Values } from '../src/cli/args.js'
import { runCli, stdio } from '../src/cli/run.js'
import { type CommandSpec, UsageError } from '../src/cli/spec.js'
import { closest } from '../src/cli/suggest.js'
import { describeDataset, ensureDataset, runChildBuild } from './lib/dataset.js'
import { runHello } from './lib/hello.js'
import { cpuCheckMs, machineInfo } from './lib/machine.js'
import { loadResults, writeReport } from './lib/report.js'
import type { BenchOptions, SuiteRecord } from './lib/suite.js'
import { PENDING, SUITES } from './suites/index.js'

const SCALES = ['tiny', 'sample', 'national'] as const

const BENCH_CLI: CommandSpec = {
  name: 'bench',
  summary: 'Benchmark queries and HTTP over a built dataset; rewrite bench/RESULTS.md.',
  description:
    'Exits non-zero when a check fails (strategies disagree, an HTTP error, a soak or jobs verdict), never for speed alone.',
  options: {
    scale: {
      type: 'string',
      choices: SCALES,
      default: 'sample',
      description: 'dataset size; generated and built under bench/.work/<scale>/ if absent',
    },
    only: {
      type: 'string',
      value: 'NAME[,NAME]',
      description: `run only these suites; the others keep their numbers in RESULTS.md\n(${SUITES.map((s) => s.name).join(', ')})`,
    },
    quick: {
      type: 'boolean',
      description: 'small probe sets and ~1 s HTTP runs (a smoke test, numbers not meaningful)',
    },
    seed: {
      type: 'string',
      value: 'N',
      default: '1',
      description: 'seed of the probe sets (the dataset itself always uses seed 1)',
    },
    tool: {
      type: 'string',
      choices: ['auto', 'wrk', 'autocannon'],
      default: 'auto',
      description: 'HTTP load generator (auto: wrk when installed)',
    },
    duration: {
      type: 'string',
      value: 'S',
      description: "seconds per HTTP load run (default 10, quick 1); the soak's maximum probe (default 15, quick 3)",
    },
    'soak-minutes': {
      type: 'string',
      value: 'M',
      description: "minutes of the soak's paced run, fractions allowed (default 10, quick 1)",
    },
    'soak-window': {
      type: 'string',
      value: 'S',
      description: "seconds per row of the soak's table and chart (default 60, quick 10)",
    },
    'job-rows': {
      type: 'string',
      value: 'N',
      description: "rows of each operation's job in the jobs suite (default 100000, quick 10000)",
    },
    dataset: {
      type: 'string',
      value: 'DIR',
      description: 'benchmark an existing built dataset instead of bench/.work/<scale>/',
    },
    'no-write': { type: 'boolean', description: 'do not touch RESULTS.md / results.json / charts' },
    rebuild: {
      type: 'boolean',
      description:
        "build bench/.work/<scale>/dataset again from the cached source export\n(the source itself is regenerated when the generator's layers or preset change)",
    },
    'no-http': {
      type: 'boolean',
      description: 'skip the HTTP load runs inside service suites (the http suite itself runs if selected)',
    },
    json: { type: 'string', value: 'FILE', description: "also write this run's suite records to FILE" },
    render: {
      type: 'boolean',
      description:
        'run nothing: rewrite RESULTS.md and the charts from bench/results.json\n(after a change to how a section is written)',
    },
  },
  examples: [
    'bench --scale tiny --quick --no-write',
    'bench --only plots,parcels --scale sample',
    'bench --only soak --scale sample --soak-minutes 2 --no-write',
    'bench --only jobs --scale sample --quick',
  ],
  notes: `Suites:\n${SUITES.map((s) => `  ${s.name.padEnd(12)} ${s.summary}`).join('\n')}`,
}

const t0 = performance.now()
const log = (line: string) =>
  process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`)

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '__build') {
    await runChildBuild(argv[1], argv[2], argv[3])
    return 0
  }
  if (argv[0] === '__hello') {
    runHello(Number(argv[1]), Number(argv[2]), argv[3])
    return -1 // keep serving
  }
  return runCli(BENCH_CLI, argv, stdio, ({ values }) => bench(values))
}

async function bench(values: Values): Promise<number> {
  if (values.render) {
    const dir = resolve('bench')
    for (const f of writeReport(dir, loadResults(resolve(dir, 'results.json')), SUITES, PENDING)) log(`wrote ${f}`)
    return 0
  }
  const scale = values.scale as string
  const seed = values.seed as string
  if (!/^\d+$/.test(seed) || Number(seed) > 0xffffffff) return usage(`--seed must be an unsigned 32-bit integer`)
  const names = values.only
    ? (values.only as string)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : SUITES.map((s) => s.name)
  const unknown = names.filter((n) => !SUITES.some((s) => s.name === n))
  if (unknown.length) {
    const hint = closest(
      unknown[0],
      SUITES.map((s) => s.name),
    )
    return usage(`unknown suite(s) ${unknown.join(', ')}${hint ? `. Did you mean '${hint}'?` : ''}`)
  }
  const durationS = values.duration ? Number(values.duration) : values.quick ? 1 : 10
  if (!(durationS > 0 && durationS <= 120)) return usage('--duration must be between 0 and 120 seconds')
  const soakMinutes = values['soak-minutes'] ? Number(values['soak-minutes']) : values.quick ? 1 : 10
  if (!(soakMinutes > 0 && soakMinutes <= 24 * 60)) return usage('--soak-minutes must be above 0 and at most 1440')
  const soakWindowS = values['soak-window'] ? Number(values['soak-window']) : values.quick ? 10 : 60
  if (!(soakWindowS >= 1 && soakWindowS <= soakMinutes * 60))
    return usage('--soak-window must be at least 1 second and at most the soak (--soak-minutes)')
  const jobRows = values['job-rows'] ? Number(values['job-rows']) : values.quick ? 10_000 : 100_000
  if (!(Number.isInteger(jobRows) && jobRows >= 1 && jobRows <= 1_000_000))
    return usage('--job-rows must be a whole number from 1 to 1000000')
  const opts: BenchOptions = {
    scale,
    quick: values.quick === true,
    seed: Number(seed),
    tool: values.tool as BenchOptions['tool'],
    durationS,
    http: !values['no-http'],
    write: !values['no-write'],
    soak: {
      minutes: soakMinutes,
      windowS: soakWindowS,
      probeS: values.duration ? durationS : values.quick ? 3 : 15,
    },
    jobRows,
  }

  const dataset = values.dataset
    ? describeDataset(resolve(values.dataset as string), scale, null, true)
    : await ensureDataset(scale, log, { rebuild: values.rebuild === true })
  log(
    `dataset ${dataset.scale}: ${dataset.counts.botswana} Botswana plots, ${dataset.counts.south_africa} erven (${dataset.dir})`,
  )

  const records: SuiteRecord[] = []
  const allFailures: string[] = []
  for (const suite of SUITES.filter((s) => names.includes(s.name))) {
    const failures: string[] = []
    const machine = machineInfo()
    const started = performance.now()
    log(`suite ${suite.name}: ${suite.summary}`)
    try {
      const data = await suite.run({
        opts,
        dataset,
        machine,
        log,
        fail: (m) => {
          failures.push(m)
          log(`FAIL ${m}`)
        },
        earlier: records,
      })
      records.push({
        name: suite.name,
        ranAt: new Date().toISOString(),
        durationS: (performance.now() - started) / 1000,
        machine,
        cpuCheckEndMs: cpuCheckMs(),
        dataset: {
          scale: dataset.scale,
          counts: dataset.counts,
          sizeBytes: dataset.sizeBytes,
          ...(dataset.staleCode ? { staleCode: dataset.staleCode } : {}),
        },
        seed: opts.seed,
        quick: opts.quick,
        failures,
        data,
      })
    } catch (err) {
      failures.push(`suite ${suite.name} crashed: ${(err as Error).stack ?? err}`)
      log(`FAIL suite ${suite.name} crashed: ${(err as Error).stack ?? err}`)
    }
    allFailures.push(...failures)
  }

  if (values.json)
    writeFileSync(values.json as string, JSON.stringify({ records, failures: allFailures }, null, 2) + '\n')
  if (!values['no-write']) {
    const dir = resolve('bench')
    const results = loadResults(resolve(dir, 'results.json'))
    for (const r of records) results.suites[r.name] = r
    for (const f of writeReport(dir, results, SUITES, PENDING)) log(`wrote ${f}`)
  }
  if (allFailures.length) {
    log(`${allFailures.length} check(s) failed:`)
    for (const f of allFailures) log(`  ${f}`)
    return 1
  }
  log('all checks passed')
  return 0
}

function usage(message: string): never {
  throw new UsageError(message)
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    process.exit(1)
  },
)
