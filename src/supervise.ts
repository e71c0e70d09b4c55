/**
 * The cluster primary's supervision of its workers (docs/operations.md "Running in production"):
 *
 * - a worker that dies is replaced after a back-off (0.25 s, doubling per recent death, at most
 *   30 s), and the death is logged;
 * - when workers keep dying (CRASH_LOOP_DEATHS within CRASH_LOOP_WINDOW_MS) while another still
 *   serves (it has listened and not exited), the serving ones are left be: each death is logged
 *   as an error and replaced after the longest back-off (30 s), so a replacement that cannot start
 *   (its build deleted) costs capacity, not the service;
 * - when workers keep dying and none serves, the primary stops them all and exits 1, so its
 *   supervisor (systemd, Docker, Kubernetes) takes over instead of the primary forking without end
 *   while the port stays dead;
 * - SIGTERM or SIGINT stops: every worker is told to drain (SIGTERM), and the primary exits 0
 *   once they have, or kills what is left after the shutdown timeout and a grace second.
 */
import cluster, { type Worker } from 'node:cluster'

export const CRASH_LOOP_DEATHS = 5
export const CRASH_LOOP_WINDOW_MS = 60_000
const FIRST_BACKOFF_MS = 250
const MAX_BACKOFF_MS = 30_000

/** The back-off before replacing a worker, given how many died within the window (1 = this one). */
export function backoffMs(recentDeaths: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, recentDeaths - 1))
}

/** Log lines of the primary: one JSON object per line on stderr, as pino writes the workers'. */
function note(level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), role: 'primary', ...extra, msg })}\n`)
}

/**
 * Forks `count` workers and supervises them; `stop(code)` drains them all and exits with `code`.
 * `env`: what each worker is forked with over the primary's environment, asked at each fork (a
 * replacement is told what serves then).
 */
export function superviseWorkers(
  count: number,
  shutdownTimeoutMs: number,
  env: () => Record<string, string> = () => ({}),
): { stop(code: number): void } {
  let stopping = false
  const deaths: number[] = []
  const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w))
  // the workers that listen: a worker still starting, or one that cannot, serves no request
  const serving = new Set<number>()
  cluster.on('listening', (w) => serving.add(w.id))
  const fork = () => cluster.fork(env())
  for (let i = 0; i < count; i++) fork()

  let exitCode = 0
  cluster.on('exit', (w, code, signal) => {
    serving.delete(w.id)
    if (stopping) {
      if (live().length === 0) process.exit(exitCode)
      return
    }
    const now = Date.now()
    deaths.push(now)
    while (deaths.length && deaths[0] < now - CRASH_LOOP_WINDOW_MS) deaths.shift()
    const how = signal ?? `code ${code}`
    const looping = deaths.length >= CRASH_LOOP_DEATHS
    const died = `workers died ${deaths.length} times within ${CRASH_LOOP_WINDOW_MS / 1000} s (last: ${how})`
    if (looping && serving.size === 0) {
      note('error', `${died} and none serves; stopping`, { pid: w.process.pid })
      stopping = true
      for (const other of live()) other.process.kill('SIGKILL')
      process.exit(1)
    }
    const delay = looping ? MAX_BACKOFF_MS : backoffMs(deaths.length)
    const replacing = `starting a replacement in ${delay} ms`
    if (looping)
      note('error', `${died}; ${serving.size} still serving: ${replacing}`, {
        pid: w.process.pid,
        deaths: deaths.length,
      })
    else
      note('warn', `worker ${w.process.pid} exited (${how}); ${replacing}`, {
        pid: w.process.pid,
        deaths: deaths.length,
      })
    setTimeout(() => {
      if (!stopping) fork()
    }, delay)
  })

  const stop = (code: number) => {
    if (stopping) process.exit(1)
    stopping = true
    exitCode = code
    note('info', `stopping: ${live().length} workers draining (at most ${shutdownTimeoutMs} ms)`)
    if (live().length === 0) process.exit(code)
    for (const w of live()) w.process.kill('SIGTERM')
    setTimeout(() => {
      for (const w of live()) w.process.kill('SIGKILL')
      process.exit(code)
    }, shutdownTimeoutMs + 1000).unref()
  }
  process.on('SIGTERM', () => stop(0))
  process.on('SIGINT', () => stop(0))
  return { stop }
}
