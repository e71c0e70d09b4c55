// `npm run fuzz -- --seed S --count N [--path P]`: the property-based fuzz of test/fuzz.test.ts
// with another seed and count than the suite's (a long run), or `--path` to replay a failure
// the fuzz printed. It runs that one test file with vitest, which builds the test dataset first
// (test/global-setup.ts). docs/architecture.md "Fuzzing".
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const USAGE =
  'usage: npm run fuzz -- [--seed S] [--count N] [--path P]   (S, N whole numbers; P as printed by a failure)'

const env = { ...process.env }
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split(/=(.*)/s)
  const value = inline ?? args[++i]
  const name = { '--seed': 'FUZZ_SEED', '--count': 'FUZZ_COUNT', '--path': 'FUZZ_PATH' }[flag]
  if (flag === '--help' || flag === '-h') {
    console.log(USAGE)
    process.exit(0)
  }
  if (!name || value === undefined || !(name === 'FUZZ_PATH' ? /^\d+(:\d+)*$/ : /^\d+$/).test(value)) {
    console.error(`fuzz: ${value === undefined ? `${flag} needs a value` : `cannot read ${flag} ${value}`}\n${USAGE}`)
    process.exit(2)
  }
  env[name] = value
}

// vitest's own launcher, next to its package.json (no npx: the one this project installed)
const require = createRequire(import.meta.url)
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs')
const r = spawnSync(process.execPath, [vitest, 'run', 'test/fuzz.test.ts'], { stdio: 'inherit', env })
process.exit(r.status ?? 1)
