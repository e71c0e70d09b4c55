/**
 * `dataset pull SOURCE DATASETS_DIR` (docs/operations.md "Publishing and pulling builds"): installs
 * a published build (layout.ts) as `DATASETS_DIR/<name>`, verified and fetching only what the
 * builds already there lack.
 *
 * 1. reads `latest.json` (or takes `--build`), then `builds/<digest>.json`, whose files must give
 *    its digest;
 * 2. works in `DATASETS_DIR/.pull-<digest>.tmp/`: every file a build under DATASETS_DIR holds
 *    (by SHA-256, from its manifest) is hard-linked (copied across filesystems); the rest is
 *    fetched into `.parts/`, resuming what an interrupted pull left there;
 * 3. checks every file's SHA-256 and size (linked ones too: a damaged copy is not spread), the
 *    manifest's own checks (format, `build_digest` over its file list) and that the manifest
 *    lists exactly the published files;
 * 4. renames the directory into place: a build is there whole or not at all.
 *
 * A failure is one line; the served build and the link are untouched. After a network failure
 * or a kill the temporary directory stays, and the next pull of that build resumes it; after a
 * refused file (404, wrong digest, too many bytes) or a full disk it is removed.
 *
 * @module
 */
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { sha256File } from '../data/file-hash.js'
import { MANIFEST_FILE, type ManifestFile } from '../data/manifest.js'
import { readManifest } from '../data/open-dataset.js'
import { pidFileFrom } from '../reload-signal.js'
import { activate } from './activate.js'
import { DEFAULT_RETRY, fetchToPart, IntegrityError, placeVerified, type RetryPolicy, retrying } from './download.js'
import {
  buildPath,
  LATEST_FILE,
  type ObjectRef,
  objectPath,
  parseLatest,
  parsePublishedBuild,
  type PublishedBuild,
} from './layout.js'
import { type PullProgress, SILENT_PROGRESS } from './progress.js'
import { NotFoundError, type Source } from './source.js'

export interface PullOptions {
  /** a build digest, or `latest` (default) */
  build?: string
  /** the directory name under DATASETS_DIR (default: the one the build was published with) */
  name?: string
  /** move this symlink to the build, then signal the server of `pidFile` (when one runs) */
  activate?: string
  /** default: $PID_FILE, else data/server.pid (as `npm run reload`) */
  pidFile?: string
  retry?: RetryPolicy
  progress?: PullProgress
}

export interface PullResult {
  digest: string
  dir: string
  /** already installed: nothing fetched */
  present: boolean
  filesFetched: number
  /** stored bytes received over the source (resumed files count what this run received) */
  bytesFetched: number
  filesLinked: number
  bytesLinked: number
  /** the pid signalled by --activate, null when no server ran or no --activate */
  signalled: number | null
}

/** Every file the builds under `datasetsDir` hold, by SHA-256 (size checked), skipping what is not a build. */
export async function localObjects(datasetsDir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  const seen = new Set<string>()
  for (const e of readdirSync(datasetsDir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue
    let dir: string
    try {
      dir = realpathSync(join(datasetsDir, e.name))
      if (seen.has(dir) || !statSync(dir).isDirectory()) continue
      seen.add(dir)
      for (const f of readManifest(dir).files) {
        const p = join(dir, f.path)
        if (!found.has(f.sha256) && existsSync(p) && statSync(p).size === f.size) found.set(f.sha256, p)
      }
      // the manifest itself: a build pulled again under another name links it too
      const manifest = join(dir, MANIFEST_FILE)
      found.set(await sha256File(manifest), manifest)
    } catch {
      // not a build (a stray file, a broken link, a damaged manifest): nothing to link from it
    }
  }
  return found
}

/** Hard-links `from` to `to`, or copies it where a link cannot be made (another filesystem). */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw err
    copyFileSync(from, to)
  }
}

/** Reads which build SOURCE offers: `--build DIGEST`, or latest.json's. */
async function resolveBuild(
  source: Source,
  build: string,
  retry: RetryPolicy,
  progress: PullProgress,
): Promise<PublishedBuild> {
  const text = (rel: string) =>
    retrying(() => source.text(rel), retry, { retry: (err, wait) => progress.retry(rel, err, wait) })
  let digest = build
  if (build === 'latest') {
    try {
      digest = parseLatest(await text(LATEST_FILE), `${source.where} ${LATEST_FILE}`).build_digest
    } catch (err) {
      if (err instanceof NotFoundError) throw new Error(`${err.message}: ${source.where} holds no published build`)
      throw err
    }
  } else if (!/^[0-9a-f]{64}$/.test(build)) throw new Error(`--build '${build}' is neither 'latest' nor a build digest`)
  const rel = buildPath(digest)
  try {
    return parsePublishedBuild(await text(rel), `${source.where} ${rel}`, digest)
  } catch (err) {
    if (err instanceof NotFoundError) throw new Error(`${err.message}: build ${digest} is not published there`)
    throw err
  }
}

