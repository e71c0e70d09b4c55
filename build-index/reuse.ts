/**
 * `build-index --reuse PREVIOUS_BUILD`: links the files of a domain whose inputs digest
 * (inputs.ts) equals the one the previous build recorded, instead of rebuilding it
 * (docs/operations.md "Building and verifying"). A domain's files are those under `<domain>/`.
 */
import { copyFileSync, linkSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type Domain, MANIFEST_FILE, type Manifest, ManifestSchema } from '../src/data/manifest.js'
import type { DatasetWriter } from './write/dataset-writer.js'

/** A previous build to reuse domains from: its directory and its validated manifest. */
export interface PreviousBuild {
  dir: string
  manifest: Manifest
}

/** Reads the manifest of a previous build. @throws an Error naming the file when it is missing or invalid */
export function readPreviousBuild(dir: string): PreviousBuild {
  const file = join(dir, MANIFEST_FILE)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new Error(`--reuse ${dir}: cannot read ${file}: ${(err as Error).message}`)
  }
  const parsed = ManifestSchema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`--reuse ${dir}: ${file} is not a dataset manifest`)
  return { dir, manifest: parsed.data }
}

/**
 * Why a domain of the previous build cannot be reused for `digest`, or null when it can: its
 * recorded digest differs (or is absent), it was not built, its files changed size since, or it
 * kept rejected rows that this build, without --allow-rejects, must report (by rebuilding).
 */
function whyNot(prev: PreviousBuild, domain: Domain, digest: string, allowRejects: boolean): string | null {
  const m = prev.manifest
  const recorded = m.inputs?.[domain]
  if (!recorded) return 'the previous build recorded no inputs digest for it'
  if (recorded !== digest) return 'its inputs changed'
  const entry = m.domains[domain]
  if (!entry) return 'the previous build has no such domain'
  if (!allowRejects && Object.values(entry.layers).some((l) => l.rejected > 0))
    return 'the previous build kept rejected rows of it (--allow-rejects)'
  for (const f of m.files) {
    if (!f.path.startsWith(`${domain}/`)) continue
    let size: number
    try {
      size = statSync(join(prev.dir, f.path)).size
    } catch {
      return `${f.path} is missing from the previous build`
    }
    if (size !== f.size) return `${f.path} changed size in the previous build`
  }
  return null
}

/**
 * Reuses one domain of the previous build when its inputs digest matches: hard-links each of its
 * files into the build (copies when the link fails, e.g. across filesystems, and says so) and
 * copies its manifest entry, sizes and sha256. Returns false, having logged why, when it cannot.
 */
export function reuseDomain(
  prev: PreviousBuild,
  domain: Domain,
  digest: string,
  ds: DatasetWriter,
  allowRejects: boolean,
  log: (line: string) => void,
): boolean {
  const why = whyNot(prev, domain, digest, allowRejects)
  if (why) {
    log(`${domain}: rebuilt: ${why}`)
    return false
  }
  let linked = 0
  let copied = 0
  let linkError = ''
  for (const f of prev.manifest.files) {
    if (!f.path.startsWith(`${domain}/`)) continue
    const from = join(prev.dir, f.path)
    const to = ds.pathOf(f.path)
    try {
      linkSync(from, to)
      linked++
    } catch (err) {
      linkError ||= (err as NodeJS.ErrnoException).code ?? (err as Error).message
      copyFileSync(from, to)
      copied++
    }
    ds.addReused(f)
  }
  ds.setDomain(domain, prev.manifest.domains[domain]!)
  log(
    `${domain}: reused from ${prev.dir} (${linked} files hard-linked` +
      (copied ? `, ${copied} copied because a hard link failed: ${linkError}` : '') +
      ')',
  )
  return true
}
