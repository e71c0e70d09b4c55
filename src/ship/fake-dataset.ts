/**
 * For the unit tests of src/ship/: a small dataset directory with a valid manifest (schema,
 * format version, build digest) over files of arbitrary bytes, which is all publish and pull
 * read (the server's header checks are not theirs).
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import {
  buildDigest,
  DATASET_FORMAT_VERSION,
  MANIFEST_FILE,
  type Manifest,
  stringifyManifest,
} from '../data/manifest.js'

/** Writes `files` (path → bytes) and their manifest into `dir`; returns the manifest. */
export function writeFakeDataset(dir: string, files: Record<string, string | Buffer>): Manifest {
  const listed = Object.entries(files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, bytes]) => {
      const p = join(dir, path)
      mkdirSync(dirname(p), { recursive: true })
      writeFileSync(p, bytes)
      const buf = Buffer.from(bytes)
      return { path, kind: 'u8' as const, size: buf.length, sha256: createHash('sha256').update(buf).digest('hex') }
    })
  const manifest: Manifest = {
    format: 'landdata-dataset',
    format_version: DATASET_FORMAT_VERSION,
    tool: { name: 'test', version: '0' },
    domains: {},
    files: listed,
    build_digest: buildDigest(listed),
  }
  writeFileSync(join(dir, MANIFEST_FILE), stringifyManifest(manifest))
  return manifest
}
