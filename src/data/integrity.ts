/**
 * Dataset integrity at start (VERIFY_ON_START) and before a switch: which files are hashed
 * against the manifest when, the monitor `/readyz` asks while the background check runs, and how
 * its state reaches the cluster's workers. See docs/operations.md "Dataset integrity".
 *
 * - `quick`: every file's size and header, and the SHA-256 of the small ones (SMALL_FILE_BYTES),
 *   before listening.
 * - `full`: every file's SHA-256 before listening.
 * - `background` (the default): quick, then every other file on a worker thread while serving;
 *   a mismatch turns `/readyz` to 503 naming the file, and the process exits non-zero.
 * - `off`: sizes and headers only (what `openDataset` checks anyway).
 *
 * @module
 */
import cluster from 'node:cluster'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { checkFileDigest, checkFileDigestSync, HASH_CHUNK, Pacer } from './file-hash.js'
import type { IntegrityAnswer, IntegrityJob } from './integrity-worker.js'
import type { Manifest, ManifestFile } from './manifest.js'
import { checkFile, DatasetError, readManifest } from './open-dataset.js'

export const VERIFY_MODES = ['quick', 'full', 'background', 'off'] as const
export type VerifyMode = (typeof VERIFY_MODES)[number]

/**
 * Files of at most this size are "small": `quick` hashes them before listening. That is every
 * flag, id and lookup array and every index but the largest ones, and the SQLite files of the
 * smaller layers; the large SQLite files and national-size indexes are left to the background.
 */
export const SMALL_FILE_BYTES = 4 * 2 ** 20

/** How long the default failure handler leaves `/readyz` at 503 before the process exits (3). */
export const FAILURE_EXIT_AFTER_MS = 5000

/**
 * `off`: nothing hashed; `quick`: the small files matched and nothing else is hashed; `checking`:
 * the small files matched and the others are being hashed; `ok`: every file matched; `failed`: one
 * did not (`reason` is the line naming it).
 */
export type IntegrityState = 'off' | 'quick' | 'checking' | 'ok' | { failed: string; reason: string }

/** What `/readyz` asks: the state of the build it serves, by its real path (`OpenDataset.dir`). */
export interface IntegrityStatus {
  stateOf(dir: string): IntegrityState
}

/** A file that does not match the manifest; the message names it and says why (one line). */
export class IntegrityError extends DatasetError {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(reason)
  }
}

/** The logger the checks write to (a pino Logger is one). */
export type IntegrityLog = Pick<Logger, 'info' | 'warn' | 'error'>
type Failure = { failed: string; reason: string }

/**
 * The integrity of the build this process (or, with workers, the cluster) serves, as the checks
 * find it: the one checked at start, then each one a switch hashed whole (`switchedTo`).
 */
export class IntegrityMonitor implements IntegrityStatus {
  private current: IntegrityState
  private readonly callbacks: ((failure: Failure) => void)[] = []
  private stopper: (() => void) | null = null

  constructor(
    private served: string,
    initial: IntegrityState,
    private readonly log: IntegrityLog,
  ) {
    this.current = initial
  }

  /** the state of the build served now */
  get state(): IntegrityState {
    return this.current
  }

  /** the build served now */
  get dir(): string {
    return this.served
  }

  stateOf(dir: string): IntegrityState {
    return dir === this.served ? this.current : 'off'
  }

  /**
   * The build at `dir`, hashed whole before a switch, is served now: its state is `ok`, and the
   * start-up build's background check (of a build no longer served) stops.
   */
  switchedTo(dir: string): void {
    this.stop()
    this.served = dir
    this.current = 'ok'
    tellWorkers(dir, 'ok')
  }

  /**
   * Called once if the background check finds a file that does not match (at once if it already
   * has). With none registered, the monitor sets `process.exitCode = 3` and exits after
   * FAILURE_EXIT_AFTER_MS (stopping the cluster's workers first); a registered callback replaces
   * that, to drain and exit its own way.
   */
  onFailure(cb: (failure: Failure) => void): void {
    this.callbacks.push(cb)
    if (typeof this.current === 'object') cb(this.current)
  }

  /** Stops the background check (a graceful stop); the state stays as it is. */
  stop(): void {
    this.stopper?.()
    this.stopper = null
  }

