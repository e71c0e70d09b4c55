/**
 * Bulk job rows answered on worker threads (docs/operations.md "Bulk jobs"): a pool of at most
 * JOBS_THREADS threads (row-thread.ts), shared by the jobs running in this process, each thread
 * working JOBS_CPU_SHARE of its time. A job is bound to one thread for its run (the least busy
 * when it starts), so a job takes at most that share of one core, and all jobs together at most
 * JOBS_THREADS times it, whatever JOBS_WORKERS says: the other cores stay with online requests.
 * Its rows go to the thread 200 at a time (one message each way per batch, not per row), as
 * requests from the API root; the thread answers them through an app of its own over the same
 * build (app-rows.ts), so a row's answer is the online one.
 *
 * Threads start with the first job that needs one, and stop once no job has used them for
 * `idleMs`, or with the pool (`stop`). A thread that fails (an uncaught error, an exit) fails the
 * jobs whose batches it held, naming what happened; the server goes on, and the next job starts
 * another thread.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { OpenOptions } from '../data/open-dataset.js'
import type { SnapshotPins } from '../http/front-door.js'
import { pinnedExecutors } from './app-rows.js'
import type { JobOperation } from './operations.js'
import type { RowAnswer, RowExecutor } from './runner.js'
import type { FromRowThread, RowThreadData, ToRowThread } from './thread-messages.js'
import type { Job } from './types.js'

/** Rows per message to a thread: enough to make a message's cost small beside its rows'. */
export const BATCH_ROWS = 200

export interface RowThreadsOptions {
  /** threads at most (JOBS_THREADS) */
  threads: number
  /** (0, 1]: the share of its time each thread works (JOBS_CPU_SHARE) */
  cpuShare: number
  /** ms of work between two rests (default 10) */
  sliceMs?: number
  /** the threads' log level (LOG_LEVEL; default `silent`) */
  logLevel?: string
  /** how a thread opens a build (the server's SQLITE_MMAP_MB and INDEX_MMAP) */
  open?: OpenOptions
  /** ms a thread no job uses lives on (default 30 s) */
  idleMs?: number
  /** the thread's script (default: {@link rowThreadScript}) */
  script?: string
  /** where a thread's start, idle stop and failure are logged */
  log?: { info(o: object, msg: string): void; error(o: object, msg: string): void }
}

/**
 * The bundled thread script: beside the running bundle (dist/server.js, dist/bench.js), or, from
 * the sources (the tests), the one `npm run build` made in dist/.
 */
export function rowThreadScript(): string {
  const here = fileURLToPath(import.meta.url)
  return here.endsWith('.js')
    ? resolve(dirname(here), 'row-thread.js')
    : resolve(dirname(here), '../../dist/row-thread.js')
}

type Batch = Omit<Extract<ToRowThread, { type: 'batch' }>, 'type' | 'id'>

/** One thread: the jobs bound to it, the builds they use, its batches waiting for answers. */
class Thread {
  jobs = 0
  readonly builds = new Map<string, number>()
  readonly pending = new Map<number, { resolve: (a: RowAnswer[]) => void; reject: (e: Error) => void }>()
  /** why it can take no more batches (it failed, or was stopped) */
  down: Error | null = null
  /** its CPU time and its time spent on batches, rests included, so far (µs, as of its last answer) */
  cpuMicros = 0
  answeringMicros = 0
  idle: NodeJS.Timeout | null = null

  constructor(readonly worker: Worker) {}

  /** No more batches: each one waiting fails with `err`. */
  fail(err: Error): void {
    this.down ??= err
    for (const p of this.pending.values()) p.reject(this.down)
    this.pending.clear()
    if (this.idle) clearTimeout(this.idle)
  }
}

/** What a job holds of the pool: the thread its batches go to, bound at its first batch. */
export interface ThreadLease {
  answer(batch: Batch): Promise<RowAnswer[]>
  release(): void
}

export class RowThreads {
  private readonly threads: (Thread | null)[]
  private readonly script: string
  private nextId = 0
  private stopped = false

  constructor(private readonly o: RowThreadsOptions) {
    if (!Number.isInteger(o.threads) || o.threads < 1)
      throw new RangeError(`threads must be 1 or more, not ${o.threads}`)
    if (!(o.cpuShare > 0 && o.cpuShare <= 1)) throw new RangeError(`cpuShare must be in (0, 1], not ${o.cpuShare}`)
    this.threads = Array.from({ length: o.threads }, () => null)
    this.script = o.script ?? rowThreadScript()
  }

  /** The threads alive now (for tests and diagnostics). */
  workers(): Worker[] {
    return this.threads.flatMap((t) => (t && !t.down ? [t.worker] : []))
  }

  /**
   * Each live thread's id, CPU time and time spent on batches (rests included) so far, in µs as
   * of its last answer: the second over the third is the share of a core it took while it had work.
   */
  usage(): { threadId: number; cpuMicros: number; answeringMicros: number }[] {
    return this.threads.flatMap((t) =>
      t && !t.down ? [{ threadId: t.worker.threadId, cpuMicros: t.cpuMicros, answeringMicros: t.answeringMicros }] : [],
    )
  }

