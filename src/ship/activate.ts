/**
 * `dataset pull --activate LINK`: points the symlink the server's DATASET_DIR names at the build
 * just pulled, then asks the server to switch (the same SIGHUP as `npm run reload`,
 * src/reload-signal.ts). The server is looked up first, so a pull that cannot signal it leaves
 * the link where it was; with no server running (a fresh machine), the link alone moves and the
 * server serves that build when it starts. The link moves in one rename, so it never names
 * nothing.
 *
 * @module
 */
import { lstatSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import { runningServer, signalReload } from '../reload-signal.js'

/** Points `link` at `target` atomically: a new symlink beside it, renamed over it. */
export function pointLink(link: string, target: string): void {
  const tmp = `${link}.next-${process.pid}`
  rmSync(tmp, { force: true })
  // relative when the link sits beside the builds (the usual DATASETS_DIR/current): the pair can move
  const rel = relative(dirname(resolve(link)), resolve(target))
  symlinkSync(isAbsolute(rel) || rel.startsWith('..') ? resolve(target) : rel, tmp)
  try {
    renameSync(tmp, link)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}

/** Refuses a LINK that exists and is not a symlink (a real directory would be replaced). */
function checkLink(link: string): void {
  try {
    if (!lstatSync(link).isSymbolicLink())
      throw new Error(
        `${link} exists and is not a symlink: point DATASET_DIR at a symlink to the build (see docs/operations.md)`,
      )
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

/** The build `link` names now, or null. */
export function linkTarget(link: string): string | null {
  try {
    return readlinkSync(link)
  } catch {
    return null
  }
}

/**
 * Moves `link` to `target` and signals the server whose PID_FILE is `pidFile`, when one runs.
 * Returns the pid signalled, or null when no server runs.
 */
export function activate(link: string, target: string, pidFile: string): number | null {
  checkLink(link)
  // before the link moves: a server we cannot signal would not notice, and the link would lie
  const pid = runningServer(pidFile)
  pointLink(link, target)
  return pid === null ? null : signalReload(pidFile)
}
