import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
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

async function main(argv: string[]): Promise<number> {
  const dir = argv.find((a) => !a.startsWith('-'))
  if (!dir) {
    console.error('usage: npm run verify -- DATASET_DIR')
    return 2
  }
  try {
    const problems = await verifyDataset(dir)
    if (problems.length) {
      for (const p of problems) console.error(`BAD ${p}`)
      return 1
    }
    console.log(`ok: every file of ${dir} matches its manifest`)
    return 0
  } catch (err) {
    console.error(`verify: ${(err as Error).message}`)
    return 1
  }
}

if (process.argv[1] && /verify\.(js|ts)$/.test(process.argv[1]))
  main(process.argv.slice(2)).then((code) => process.exit(code))
