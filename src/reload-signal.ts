/**
 * Asking a running server to switch builds (docs/operations.md "Swapping datasets"): SIGHUP to
 * the pid in its PID_FILE. Shared by `npm run reload` (scripts/reload.ts) and
 * `dataset pull --activate` (src/ship/activate.ts), which checks first that a server is there,
 * then moves the symlink, then signals.
 *
 * @module
 */
import { readFileSync } from 'node:fs'

/** Where `npm start` writes the pid when PID_FILE is not set. */
export const DEFAULT_PID_FILE = 'data/server.pid'

/** The PID_FILE of the environment, else the default. */
export const pidFileFrom = (env: NodeJS.ProcessEnv): string => env.PID_FILE || DEFAULT_PID_FILE

/**
 * The pid in `file` when that process runs, null when there is no such file or process (no
 * server started, or one that stopped without removing it); throws one line for the rest (a
 * file that holds no pid, a process this user may not signal).
 */
export function runningServer(file: string): number | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new Error(`cannot read ${file}: ${(err as Error).message}`)
  }
  const pid = Number(text.trim())
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${file} holds no pid: is it a server's PID_FILE?`)
  try {
    process.kill(pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return null
    throw new Error(`cannot signal pid ${pid} (from ${file}): ${(err as Error).message}`)
  }
  return pid
}

/** The pid of the running server whose PID_FILE is `file`; throws one line when there is none. */
export function serverPid(file: string): number {
  const pid = runningServer(file)
  if (pid === null) throw new Error(`no server pid in ${file}: is the server running with PID_FILE=${file}?`)
  return pid
}

function signal(pid: number, file: string, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new Error(
      `cannot signal pid ${pid} (from ${file}): ${code === 'ESRCH' ? 'no such process' : (err as Error).message}`,
    )
  }
}

/** Sends SIGHUP to the server whose pid `file` holds; returns the pid. */
export function signalReload(file: string): number {
  const pid = serverPid(file)
  signal(pid, file, 'SIGHUP')
  return pid
}
