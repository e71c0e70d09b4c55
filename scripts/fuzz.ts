// `npm run fuzz -- --seed S --count N [--path P]`: the property-based fuzz of test/fuzz.test.ts
// with another seed and count than the suite's (a long run), or `--path` to replay a failure
// the fuzz printed. It runs that one test file with vitest, which builds the test dataset first
// (test/global-setup.ts). docs/architecture.md "Fuzzing".
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { runMain } from '../src/cli/run.js'
import { UsageError } from '../src/cli/spec.js'

/** Each option and the environment variable test/fuzz.test.ts reads it from, with its form. */
const VARS = {
  seed: ['FUZZ_SEED', /^\d+$/],
  count: ['FUZZ_COUNT', /^\d+$/],
  path: ['FUZZ_PATH', /^\d+(:\d+)*$/],
} as const

runMain(
  {
    name: 'fuzz',
    summary: 'Run the property-based fuzz of every OpenAPI operation (test/fuzz.test.ts).',
    description: 'A long run with another seed and count than the test suite, or a replay of a failure.',
    options: {
      seed: { type: 'string', value: 'S', description: 'the random seed (a whole number)' },
      count: { type: 'string', value: 'N', description: 'how many requests (a whole number)' },
      path: { type: 'string', value: 'P', description: 'replay this failure path, as the fuzz printed it' },
    },
    examples: ['fuzz --seed 42 --count 20000', 'fuzz --seed 42 --path 3:1:0'],
    notes: 'Exit codes: those of vitest (0 passed, 1 a property failed), 2 usage error.',
  },
  ({ values }) => {
    const env = { ...process.env }
    for (const [name, [variable, form]] of Object.entries(VARS)) {
      const v = values[name] as string | undefined
      if (v === undefined) continue
      if (!form.test(v)) throw new UsageError(`cannot read --${name} ${v}`)
      env[variable] = v
    }
    // vitest's own launcher, next to its package.json (no npx: the one this project installed)
    const require = createRequire(import.meta.url)
    const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs')
    const r = spawnSync(process.execPath, [vitest, 'run', 'test/fuzz.test.ts'], { stdio: 'inherit', env })
    return r.status ?? 1
  },
)