  /** @internal the background check's progress */
  set(state: IntegrityState, stopper?: () => void): void {
    this.current = state
    if (stopper) this.stopper = stopper
    tellWorkers(this.served, state)
    if (typeof state !== 'object') return
    this.stopper = null
    const handled = this.callbacks.length > 0
    this.log.error(
      { file: state.failed },
      `dataset integrity: ${state.reason}; /readyz answers 503` +
        (handled ? '' : `, exiting in ${FAILURE_EXIT_AFTER_MS / 1000} s`),
    )
    if (handled) {
      for (const cb of this.callbacks) cb(state)
      return
    }
    process.exitCode = 3
    setTimeout(() => {
      for (const w of Object.values(cluster.workers ?? {})) w?.kill()
      process.exit(3)
    }, FAILURE_EXIT_AFTER_MS).unref()
  }
}

/** The small files `quick` hashes, in manifest order. */
export function smallFiles(manifest: Manifest): ManifestFile[] {
  return manifest.files.filter((f) => f.size <= SMALL_FILE_BYTES)
}

/** Hashes `files` on this thread, throwing IntegrityError at the first that does not match. */
function hashNow(dir: string, files: readonly ManifestFile[]): number {
  const buf = Buffer.allocUnsafe(HASH_CHUNK)
  let bytes = 0
  for (const f of files) {
    const reason = checkFileDigestSync(dir, f, buf)
    if (reason) throw new IntegrityError(f.path, reason)
    bytes += f.size
  }
  return bytes
}

/**
 * The bundled worker script next to the running bundle (dist/integrity-worker.js), or null when
 * running from the sources (the tests): the files are then hashed on this thread, one chunk per
 * turn of the event loop.
 */
function workerScript(): string | null {
  if (!fileURLToPath(import.meta.url).endsWith('.js')) return null
  const script = fileURLToPath(new URL('./integrity-worker.js', import.meta.url))
  return existsSync(script) ? script : null
}

/** The hashing's outcome; `error`: the thread itself failed (nothing said about the files), null: stopped. */
type Outcome = IntegrityAnswer | { error: string } | null

/** Hashes `files` off the request path, paced to about half a core; `stop` abandons it. */
function hashAside(dir: string, files: ManifestFile[], paced: boolean): { done: Promise<Outcome>; stop: () => void } {
  const script = workerScript()
  if (script) {
    const job: IntegrityJob = { dir, files, paced }
    const worker = new Worker(script, { workerData: job })
    // a graceful stop must not wait for the hashing
    worker.unref()
    const done = new Promise<Outcome>((resolve) => {
      worker.once('message', (a: IntegrityAnswer) => resolve(a))
      worker.once('error', (err) => resolve({ error: err instanceof Error ? err.message : String(err) }))
      // terminated by stop() (a settled promise ignores a later resolve)
      worker.once('exit', () => resolve(null))
    })
    return { done, stop: () => void worker.terminate() }
  }
  let stopped = false
  const run = async (): Promise<Outcome> => {
    const buf = Buffer.allocUnsafe(HASH_CHUNK)
    const pacer = new Pacer(paced ? 10 : Number.POSITIVE_INFINITY)
    let bytes = 0
    for (const f of files) {
      const reason = await checkFileDigest(dir, f, buf, pacer, () => stopped)
      if (stopped) return null
      if (reason) return { failed: f.path, reason }
      bytes += f.size
    }
    return { done: true, files: files.length, bytes }
  }
  return { done: run(), stop: () => void (stopped = true) }
}

let monitor: IntegrityMonitor | null = null

/**
 * Checks the dataset at `dir` (its manifest already read) as `mode` says, before the server
 * listens; throws an IntegrityError (a DatasetError: one line naming the file) when a file does
 * not match. In `background` mode the returned monitor goes on hashing the other files. Call it
 * once, in the process that checks the dataset (the cluster primary with WORKERS > 1).
 */
