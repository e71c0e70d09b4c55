/**
 * The inputs digest of each dataset domain: what `build-index --reuse` compares to decide that a
 * domain of a previous build can be linked instead of rebuilt (docs/operations.md "Building and
 * verifying"). A domain's digest covers the code/format version, its export.json entry, and the
 * path, size and bytes of every source file the domain reads; the encumbrance digest also covers
 * the parcel digest, since the overlap pass reads the built parcel files.
 */
import { createHash, type Hash } from 'node:crypto'
import { createReadStream, readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { DATASET_FORMAT_VERSION, type Domain, EXPORT_KEY } from '../src/data/manifest.js'
import type { ExportJson } from './sources/export-json.js'
import { findLayerFile } from './sources/read-layer.js'
import { TOOL_VERSION } from './write/dataset-writer.js'

/**
 * Part of every digest. Bump it (or TOOL_VERSION) with any change to build-index that changes what
 * a domain's files hold for the same sources, or --reuse would link stale files; inputs.test.ts
 * fails when the fixture build's output changes without a bump (then record output-digests.json
 * again, as it says).
 */
export const INPUTS_VERSION = `build-index ${TOOL_VERSION}; dataset format ${DATASET_FORMAT_VERSION}; inputs 6`

/** Every file under `dir`, recursively (none when it does not exist). */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
  } catch {
    return []
  }
}

/** The files directly in `dir` (none when it does not exist). */
function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(dir, e.name))
  } catch {
    return []
  }
}

/**
 * The source files a domain's build reads, absolute. Generous rather than exact: a whole folder
 * where the builder picks files from it, so a file it might read is never left out.
 */
export function domainInputFiles(source: string, domain: Domain): string[] {
  const sa = join(source, 'south_africa')
  switch (domain) {
    case 'plots':
      // botswana/plots.* and south_africa/erven.*; without an erven layer, the cadastre's erf layers
      // (build-plots.ts deriveErvenFromCadastre)
      return [
        ...filesUnder(join(source, 'botswana')),
        ...filesIn(sa),
        ...(findLayerFile(sa, 'erven') ? [] : filesUnder(join(sa, 'cadastre'))),
      ]
    case 'parcels':
      return filesUnder(join(sa, 'cadastre'))
    case 'encumbrances':
      return filesUnder(join(sa, 'encumbrances'))
    case 'jurisdiction':
      return filesUnder(join(sa, 'boundaries'))
  }
}

async function hashFile(h: Hash, path: string): Promise<void> {
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer)
}

/**
 * The inputs digest of one domain: SHA-256 over INPUTS_VERSION, the domain, its export.json entry,
 * `extra` (the parcel digest for the encumbrances), then per source file in path order its path
 * relative to the source (with `/`), size and bytes.
 */
export async function domainInputsDigest(
  source: string,
  exports: ExportJson,
  domain: Domain,
  extra = '',
): Promise<string> {
  const h = createHash('sha256')
  const entry = exports[EXPORT_KEY[domain] as keyof ExportJson] ?? null
  h.update(`${INPUTS_VERSION}\n${domain}\n${JSON.stringify(entry)}\n${extra}\n`)
  const files = domainInputFiles(source, domain)
    .map((abs) => ({ abs, rel: relative(source, abs).split(sep).join('/') }))
    .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
  for (const f of files) {
    h.update(`${f.rel}\t${statSync(f.abs).size}\n`)
    await hashFile(h, f.abs)
  }
  return h.digest('hex')
}
