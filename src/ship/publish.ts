/**
 * `dataset publish DATASET_DIR TARGET_DIR` (layout.ts): copies a built dataset into the
 * published layout, writing only the objects the target lacks, each to a temporary name then
 * renamed, so a reader (or a publish interrupted halfway) never sees a partial object; then the
 * build's description, then `latest.json`, so a build is listed only once all its objects are.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip, createZstdCompress } from 'node:zlib'
import { digestMismatch, sha256File } from '../data/file-hash.js'
import { MANIFEST_FILE } from '../data/manifest.js'
import { readManifest } from '../data/open-dataset.js'
import {
  buildPath,
  COMPRESSIONS,
  type Compression,
  defaultBuildName,
  LATEST_FILE,
  OBJECTS_DIR,
  type ObjectRef,
  objectPath,
  PUBLISH_FORMAT,
  PUBLISH_FORMAT_VERSION,
  type PublishedBuild,
} from './layout.js'

export interface PublishOptions {
  /** how new objects are stored (default none); an object that would not shrink is stored as it is */
  compression?: Compression
  /** the name pull installs it under by default (default build-<digest…>) */
  name?: string
  /** one line per object written or found */
  log?: (line: string) => void
}

export interface PublishResult {
  build: PublishedBuild
  /** objects written by this publish, and their stored bytes */
  written: number
  bytesWritten: number
  /** objects the target held already */
  reused: number
  /** the stored bytes of every object of the build */
  bytesTotal: number
}

/** The stored form of an object the target holds already, in any compression, or null. */
export function findObject(target: string, sha256: string, size: number): ObjectRef | null {
  for (const compression of COMPRESSIONS) {
    const p = join(target, objectPath({ sha256, compression }))
    if (existsSync(p)) return { sha256, size, compression, stored_size: statSync(p).size }
  }
  return null
}

/** Counts and hashes the bytes that pass through. */
function hashing(h: ReturnType<typeof createHash>): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      h.update(chunk)
      done(null, chunk)
    },
  })
}

const compressor = (c: Compression) =>
  c === 'gzip' ? createGzip({ level: 6 }) : c === 'zstd' ? createZstdCompress() : null

/**
 * Stores `file` as an object of `target` (temporary name, then renamed), checking on the way
 * that its bytes are the manifest's (`sha256`, `size`). Stored uncompressed when compressing
 * does not make it smaller.
 */
async function storeObject(
  file: string,
  target: string,
  want: { sha256: string; size: number },
  compression: Compression,
): Promise<ObjectRef> {
  const tmp = join(target, OBJECTS_DIR, `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`)
  try {
    const h = createHash('sha256')
    const z = compressor(compression)
    const read = createReadStream(file, { highWaterMark: 1 << 20 })
    if (z) await pipeline(read, hashing(h), z, createWriteStream(tmp))
    else await pipeline(read, hashing(h), createWriteStream(tmp))
    const sha = h.digest('hex')
    if (sha !== want.sha256) throw new Error(digestMismatch(file))
    let stored = compression
    let storedSize = statSync(tmp).size
    if (compression !== 'none' && storedSize >= want.size) {
      // not worth it (an already compressed file): the bytes as they are
      await pipeline(createReadStream(file), createWriteStream(tmp))
      stored = 'none'
      storedSize = want.size
    }
    const ref: ObjectRef = { sha256: want.sha256, size: want.size, compression: stored, stored_size: storedSize }
    renameSync(tmp, join(target, objectPath(ref)))
    return ref
  } finally {
    rmSync(tmp, { force: true })
  }
}

/** Writes `text` to `target/rel` through a temporary name and a rename. */
export async function writeAtomically(target: string, rel: string, text: string): Promise<void> {
  const p = join(target, rel)
  const tmp = `${p}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`
  try {
    await writeFile(tmp, text)
    renameSync(tmp, p)
  } finally {
    rmSync(tmp, { force: true })
  }
}

/** Publishes the dataset `dir` into `target` (created when missing). */
export async function publishDataset(dir: string, target: string, opts: PublishOptions = {}): Promise<PublishResult> {
  const log = opts.log ?? (() => {})
  // the manifest's own checks: schema, format version, build_digest over its file list
  const manifest = readManifest(dir)
  if (!manifest.build_digest)
    throw new Error(`${dir} has no build_digest (built before it existed): rebuild it to publish it`)
  const digest = manifest.build_digest
  const compression = opts.compression ?? 'none'
  mkdirSync(join(target, OBJECTS_DIR), { recursive: true })
  mkdirSync(join(target, 'builds'), { recursive: true })
  let written = 0
  let bytesWritten = 0
  let reused = 0
  let bytesTotal = 0
  const place = async (file: string, want: { sha256: string; size: number }, label: string): Promise<ObjectRef> => {
    const have = findObject(target, want.sha256, want.size)
    const ref = have ?? (await storeObject(file, target, want, compression))
    if (have) reused++
    else {
      written++
      bytesWritten += ref.stored_size
    }
    bytesTotal += ref.stored_size
    log(`${have ? 'present' : 'written'} ${label} ${objectPath(ref)} (${ref.stored_size} bytes)`)
    return ref
  }
  const files: PublishedBuild['files'] = []
  for (const f of manifest.files) files.push({ path: f.path, ...(await place(join(dir, f.path), f, f.path)) })
  const manifestFile = join(dir, MANIFEST_FILE)
  const manifestRef = await place(
    manifestFile,
    { sha256: await sha256File(manifestFile), size: statSync(manifestFile).size },
    MANIFEST_FILE,
  )
  const build: PublishedBuild = {
    format: PUBLISH_FORMAT,
    format_version: PUBLISH_FORMAT_VERSION,
    build_digest: digest,
    name: opts.name ?? defaultBuildName(digest),
    manifest: manifestRef,
    files,
  }
  await writeAtomically(target, buildPath(digest), `${JSON.stringify(build, null, 1)}\n`)
  await writeAtomically(target, LATEST_FILE, `${JSON.stringify({ build_digest: digest })}\n`)
  log(`published ${basename(dir)} as ${buildPath(digest)}`)
  return { build, written, bytesWritten, reused, bytesTotal }
}
