import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { runMain } from '../src/cli/run.js'
import type { CommandSpec } from '../src/cli/spec.js'
import { readManifest } from '../src/data/open-dataset.js'
import { sha256File } from './write/dataset-writer.js'

/** Checks every file of a dataset against its manifest; returns the problems found. */
export async function verifyDataset(dir: string): Promise<string[]> {
  const problems: string[] = []
  const manifest = readManifest(dir)
  for (const f of manifest.files) {
    const p = join(dir, f.path)
    if (!existsSync(p)) {
      problems.push(`${f.path}: missing`)
      continue
    }
    const size = statSync(p).size
    if (size !== f.size) {
      problems.push(`${f.path}: size ${size}, manifest says ${f.size}`)
      continue
    }
    if ((await sha256File(p)) !== f.sha256) problems.push(`${f.path}: sha256 does not match the manifest`)
  }
  return problems
}

/** `npm run verify -- DATASET_DIR`, on the shared parser (src/cli/). */
const VERIFY_CLI: CommandSpec = {
  name: 'verify',
  summary: 'Check every file of a dataset against its manifest (size and SHA-256).',
  positionals: [{ name: 'DATASET_DIR', required: true, description: 'a dataset folder (holds manifest.json)' }],
  examples: ['verify data/datasets/sample'],
  notes: 'Exit codes: 0 every file matches, 1 a file is missing or differs (each named on stderr), 2 usage error.',
}

if (process.argv[1] && /verify\.(js|ts)$/.test(process.argv[1]))
  runMain(
    VERIFY_CLI,
    async ({ positionals: [dir] }) => {
      const problems = await verifyDataset(dir)
      if (problems.length) {
        for (const p of problems) console.error(`BAD ${p}`)
        return 1
      }
      console.log(`ok: every file of ${dir} matches its manifest`)
      return 0
    },
    { exit: true },
  )