export async function verifyOnStart(
  dir: string,
  manifest: Manifest,
  mode: VerifyMode,
  log: IntegrityLog,
): Promise<IntegrityMonitor> {
  const t0 = performance.now()
  if (manifest.build_digest === undefined)
    log.warn(
      { dataset: dir },
      'the dataset manifest has no build_digest (built before it existed): served, its files checked one by one; ' +
        'rebuild it to get one',
    )
  for (const f of manifest.files) checkFile(dir, f)
  const small = mode === 'full' ? manifest.files : mode === 'off' ? [] : smallFiles(manifest)
  const bytes = hashNow(dir, small)
  const rest = manifest.files.filter((f) => !small.includes(f))
  const state: IntegrityState =
    mode === 'off' ? 'off' : mode === 'quick' ? 'quick' : mode === 'full' || rest.length === 0 ? 'ok' : 'checking'
  const m = new IntegrityMonitor(dir, state, log)
  monitor = m
  shareWithWorkers()
  log.info(
    {
      mode,
      build: manifest.build_digest ?? null,
      hashed: { files: small.length, bytes },
      notYetHashed: rest.length,
      ms: Math.round(performance.now() - t0),
    },
    state === 'checking'
      ? `dataset integrity: quick check passed; hashing the other ${rest.length} files in the background`
      : mode === 'off'
        ? 'dataset integrity: off (sizes and headers checked, no file hashed)'
        : `dataset integrity: ${mode} check passed`,
  )
  if (state === 'checking') {
    const t1 = performance.now()
    const job = hashAside(dir, rest, true)
    m.set('checking', job.stop)
    void job.done.then((a) => {
      // (a switch since stops the check and leaves the state at ok)
      if (a === null || m.state !== 'checking') return
      // not a verdict on the dataset: say so, keep serving, leave the state at checking
      if ('error' in a) log.error({ err: a.error }, 'dataset integrity: the background check thread failed')
      else if ('failed' in a) m.set(a)
      else {
        m.set('ok')
        log.info(
          { files: a.files, bytes: a.bytes, ms: Math.round(performance.now() - t1) },
          'dataset integrity: every file matches the manifest',
        )
      }
    })
  }
  return m
}

/**
 * For a switch to the dataset at `dir`: its manifest, once every file's size, header and SHA-256
 * (unless `hash: false`: sizes and headers only) match it (hashed off this thread, paced, while the current dataset serves); throws a
 * DatasetError naming the file otherwise, and the switch must not happen.
 */
export async function verifyBeforeSwitch(dir: string, opts: { hash?: boolean } = {}): Promise<Manifest> {
  const manifest = readManifest(dir)
  for (const f of manifest.files) checkFile(dir, f)
  // hash: false when the cluster primary has hashed this build for every worker already
  if (opts.hash === false) return manifest
  const a = await hashAside(dir, manifest.files, true).done
  if (a && 'error' in a) throw new DatasetError(`${dir}: the integrity check thread failed: ${a.error}`)
  if (a && 'failed' in a) throw new IntegrityError(a.failed, a.reason)
  return manifest
}

// --- the state across the cluster: the primary checks, the workers answer /readyz ---

type IntegrityMessage = { t: 'integrity'; dir: string; state: IntegrityState } | { t: 'integrity?' }

let sharing = false

function tellWorkers(dir: string, state: IntegrityState): void {
  if (!cluster.isPrimary) return
  for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send({ t: 'integrity', dir, state })
}

/** In the primary: answers a worker that asks for the state (a new or replaced worker). */
function shareWithWorkers(): void {
  if (sharing || !cluster.isPrimary) return
  sharing = true
  cluster.on('message', (w, m: IntegrityMessage) => {
    if (m && m.t === 'integrity?' && monitor) w.send({ t: 'integrity', dir: monitor.dir, state: monitor.state })
  })
}

/**
 * A worker's view: the last state the primary gave for each build (a worker that refused a
 * switch serves on a build the primary no longer checks), `checking` until it has.
 */
class PrimaryIntegrity implements IntegrityStatus {
  readonly states = new Map<string, IntegrityState>()

  constructor() {
    process.on('message', (m: IntegrityMessage) => {
      if (m && m.t === 'integrity') this.states.set(m.dir, m.state)
    })
    process.send?.({ t: 'integrity?' })
  }

  stateOf(dir: string): IntegrityState {
    return this.states.get(dir) ?? 'checking'
  }
}

const OFF: IntegrityStatus = { stateOf: () => 'off' }
let follower: PrimaryIntegrity | null = null

/**
 * What `/readyz` reports in this process: the monitor where verifyOnStart ran, the primary's
 * state (followed over the cluster's IPC channel) in a cluster worker, else `off`.
 */
export function integrityStatus(): IntegrityStatus {
  if (monitor) return monitor
  if (cluster.isWorker) return (follower ??= new PrimaryIntegrity())
  return OFF
}

/**
 * After a switch to the build at `dir`, which this process or its cluster primary hashed whole
 * (verifyBeforeSwitch): `/readyz` describes it as `ok` from now on.
 */
export function switchedToVerified(dir: string): void {
  if (monitor) monitor.switchedTo(dir)
  else follower?.states.set(dir, 'ok')
}

/** `/readyz`'s `integrity` field: the state, or `failed <file>`. */
export function describeIntegrity(state: IntegrityState): string {
  return typeof state === 'object' ? `failed ${state.failed}` : state
}
