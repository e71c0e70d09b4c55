/** `npm run build-index`: source exports -> a dataset (build.ts), on the shared parser (src/cli/). */
import type { CommandSpec } from '../src/cli/spec.js'
import { runMain } from '../src/cli/run.js'
import { formatDuration } from './progress.js'
import { buildDataset } from './build.js'

const BUILD_INDEX_CLI: CommandSpec = {
  name: 'build-index',
  summary: 'Build a dataset from source exports (docs/source-formats.md).',
  description: `Reads the export folder, checks every row, and writes the dataset (SQLite files, indexes,
tiles, manifest.json) to a temporary folder renamed to --out when complete. On a terminal
each step shows a progress bar; on a log, one line per step (and one at most every 15 s on
a long one, with the rate and the time left), then the summary.`,
  options: {
    source: {
      type: 'string',
      value: 'DIR',
      required: true,
      description: 'the source export folder, holding export.json',
    },
    out: { type: 'string', value: 'DIR', required: true, description: 'the dataset folder to write' },
    reuse: {
      type: 'string',
      value: 'PREVIOUS_BUILD',
      description: 'copy each domain whose inputs are unchanged from this earlier build',
    },
    'allow-rejects': {
      type: 'boolean',
      description:
        'build even when rows are rejected (counted in the manifest; a layer\nmay still lose at most a small share of its rows)',
    },
    force: { type: 'boolean', description: 'replace --out when it already holds a dataset' },
  },
  examples: [
    'build-index --source data/sources/sample --out data/datasets/sample',
    'build-index --source /exports/2026-05 --out /data/2026-05 --reuse /data/2026-04',
  ],
  notes: 'Exit codes: 0 built, 1 the build failed (a bad row, a missing file), 2 usage error.',
}

runMain(
  BUILD_INDEX_CLI,
  async ({ values }) => {
    const started = performance.now()
    const out = values.out as string
    const m = await buildDataset({
      source: values.source as string,
      out,
      allowRejects: values['allow-rejects'] as boolean | undefined,
      force: values.force as boolean | undefined,
      reuse: values.reuse as string | undefined,
    })
    const rows = Object.entries(m.domains).map(
      ([d, v]) =>
        `${d}: ${Object.entries(v!.layers)
          .map(([l, s]) => `${l} ${s.rows}`)
          .join(', ')}`,
    )
    const took = formatDuration(performance.now() - started)
    console.error(`built ${out} in ${took} (${m.files.length} files; ${rows.join('; ')})`)
    return 0
  },
  { exit: true },
)
