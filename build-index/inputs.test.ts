/**
 * INPUTS_VERSION is bumped by hand, so a test holds it to its promise: for the same inputs
 * digest, build-index writes the same files, or a `--reuse` build would link stale ones
 * (docs/operations.md "Building and verifying"). output-digests.json records, per domain of the
 * fixture build (test/global-setup.ts), its inputs digest and a digest of what was built: its
 * files' paths, sizes and SHA-256 and its manifest entry. A change to build-index that changes
 * what it writes for the fixture, without a bump, fails here.
 */
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, inject, it } from 'vitest'
import type { Domain, Manifest } from '../src/data/manifest.js'
import { readManifest } from '../src/data/open-dataset.js'

const RECORD = fileURLToPath(new URL('./output-digests.json', import.meta.url))
const RECORD_AGAIN = 'UPDATE_OUTPUT_DIGESTS=1 npx vitest run build-index/inputs.test.ts'

type Digests = Record<string, { inputs: string; output: string }>

/** What a build wrote for `domain`: the files under `<domain>/` (path, size, SHA-256) and its manifest entry. */
function outputDigest(manifest: Manifest, domain: Domain): string {
  const files = manifest.files.filter((f) => f.path.startsWith(`${domain}/`)).map((f) => [f.path, f.size, f.sha256])
  files.sort((a, b) => (a[0]! < b[0]! ? -1 : 1))
  const text = JSON.stringify({ files, entry: manifest.domains[domain] })
  return createHash('sha256').update(text).digest('hex')
}

describe('INPUTS_VERSION', () => {
  it('is bumped whenever build-index writes other files for the same sources', () => {
    const manifest = readManifest(inject('datasetDir'))
    const domains = Object.keys(manifest.inputs ?? {}).sort() as Domain[]
    expect(domains).toEqual(['encumbrances', 'jurisdiction', 'parcels', 'plots'])
    const now: Digests = Object.fromEntries(
      domains.map((d) => [d, { inputs: manifest.inputs![d]!, output: outputDigest(manifest, d) }]),
    )
    const recorded = JSON.parse(readFileSync(RECORD, 'utf8')) as Digests
    const stale = domains.filter(
      (d) => recorded[d]?.inputs === now[d]!.inputs && recorded[d]!.output !== now[d]!.output,
    )
    expect(
      stale,
      `build-index writes other ${stale.join(', ')} files for the same inputs digest: bump INPUTS_VERSION ` +
        `(build-index/inputs.ts), or a --reuse build links the stale ones; then record the digests again: ${RECORD_AGAIN}`,
    ).toEqual([])
    if (process.env.UPDATE_OUTPUT_DIGESTS) writeFileSync(RECORD, `${JSON.stringify(now, null, 2)}\n`)
    else
      expect(
        now,
        'the inputs digests changed (INPUTS_VERSION bumped, or the synthetic export or test fixtures changed), so ' +
          `this check has nothing to compare with: record them again: ${RECORD_AGAIN}`,
      ).toEqual(recorded)
  })
})