const sameFiles = (a: readonly ManifestFile[], b: PublishedBuild['files']): boolean => {
  const key = (f: { path: string; sha256: string; size: number }) => `${f.path}\t${f.sha256}\t${f.size}`
  const want = new Set(b.map(key))
  return a.length === b.length && a.every((f) => want.has(key(f)))
}

/** Pulls one build from `source` into `datasetsDir`. */
export async function pullBuild(source: Source, datasetsDir: string, opts: PullOptions = {}): Promise<PullResult> {
  const progress = opts.progress ?? SILENT_PROGRESS
  const retry = opts.retry ?? DEFAULT_RETRY
  if (!existsSync(datasetsDir) || !statSync(datasetsDir).isDirectory())
    throw new Error(`${datasetsDir}: no such directory (create it first: it holds the builds)`)
  const build = await resolveBuild(source, opts.build ?? 'latest', retry, progress)
  const digest = build.build_digest
  const name = opts.name ?? build.name
  const dest = join(datasetsDir, name)
  const result: PullResult = {
    digest,
    dir: dest,
    present: false,
    filesFetched: 0,
    bytesFetched: 0,
    filesLinked: 0,
    bytesLinked: 0,
    signalled: null,
  }
  if (existsSync(dest)) {
    const there = readManifest(dest).build_digest
    if (there !== digest) throw new Error(`${dest} exists and holds another build (${there ?? 'no build_digest'})`)
    result.present = true
  } else await install(source, build, datasetsDir, dest, retry, progress, result)
  if (opts.activate) result.signalled = activate(opts.activate, dest, opts.pidFile ?? pidFileFrom(process.env))
  return result
}

async function install(
  source: Source,
  build: PublishedBuild,
  datasetsDir: string,
  dest: string,
  retry: RetryPolicy,
  progress: PullProgress,
  result: PullResult,
): Promise<void> {
  const tmp = join(datasetsDir, `.pull-${build.build_digest}.tmp`)
  const parts = join(tmp, '.parts')
  mkdirSync(parts, { recursive: true })
  try {
    const local = await localObjects(datasetsDir)
    // the manifest is an object like the others: fetched last, after the files it lists
    const all: { path: string; ref: ObjectRef }[] = [
      ...build.files.map((f) => ({ path: f.path, ref: f })),
      { path: MANIFEST_FILE, ref: build.manifest },
    ]
    const toFetch: typeof all = []
    for (const { path, ref } of all) {
      const out = join(tmp, path)
      mkdirSync(dirname(out), { recursive: true })
      // left by an interrupted pull, verified already: kept when still whole
      if (existsSync(out) && statSync(out).size === ref.size && (await sha256File(out)) === ref.sha256) {
        progress.file(path, 'present', ref.size)
        continue
      }
      rmSync(out, { force: true })
      const have = local.get(ref.sha256)
      if (have) {
        linkOrCopy(have, out)
        if ((await sha256File(out)) !== ref.sha256) {
          // a damaged copy under DATASETS_DIR: not spread, fetched instead
          rmSync(out, { force: true })
          toFetch.push({ path, ref })
          continue
        }
        result.filesLinked++
        result.bytesLinked += ref.size
        progress.file(path, 'linked', ref.size)
      } else toFetch.push({ path, ref })
    }
    progress.begin(
      toFetch.length,
      toFetch.reduce((s, f) => s + f.ref.stored_size, 0),
    )
    for (const { path, ref } of toFetch) {
      const part = join(parts, objectPath(ref).replace('/', '-'))
      const rel = objectPath(ref)
      const resumedAt = await fetchToPart(source, rel, part, ref.stored_size, retry, {
        bytes: (n) => {
          result.bytesFetched += n
          progress.bytes(n)
        },
        retry: (err, wait) => progress.retry(path, err, wait),
      }).catch((err: Error) => {
        if (err instanceof NotFoundError) throw new IntegrityError(`${err.message}: the published build lacks ${path}`)
        throw err
      })
      await placeVerified(part, ref, join(tmp, path), path)
      result.filesFetched++
      progress.file(path, resumedAt > 0 ? `fetched, resumed at ${resumedAt} bytes,` : 'fetched', ref.stored_size)
    }
    progress.end()
    rmSync(parts, { recursive: true, force: true })
    // the server's own checks of a manifest, then: the files it lists are the published ones
    let manifest: ReturnType<typeof readManifest>
    try {
      manifest = readManifest(tmp)
    } catch (err) {
      throw new IntegrityError(`the published manifest: ${(err as Error).message}`)
    }
    if (manifest.build_digest !== build.build_digest || !sameFiles(manifest.files, build.files))
      throw new IntegrityError(`the published manifest does not list the published files of ${build.build_digest}`)
    renameSync(tmp, dest)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // a refused build, or a full disk: nothing worth keeping (and the space back)
    if (err instanceof IntegrityError || code === 'ENOSPC' || code === 'EDQUOT')
      rmSync(tmp, { recursive: true, force: true })
    if (code === 'ENOSPC' || code === 'EDQUOT')
      throw new Error(`no space left in ${datasetsDir} (${(err as Error).message}): free some and pull again`)
    throw err
  }
}
