/**
 * Runs bulk jobs (docs/api.md "Bulk jobs", docs/operations.md "Bulk jobs"): one process per
 * JOBS_DIR at a time (a lease in the store, so a cluster's workers do not run a job twice), at
 * most `workers` jobs at once, each its rows in input order, at a bounded share of the CPU so
 * online requests keep most of it: on worker threads that pace themselves (thread-rows.ts), or,
 * for an executor that does not, paced here to about half a core (work 10 ms, rest as long).
 * Two dispatchers hand it jobs: on one VM the lease holder polls the store (`next`); with a
 * shared queue (REDIS_URL: BullMQ, bull-queue.ts) the lease is one per host and its holder takes
 * jobs from the queue.
 *
 * Rows are answered by `open(job).answer`, `batchRows` at a time, by the app itself (app-rows.ts,
 * thread-rows.ts). Results are held and written every `checkpointRows` rows or `checkpointMs`,
 * then the checkpoint (rows done, bytes of input read and of results written) is stored: a
 * process that stops between two checkpoints loses the rows since the last, and the next one
 * cuts the results back to the checkpoint and answers them again, so no row is lost or repeated.
 *
 * @module
 */
import { hostname } from 'node:os'
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises'
import { Pacer } from '../data/file-hash.js'
import { inputFile, LineReader, removeFiles, ResultsFile, resultsFile } from './files.js'
import type { Row } from './rows.js'
import type { Checkpoint, Job, JobStore } from './types.js'

/** One row's answer: the status and body the endpoint gave. */
export interface RowAnswer {
  status: number
  /** the answer's JSON text */
  body: string
}

/** What runs a job's rows: the build it runs on, and the answers of its rows, a batch at a time. */
export interface RowExecutor {
  build: string
  /** rows handed to `answer` at once (default 1) */
  batchRows?: number
  /** it keeps to its share of the CPU itself (a worker thread's duty cycle): the runner does not rest */
  pacesItself?: boolean
  /** the answers of `rows`, in their order */
  answer(rows: readonly Row[]): Promise<RowAnswer[]>
  close(): void
}

/**
 * A queue shared by several instances that hands jobs to the runner in place of the store's
 * `next` (REDIS_URL: BullMQ, bull-queue.ts).
 */
export interface JobQueue {
  /**
   * Takes jobs (again, after `pause`), at most `workers` at once, each run by `run`, which
   * resolves false when the job was left unfinished (this runner stops): it goes back to the
   * queue for another instance. `signal` aborts when the queue gave the job to another.
   */
  take(workers: number, run: (id: string, signal: AbortSignal) => Promise<boolean>): void
  /** takes no more jobs (those running go on) */
  pause(): Promise<void>
  /** takes no more jobs, once those running here finished or went back to the queue */
  stop(): Promise<void>
}

export interface RunnerOptions {
  store: JobStore
  dir: string
  /** the executor of a job, or why it cannot run (the job fails with that) */
  open: (job: Job) => RowExecutor | string
  clock?: () => number
  /** jobs run at once (JOBS_WORKERS) */
  workers?: number
  /** ms results are kept after a job finishes (JOBS_RETENTION_DAYS) */
  retentionMs?: number
  checkpointRows?: number
  checkpointMs?: number
  /** false: no rest between slices (tests) */
  paced?: boolean
  /** ms between looks for work when nothing wakes the runner */
  pollMs?: number
  log?: { info(o: object, msg: string): void; error(o: object, msg: string): void }
  /** the shared queue to take jobs from (REDIS_URL), else the store's `next` */
  queue?: JobQueue
}

const LEASE_MS = 10_000
const SWEEP_MS = 60_000

