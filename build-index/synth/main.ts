/**
 * CLI for the synthetic source-export generator (bundled to `dist/synth.js`):
 *
 * ```
 * node dist/synth.js --scale tiny|sample|national --seed N --out DIR [--only plots,erven]
 * ```
 *
 * Thin wrapper: parses arguments and calls {@link runSynth}. Bad arguments print a message and
 * exit with status 2.
 *
 * @module
 */
import { parseArgs } from 'node:util'
import { LAYERS } from './layers/index.js'
import { SCALE_NAMES } from './scales.js'
import { runSynth, SynthUsageError } from './synth.js'

const USAGE = `usage: node dist/synth.js --scale ${SCALE_NAMES.join('|')} --seed N --out DIR [--only ${LAYERS.map((l) => l.name).join(',')}]

  --scale   size preset (default sample)
  --seed    unsigned 32-bit integer; the same seed gives byte-identical files (default 1)
  --out     output folder, written in the docs/source-formats.md layout (required)
  --only    comma-separated layers to write:
${LAYERS.map((l) => `              ${l.name.padEnd(8)} ${l.description}`).join('\n')}

Reads data/real/ under the working directory, or under LANDDATA_ROOT when set.`

function fail(message: string): never {
  process.stderr.write(`synth: ${message}\n\n${USAGE}\n`)
  process.exit(2)
}

async function main(argv: string[]): Promise<void> {
  let values: { scale?: string; seed?: string; out?: string; only?: string; help?: boolean }
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        scale: { type: 'string', default: 'sample' },
        seed: { type: 'string', default: '1' },
        out: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (err) {
    fail((err as Error).message)
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (!values.out) fail('--out DIR is required')
  if (!/^\d+$/.test(values.seed ?? '')) fail(`--seed must be a non-negative integer, got "${values.seed}"`)
  try {
    await runSynth({
      scale: values.scale ?? 'sample',
      seed: Number(values.seed),
      out: values.out,
      only: values.only?.split(','),
      log: (line) => process.stdout.write(`${line}\n`),
    })
  } catch (err) {
    if (err instanceof SynthUsageError) fail(err.message)
    throw err
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // the message names the problem (a missing file, a full disk); the stack only on request
  const detail = err instanceof Error ? (process.env.DEBUG ? (err.stack ?? err.message) : err.message) : String(err)
  process.stderr.write(`synth: ${detail}\n`)
  process.exit(1)
})
