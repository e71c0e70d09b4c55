/**
 * Switching the served build while serving (docs/operations.md "Swapping datasets"): on SIGHUP a
 * process resolves DATASET_DIR (a directory or a symlink to one); when it names another build,
 * checks that build whole (verifyBeforeSwitch), opens it, builds its services and swaps them in
 * (DatasetHandle). Requests in flight finish on the build they started on, which is closed once
 * they have; a build that fails its checks is refused with one log line and the old one serves on.
 */
import { realpathSync } from 'node:fs'
import { basename } from 'node:path'
import type { Logger } from 'pino'
import { verifyBeforeSwitch } from './data/integrity.js'
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
 * The switch of one process: each call checks DATASET_DIR and switches when it names another
 * build. A call during a switch runs once more after it (the symlink may have moved meanwhile).
 */
export function datasetSwitcher(deps: SwitchDeps): () => Promise<void> {
  const { data, log } = deps
  let running: Promise<void> | null = null
  let again = false

  const once = async (): Promise<void> => {
    const served = data.current()
    let dir: string
    try {
      dir = realpathSync(deps.dir)
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
      await verifyBeforeSwitch(dir)
      const verified = performance.now()
      next = deps.open(dir)
      const services = await loadServices(next)
      const loaded = performance.now()
      const rssLoaded = process.memoryUsage.rss()
      const prev = data.swap(next, services, build)
      countDatasetSwitch()
      describeServedBuild(build, next.manifest)
      log.info(
        {
          from: prev.build,
          to: build,
          build_digest: next.manifest.build_digest ?? null,
          verifyMs: Math.round(verified - started),
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

  const reload = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = once().finally(() => {
      running = null
      if (again) {
        again = false
        void reload()
      }
    })
    return running
  }
  return reload
}
