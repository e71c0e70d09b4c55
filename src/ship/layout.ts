/**
 * The published layout (docs/operations.md "Publishing and pulling builds"): what
 * `dataset publish` writes and `dataset pull` reads, a directory any static web server, object
 * store bucket or artifact store serves as it is.
 *
 * ```
 * TARGET/
 *   objects/<sha256>          a file of some build, named by the SHA-256 of its bytes
 *   objects/<sha256>.gz       … or stored gzip- (.gz) or zstd-compressed (.zst); the name is
 *   objects/<sha256>.zst          still the digest of the uncompressed bytes
 *   builds/<build_digest>.json  one build: its manifest.json and every file, each naming its object
 *   latest.json               the build published last: {"build_digest": "…"}
 * ```
 *
 * Objects are immutable: a publish never rewrites one that exists, so a second build shares
 * every unchanged file with the first and adds only its changed ones. `manifest.json` is an
 * object too, so a pulled build is byte-identical to the published one.
 *
 * @module
 */
import { z } from 'zod'
import { buildDigest } from '../data/manifest.js'

export const PUBLISH_FORMAT = 'landdata-published-build'
export const PUBLISH_FORMAT_VERSION = 1
export const LATEST_FILE = 'latest.json'
export const OBJECTS_DIR = 'objects'
export const BUILDS_DIR = 'builds'

export const COMPRESSIONS = ['none', 'gzip', 'zstd'] as const
export type Compression = (typeof COMPRESSIONS)[number]

/** The object file's suffix for each way of storing it. */
export const COMPRESSION_SUFFIX: Record<Compression, string> = { none: '', gzip: '.gz', zstd: '.zst' }

/** A build's directory name: one path segment, not hidden. */
export const BUILD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

/** Why `name` cannot name a build directory, or null when it can. */
export const badBuildName = (name: string): string | null =>
  BUILD_NAME.test(name)
    ? null
    : `'${name}' is not a build name (letters, digits, '.', '_', '-'; not starting with '.' or '-')`

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lowercase hex')

/** One stored object: the digest and size of its uncompressed bytes, how and how large it is stored. */
const ObjectRefSchema = z.object({
  sha256: Sha256,
  size: z.number().int().nonnegative(),
  compression: z.enum(COMPRESSIONS),
  stored_size: z.number().int().nonnegative(),
})
export type ObjectRef = z.infer<typeof ObjectRefSchema>

const PublishedFileSchema = ObjectRefSchema.extend({
  // the manifest's own rule: a dataset-relative path that cannot leave the dataset
  path: z
    .string()
    .regex(/^[a-z0-9_\-./]+$/)
    .refine((p) => !p.includes('..') && !p.startsWith('/'), 'path must stay inside the dataset'),
})
export type PublishedFile = z.infer<typeof PublishedFileSchema>

export const PublishedBuildSchema = z.object({
  format: z.literal(PUBLISH_FORMAT),
  format_version: z.literal(PUBLISH_FORMAT_VERSION),
  build_digest: Sha256,
  /** the directory name `pull` installs it under unless told another */
  name: z.string().regex(BUILD_NAME),
  manifest: ObjectRefSchema,
  files: z.array(PublishedFileSchema),
})
export type PublishedBuild = z.infer<typeof PublishedBuildSchema>

export const LatestSchema = z.object({ build_digest: Sha256 })
export type Latest = z.infer<typeof LatestSchema>

/** The target-relative path of an object. */
export const objectPath = (ref: Pick<ObjectRef, 'sha256' | 'compression'>): string =>
  `${OBJECTS_DIR}/${ref.sha256}${COMPRESSION_SUFFIX[ref.compression]}`

/** The target-relative path of a build's description. */
export const buildPath = (digest: string): string => `${BUILDS_DIR}/${digest}.json`

/** The directory name a pulled build gets by default: `build-` and the digest's first 12 hex digits. */
export const defaultBuildName = (digest: string): string => `build-${digest.slice(0, 12)}`

/**
 * Parses a build description (a `builds/<digest>.json`), checking that its files give its
 * `build_digest` (the manifest's own rule, `buildDigest`) and, when given, that it is the build
 * asked for. Throws one line naming `where`.
 */
export function parsePublishedBuild(text: string, where: string, expected?: string): PublishedBuild {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new Error(`${where} is not JSON: ${(err as Error).message}`)
  }
  const r = PublishedBuildSchema.safeParse(raw)
  if (!r.success)
    throw new Error(
      `${where} is not a published build: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    )
  const b = r.data
  if (expected !== undefined && b.build_digest !== expected)
    throw new Error(`${where} describes build ${b.build_digest}, not ${expected}`)
  if (buildDigest(b.files) !== b.build_digest)
    throw new Error(`${where}: its files do not give its build_digest ${b.build_digest} (damaged or edited)`)
  return b
}

/** Parses `latest.json`; throws one line naming `where`. */
export function parseLatest(text: string, where: string): Latest {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new Error(`${where} is not JSON: ${(err as Error).message}`)
  }
  const r = LatestSchema.safeParse(raw)
  if (!r.success) throw new Error(`${where} does not name a build: ${r.error.issues[0]?.message}`)
  return r.data
}
