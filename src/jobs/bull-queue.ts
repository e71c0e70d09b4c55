/**
 * The queue of bulk jobs shared by several instances (REDIS_URL; docs/operations.md "Bulk jobs"):
 * BullMQ, a well-kept Redis queue, rather than a home-made one. A submitted job is added by its
 * id (the record is the job store's, redis-store.ts); the runner holding its host's lease takes
 * jobs with a BullMQ Worker (concurrency JOBS_WORKERS) and runs each one's rows (runner.ts).
 *
 * Why BullMQ: its lock on a job being run, renewed while the process lives, and its stalled-job
 * check are what make a job survive the instance running it dying: the lock lapses
 * (LOCK_MS), the next check of any live worker (STALLED_CHECK_MS) puts the job back in the queue,
 * and the runner that takes it resumes from the checkpoint in Redis. A job left unfinished by a
 * stopping runner is put back at once (moveToWait), not after the lock lapses.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { type Job as BullJob, Queue, WaitingError, Worker } from 'bullmq'
import { Redis } from 'ioredis'
import type { JobQueue } from './runner.js'

/** The queue's Redis keys start `jobs:queue:` (beside the job store's `job:` and `jobs:`). */
const PREFIX = 'jobs'
const NAME = 'queue'
/** ms a worker's lock on a job lasts without renewal (renewed every half of it) */
export const LOCK_MS = 8000
/** ms between the checks for jobs whose lock lapsed */
export const STALLED_CHECK_MS = 4000
/** times a job may lose its runner (SIGKILL, a lost machine) and still be taken over */
const MAX_TAKEOVERS = 1000
/**
 * ms a pause or close may wait for Redis: its connections wait out an outage, and a process
 * stopping while Redis is away must still exit (what is left undone, the lock's lapse undoes)
 */
const CLOSE_WAIT_MS = 5000

/** `p`, or nothing once `CLOSE_WAIT_MS` pass. */
const bounded = (p: Promise<unknown>) =>
  Promise.race([p.catch(() => {}), sleep(CLOSE_WAIT_MS, undefined, { ref: false })])

export interface BullQueueOptions {
  url: string
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void }
  /** overrides, for tests */
  lockMs?: number
  stalledCheckMs?: number
}

/**
 * BullMQ wants connections that wait out a Redis outage (`maxRetriesPerRequest: null`), unlike
 * the request path's fail-fast link (src/redis/connection.ts): a worker resumes by itself.
 */
function connection(url: string, name: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null, connectionName: name, disableClientInfo: true })
  client.on('error', () => {})
  return client
}

export class BullJobQueue implements JobQueue {
  private readonly queue: Queue
  private readonly conns: Redis[] = []
  private worker: Worker | null = null
  /** the jobs running here, to abort when their lock is lost to another worker */
  private readonly running = new Map<string, AbortController>()

  constructor(private readonly o: BullQueueOptions) {
    const conn = connection(o.url, `landdata-${process.pid}-queue`)
    this.conns.push(conn)
    this.queue = new Queue(NAME, { connection: conn, prefix: PREFIX })
    this.queue.on('error', (err) => o.log.warn({ err: err.message }, 'jobs queue: redis error'))
  }

  /** Queues a job by its id (a second add of the same id is a no-op). */
  async add(id: string): Promise<void> {
    await this.queue.add(
      'job',
      { id },
      {
        jobId: id,
        removeOnComplete: true,
        removeOnFail: 1000,
        // the runner marks a job whose rows fail as failed itself: a throw here is an outage
        attempts: 100,
        backoff: { type: 'fixed', delay: 1000 },
      },
    )
  }

  take(workers: number, run: (id: string, signal: AbortSignal) => Promise<boolean>): void {
    if (this.worker) {
      this.worker.resume()
      return
    }
    const conn = connection(this.o.url, `landdata-${process.pid}-worker`)
    this.conns.push(conn)
    const worker = new Worker(
      NAME,
      async (job: BullJob<{ id: string }>, token?: string) => {
        const id = job.data.id
        const abort = new AbortController()
        this.running.set(id, abort)
        try {
          if (await run(id, abort.signal)) return
        } finally {
          this.running.delete(id)
        }
        // left unfinished (this instance stops): back to the queue for another, now
        if (!abort.signal.aborted) await job.moveToWait(token)
        throw new WaitingError()
      },
      {
        connection: conn,
        prefix: PREFIX,
        concurrency: workers,
        lockDuration: this.o.lockMs ?? LOCK_MS,
        stalledInterval: this.o.stalledCheckMs ?? STALLED_CHECK_MS,
        maxStalledCount: MAX_TAKEOVERS,
        drainDelay: 2,
      },
    )
    worker.on('error', (err) => this.o.log.warn({ err: err.message }, 'jobs queue: worker error'))
    // another worker may take the job now: stop before writing over its results
    worker.on('lockRenewalFailed', (ids: string[]) => {
      for (const id of ids) this.running.get(id)?.abort()
    })
    this.worker = worker
  }

  async pause(): Promise<void> {
    // true: do not wait for the jobs running here (the runner stops them)
    if (this.worker) await bounded(this.worker.pause(true))
  }

  /** Closes the worker: once the jobs running here finished or went back to the queue. */
  async stop(): Promise<void> {
    if (this.worker) await bounded(this.worker.close())
  }

  /** Closes the worker, the queue and their connections (src/server.ts, at exit). */
  async close(): Promise<void> {
    await this.stop()
    await bounded(this.queue.close())
    for (const c of this.conns) c.disconnect()
  }
}
