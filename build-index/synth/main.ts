/**
 * CLI for the synthetic source-export generator (bundled to `dist/synth.js`, `npm run synth`),
 * on the shared parser (src/cli/): parses the options and calls {@link runSynth}. Bad options
 * print one line and exit with status 2.
 *
 * @module
 */
import { runMain } from '../../src/cli/run.js'
import { UsageError } from '../../src/cli/spec.js'
import { LAYERS } from './layers/index.js'
import { SCALE_NAMES } from './scales.js'
import { runSynth } from './synth.js'

runMain(
  {
    name: 'synth',
    summary: 'Generate realistic source exports on real geography (deterministic).',
    description: `Writes the docs/source-formats.md layout. Reads data/real/ under the working directory,
or under LANDDATA_ROOT when set.`,
    options: {
      scale: { type: 'string', choices: SCALE_NAMES, default: 'sample', description: 'size preset' },
      seed: {
        type: 'string',
        value: 'N',
        default: '1',
        description: 'unsigned 32-bit integer; the same seed gives byte-identical files',
      },
      out: { type: 'string', value: 'DIR', required: true, description: 'output folder' },
      only: {
        type: 'string',
        value: 'LIST',
        description: `comma-separated layers to write:\n${LAYERS.map((l) => `${l.name.padEnd(13)} ${l.description}`).join('\n')}`,
      },
    },
    examples: ['synth --scale tiny --seed 7 --out /tmp/tiny', 'synth --out data/sources/sample --only plots,erven'],
    notes: 'Exit codes: 0 written, 1 failed (a missing input, a full disk), 2 usage error.',
  },
  async ({ values }) => {
    const seed = values.seed as string
    if (!/^\d+$/.test(seed)) throw new UsageError(`--seed must be a non-negative integer, got "${seed}"`)
    await runSynth({
      scale: values.scale as string,
      seed: Number(seed),
      out: values.out as string,
      only: (values.only as string | undefined)?.split(','),
      log: (line) => process.stdout.write(`${line}\n`),
    })
    return 0
  },
)
