/**
 * Switching the served build while serving (docs/operations.md "Swapping datasets"): on SIGHUP a
 * process resolves DATASET_DIR (a directory or a symlink to one); when it names another build,
 * checks that build whole (verifyBeforeSwitch), opens it, builds its services and swaps them in
 * (DatasetHandle). Requests in flight finish on the build they started on, which is closed once
 * they have; a build that fails its checks is refused with one log line and the old one serves on.
 *
 * With workers, the cluster primary hashes the new build once (primarySwitcher) and tells every
 * worker to switch to that directory; a worker then checks only sizes and headers, so N workers
 * do not read a national build N times over.
 */
import { realpathSync } from 'node:fs'
import { basename } from 'node:path'
import type { Logger } from 'pino'
import { switchedToVerified, verifyBeforeSwitch } from './data/integrity.js'
import type { DatasetHandle, OpenDataset } from './data/open-dataset.js'
import { countDatasetSwitch, describeServedBuild } from './metrics/metrics.js'
import { loadServices, type Services } from './services.js'

export interface SwitchDeps {
  /** DATASET_DIR as configured: resolved again on every switch */
  dir: string
  data: DatasetHandle<Services>
  /** opens a build with the server's options (SQLITE_MMAP_MB, INDEX_MMAP) */
  open: (dir: string) => OpenDataset
  log: Logger
}

const MB = 2 ** 20

/**
 * Runs `task` with the latest argument, one run at a time: a call during a run makes one more run
 * after it, with the argument of the last such call (the symlink may have moved meanwhile).
 */
function serialised<A>(task: (arg: A) => Promise<void>): (arg: A) => Promise<void> {
  let running: Promise<void> | null = null
  let next: { arg: A } | null = null
  const run = (arg: A): Promise<void> => {
    if (running) {
      next = { arg }
      return running
    }
    running = task(arg).finally(() => {
      running = null
      const queued = next
      next = null
      if (queued) void run(queued.arg)
    })
    return running
  }
  return run
}

/**
 * The switch of one process: each call checks DATASET_DIR and switches when it names another
 * build. `checked`: the build the cluster primary resolved and hashed already (primarySwitcher):
 * switched to as it is, with only its sizes and headers checked here.
 */
export function datasetSwitcher(deps: SwitchDeps): (checked?: string) => Promise<void> {
  const { data, log } = deps

  const once = async (checked: string | undefined): Promise<void> => {
    const served = data.current()
    let dir: string
    try {
      dir = checked ?? realpathSync(deps.dir)
    } catch (err) {
      log.error(
        { dataset: deps.dir, build: served.build },
        `dataset switch refused: ${(err as Error).message}; still serving ${served.build}`,
      )
      return
    }
    const build = basename(dir)
    if (dir === served.dataset.dir) {
      log.info({ dataset: deps.dir, build }, 'dataset switch: DATASET_DIR names the served build, nothing to do')
      return
    }
    const started = performance.now()
    const rssBefore = process.memoryUsage.rss()
    let next: OpenDataset | null = null
    try {
      await verifyBeforeSwitch(dir, { hash: checked === undefined })
      const verified = performance.now()
      next = deps.open(dir)
      const services = await loadServices(next)
      const loaded = performance.now()
      const rssLoaded = process.memoryUsage.rss()
      const prev = data.swap(next, services, build)
      // hashed whole, here or by the primary (which tells /readyz itself)
      if (checked === undefined) switchedToVerified(dir)
      countDatasetSwitch()
      describeServedBuild(build, next.manifest)
      log.info(
        {
          from: prev.build,
          to: build,
          build_digest: next.manifest.build_digest ?? null,
          verifyMs: Math.round(verified - started),
          hashedBy: checked === undefined ? 'this process' : 'the primary',
          loadMs: Math.round(loaded - verified),
          inFlightOnOld: prev.refs,
          rssMbBefore: Math.round(rssBefore / MB),
          rssMbBothOpen: Math.round(rssLoaded / MB),
        },
        'dataset switched',
      )
    } catch (err) {
      next?.close()
      log.error(
        { dataset: deps.dir, build, served: served.build },
        `dataset switch refused: ${(err as Error).message}; still serving ${served.build}`,
      )
    }
  }

  return serialised(once)
}

/** The message a cluster primary sends its workers: switch to this build, checked already. */
export interface SwitchMessage {
  t: 'dataset-switch'
  dir: string
}

export const isSwitchMessage = (m: unknown): m is SwitchMessage =>
  typeof m === 'object' && m !== null && (m as SwitchMessage).t === 'dataset-switch'

/**
 * The variable a cluster primary forks each worker with (src/supervise.ts): the build it checked
 * and the other workers serve, which the worker opens as it is. A worker never resolves
 * DATASET_DIR itself at start: the symlink may name a build since refused, or never checked.
 */
export const SERVED_BUILD_ENV = 'LANDDATA_SERVED_BUILD'

export interface PrimarySwitcher {
  /** on SIGHUP: checks the build DATASET_DIR names and, when it passes, has the workers switch */
  (): Promise<void>
  /** the build the workers serve: the one checked at start, then the last one checked and sent */
  served(): string
}

/**
 * In a cluster primary whose workers serve `served` (checked at start): resolves DATASET_DIR,
 * hashes that build whole once (off the main thread) and sends every worker a SwitchMessage
 * naming it; a build that fails is refused with one log line and no worker is told. A build
 * already sent is sent again without hashing (a worker replaced since may not serve it yet; the
 * others see it is theirs and do nothing).
 */
export function primarySwitcher(
  dir: string,
  log: Logger,
  served: string,
  send: (m: SwitchMessage) => void,
): PrimarySwitcher {
  let checked = served
  const once = async (): Promise<void> => {
    let build: string
    try {
      build = realpathSync(dir)
      if (build !== checked) {
        const started = performance.now()
        const manifest = await verifyBeforeSwitch(build)
        log.info(
          {
            dataset: dir,
            build: basename(build),
            build_digest: manifest.build_digest ?? null,
            verifyMs: Math.round(performance.now() - started),
          },
          'dataset checked: telling the workers to switch',
        )
        checked = build
        // the workers' /readyz describe it as hashed whole (IntegrityMonitor), then switch
        switchedToVerified(build)
      }
    } catch (err) {
      log.error({ dataset: dir }, `dataset switch refused: ${(err as Error).message}; the workers serve on`)
      return
    }
    send({ t: 'dataset-switch', dir: build })
  }
  const run = serialised<void>(once)
  return Object.assign(() => run(), { served: () => checked })
}