/** Whether the process named by a lease owner (`host:pid:…`) still runs; another host's: assumed so. */
function ownerAlive(owner: string): boolean {
  const [host, pid] = owner.split(':')
  if (host !== hostname()) return true
  try {
    process.kill(Number(pid), 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The result line of one row (the answer's JSON spliced in as it is). */
export function resultLine(row: number, input: string, a: RowAnswer): string {
  // JSON's only raw line breaks are whitespace: one line per row whatever the writer did
  const body = a.body.includes('\n') ? a.body.replace(/[\r\n]/g, ' ') : a.body || 'null'
  return `{"row":${row},"input":${input},"status":${a.status},"${a.status < 400 ? 'result' : 'error'}":${body}}\n`
}

export class JobRunner {
  private readonly clock: () => number
  private readonly owner = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`
  private readonly active = new Map<string, Promise<void>>()
  private timer: NodeJS.Timeout | null = null
  private stopping = false
  private lastSweep = 0
  private ticking: Promise<void> | null = null
  /** the queue hands jobs to this runner (it holds its host's lease) */
  private taking = false
  /** why the last look for work failed, or null */
  private failing: string | null = null

  constructor(private readonly o: RunnerOptions) {
    this.clock = o.clock ?? Date.now
  }

  /** Starts looking for work every `pollMs` (default 1 s). */
  start(): void {
    this.stopping = false
    const poll = () => {
      this.timer = setTimeout(() => void this.wake().finally(poll), this.o.pollMs ?? 1000)
      this.timer.unref()
    }
    void this.wake()
    poll()
  }

  /** Looks for work now (a job was submitted). */
  wake(): Promise<void> {
    this.ticking ??= this.tick()
      .then(
        () => {
          this.failing = null
        },
        (err: Error) => {
          // the store is away (Redis down): logged once, the next look tries again
          if (this.failing === null) this.o.log?.error({ err: err.message }, 'jobs: cannot look for work')
          this.failing = err.message
        },
      )
      .finally(() => (this.ticking = null))
    return this.ticking
  }

  /** Resolves once no job runs here (the jobs running now finished or stopped). */
  async idle(): Promise<void> {
    while (this.active.size || this.ticking) await Promise.all([...this.active.values(), this.ticking])
  }

  /**
   * Stops: the jobs running here stop where they are without a last checkpoint (as a process
   * that dies would), to be resumed by the next runner; the lease is given up.
   */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.timer) clearTimeout(this.timer)
    await this.o.queue?.pause()
    await this.idle()
    await this.o.queue?.stop()
    try {
      await this.o.store.releaseLease(this.owner)
    } catch {
      // the store is away (Redis down): the lease lapses by itself
    }
  }

  private async tick(): Promise<void> {
    if (this.stopping) return
    const store = this.o.store
    const now = this.clock()
    const queue = this.o.queue
    if (!(await store.lease(this.owner, now, LEASE_MS, ownerAlive))) {
      // another process on this host took the lease (this one stalled): it takes the jobs now
      if (this.taking) await queue?.pause()
      this.taking = false
      return
    }
    if (now - this.lastSweep >= SWEEP_MS) await this.sweep()
    if (queue) {
      if (!this.taking && !this.stopping) queue.take(this.o.workers ?? 1, (id, signal) => this.fromQueue(id, signal))
      this.taking = true
      return
    }
    while (!this.stopping && this.active.size < (this.o.workers ?? 1)) {
      const job = await store.next([...this.active.keys()])
      if (!job) break
      void this.run(job).finally(() => {
        if (!this.stopping) void this.wake()
      })
    }
  }

  /**
   * Runs the rows of `job` from its checkpoint until it is done, cancelled, stopped or `signal`
   * aborts; whichever dispatcher found it (the store's `next`, or the queue).
   */
  run(job: Job, signal?: AbortSignal): Promise<void> {
    const run = this.runJob(job, signal)
      .catch((err: unknown) => this.o.log?.error({ job: job.id, err: (err as Error).message }, 'job failed'))
      .finally(() => this.active.delete(job.id))
    this.active.set(job.id, run)
    return run
  }

  /** A job the queue handed over: run unless finished or gone; false when left unfinished. */
  private async fromQueue(id: string, signal: AbortSignal): Promise<boolean> {
    const unfinished = (j: Job | null): j is Job => j?.status === 'queued' || j?.status === 'running'
    const job = await this.o.store.get(id)
    if (!unfinished(job)) return true
    if (this.stopping) return false
    await this.run(job, signal)
    return !unfinished(await this.o.store.get(id))
  }

  /** Deletes the files of finished jobs past their expiry and marks them `expired`. */
  async sweep(): Promise<number> {
    const now = this.clock()
    this.lastSweep = now
    const due = await this.o.store.expiring(now)
    for (const job of due) {
      removeFiles(this.o.dir, job.id)
      await this.o.store.markExpired(job.id)
    }
    return due.length
  }

  private expiry(): number {
    return this.clock() + (this.o.retentionMs ?? 7 * 86_400_000)
  }

  private async runJob(job: Job, signal?: AbortSignal): Promise<void> {
    const store = this.o.store
    const at: Checkpoint = {
      rowsDone: job.rowsDone,
      rowsFailed: job.rowsFailed,
      inputOffset: job.inputOffset,
      resultsOffset: job.resultsOffset,
    }
    const exec = this.o.open(job)
    if (typeof exec === 'string') {
      await store.start(job.id, job.build ?? '', this.clock())
      await store.finish(job.id, 'failed', at, this.clock(), this.expiry(), exec)
      return
    }
    try {
      if (!(await store.start(job.id, exec.build, this.clock()))) return
      this.o.log?.info({ job: job.id, rowsDone: at.rowsDone }, 'job running')
      await this.rows(job, exec, at, signal)
    } catch (err) {
      await store.finish(job.id, 'failed', at, this.clock(), this.expiry(), (err as Error).message)
    } finally {
      exec.close()
    }
  }

  private async rows(job: Job, exec: RowExecutor, at: Checkpoint, signal?: AbortSignal): Promise<void> {
    const store = this.o.store
    const every = this.o.checkpointRows ?? 1000
    const everyMs = this.o.checkpointMs ?? 1000
    const pacer = new Pacer()
    const size = exec.batchRows ?? 1
    const input = new LineReader(inputFile(this.o.dir, job.id), at.inputOffset)
    const out = new ResultsFile(resultsFile(this.o.dir, job.id), at.resultsOffset)
    let last = this.clock()
    let read = { ...at }
    try {
      for (let lines = input.take(size); lines.length; lines = input.take(size)) {
        const answers = await exec.answer(lines.map((l) => JSON.parse(l.line) as Row))
        if (answers.length !== lines.length)
          throw new Error(`${answers.length} answers came back for a batch of ${lines.length} rows`)
        for (const [i, next] of lines.entries()) {
          const a = answers[i]!
          const row = read.rowsDone + 1
          out.add(resultLine(row, next.line, a))
          read = {
            ...read,
            rowsDone: row,
            rowsFailed: read.rowsFailed + (a.status >= 400 ? 1 : 0),
            inputOffset: next.end,
          }
          // a stop leaves what was read since the last checkpoint unwritten: the next runner answers it again
          if (this.stopping || signal?.aborted) return
          if (out.held >= every || this.clock() - last >= everyMs) {
            Object.assign(at, read, { resultsOffset: out.flush() })
            last = this.clock()
            if (!(await store.checkpoint(job.id, at, last))) return // cancelled
          }
          if (!exec.pacesItself) await this.pace(pacer)
        }
      }
      Object.assign(at, read, { resultsOffset: out.flush() })
      await store.finish(job.id, 'done', at, this.clock(), this.expiry())
    } finally {
      input.close()
      out.close()
    }
  }

  private async pace(pacer: Pacer): Promise<void> {
    const rest = pacer.rest()
    if (rest <= 0) return
    if (this.o.paced === false) await yieldToLoop()
    else await sleep(rest)
    pacer.resume()
  }
}