  /** A job's hold on the pool, for rows of the build in `dir`; no thread is bound before its first batch. */
  lease(dir: string): ThreadLease {
    let thread: Thread | null = null
    return {
      answer: (batch) => {
        // bound at the first batch, and again after its thread failed between two batches
        if (!thread || thread.down) {
          if (thread) this.unbind(thread, dir)
          thread = this.bind(dir)
        }
        return this.ask(thread, batch)
      },
      release: () => {
        if (thread) this.unbind(thread, dir)
        thread = null
      },
    }
  }

  /** Stops every thread; a batch still waiting fails. */
  async stop(): Promise<void> {
    this.stopped = true
    const live = this.threads.filter((t): t is Thread => t !== null)
    this.threads.fill(null)
    for (const t of live) t.fail(new Error('the server is stopping'))
    await Promise.all(live.map((t) => t.worker.terminate()))
  }

  /** The least busy thread, started if none is free and there is room for one more. */
  private bind(dir: string): Thread {
    if (this.stopped) throw new Error('the jobs threads are stopped (the server is stopping)')
    let best: Thread | null = null
    for (const t of this.threads) if (t && !t.down && (best === null || t.jobs < best.jobs)) best = t
    const free = this.threads.indexOf(null)
    if ((best === null || best.jobs > 0) && free >= 0) best = this.start(free)
    const t = best!
    if (t.idle) clearTimeout(t.idle)
    t.idle = null
    t.jobs++
    t.builds.set(dir, (t.builds.get(dir) ?? 0) + 1)
    return t
  }

  private unbind(t: Thread, dir: string): void {
    t.jobs--
    const left = (t.builds.get(dir) ?? 1) - 1
    if (left > 0) t.builds.set(dir, left)
    else {
      t.builds.delete(dir)
      // no job of the thread uses the build any more: the thread closes it
      if (!t.down) t.worker.postMessage({ type: 'release', dir } satisfies ToRowThread)
    }
    if (t.jobs === 0 && !t.down) {
      t.idle = setTimeout(() => this.retire(t), this.o.idleMs ?? 30_000)
      t.idle.unref()
    }
  }

  private retire(t: Thread): void {
    if (t.jobs > 0 || t.down) return
    this.o.log?.info({ threadId: t.worker.threadId }, 'jobs thread stopped (idle)')
    t.fail(new Error('the thread was stopped, idle'))
    this.forget(t)
    void t.worker.terminate()
  }

  private forget(t: Thread): void {
    const k = this.threads.indexOf(t)
    if (k >= 0) this.threads[k] = null
  }

  private start(slot: number): Thread {
    if (!existsSync(this.script))
      throw new Error(`the jobs thread's script ${this.script} is missing: build it with \`npm run build\``)
    const workerData: RowThreadData = {
      logLevel: this.o.logLevel ?? 'silent',
      open: this.o.open ?? {},
      cpuShare: this.o.cpuShare,
      sliceMs: this.o.sliceMs ?? 10,
    }
    const worker = new Worker(this.script, { workerData, name: 'jobs rows' })
    // never what keeps the process alive: the server stops the pool itself
    worker.unref()
    // (a Worker's threadId is -1 once it has exited)
    const threadId = worker.threadId
    const t = new Thread(worker)
    worker.on('message', (m: FromRowThread) => {
      t.cpuMicros = m.cpuMicros
      t.answeringMicros = m.answeringMicros
      const p = t.pending.get(m.id)
      if (!p) return
      t.pending.delete(m.id)
      if (m.type === 'answers') p.resolve(m.answers)
      else p.reject(new Error(`the jobs thread could not answer its rows: ${m.message}`))
    })
    worker.on('error', (err: Error) => {
      this.o.log?.error({ threadId, err: err.message }, 'jobs thread failed')
      t.fail(new Error(`the jobs thread answering the rows failed: ${err.message}`))
      this.forget(t)
    })
    worker.on('exit', (code) => {
      if (!t.down) this.o.log?.error({ threadId, code }, 'jobs thread stopped')
      t.fail(new Error(`the jobs thread answering the rows stopped (exit code ${code})`))
      this.forget(t)
    })
    this.o.log?.info({ threadId, cpuShare: workerData.cpuShare, threads: this.threads.length }, 'jobs thread started')
    this.threads[slot] = t
    return t
  }

  private ask(t: Thread, batch: Batch): Promise<RowAnswer[]> {
    if (t.down) return Promise.reject(t.down)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      t.pending.set(id, { resolve, reject })
      t.worker.postMessage({ type: 'batch', id, ...batch } satisfies ToRowThread)
    })
  }
}

/**
 * The executor of each job on `pool`'s threads: the thread opens the build pinned here for the
 * job (see pinnedExecutors) from the same directory, and keeps it open until the job closes.
 */
export function threadRows(
  pool: RowThreads,
  pins: SnapshotPins,
  base: string,
  operation: (id: string) => JobOperation | undefined,
): (job: Job) => RowExecutor | string {
  return pinnedExecutors(pins, operation, (job, { op, snapshot }) => {
    const dir = snapshot.dataset.dir
    const lease = pool.lease(dir)
    return {
      batchRows: BATCH_ROWS,
      pacesItself: true,
      answer: (rows) =>
        lease.answer({ dir, build: snapshot.build, key: job.key, urls: rows.map((r) => op.url(base, r)) }),
      close: () => lease.release(),
    }
  })
}
