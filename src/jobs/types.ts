/**
 * Bulk jobs (docs/api.md "Bulk jobs"): what a job is, and the store it lives in, behind an
 * interface so the store shared by several instances (REDIS_URL: redis-store.ts, its queue
 * BullMQ's) replaces the one-VM SQLite store (sqlite-store.ts), as the key store and the rate
 * limiter are replaced.
 *
 * @module
 */
import type { ApiKeyRecord } from '../auth/types.js'
import type { RowFormat } from './rows.js'

/** A job's life: queued, running, then one of the last four. */
export const JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled', 'expired'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]

/** The statuses a job never leaves (but for `expired`, once its results are deleted). */
export const FINISHED: ReadonlySet<JobStatus> = new Set(['done', 'failed', 'cancelled'])

/** Where a running job is: rows answered, and how far into its input and results files. */
export interface Checkpoint {
  rowsDone: number
  rowsFailed: number
  /** bytes of the input file read (the rows done) */
  inputOffset: number
  /** bytes of the results file that hold the rows done: what a restart keeps, and what is served */
  resultsOffset: number
}

/** A job as its owner sees it and the runner runs it. Times are ms since the epoch. */
export interface Job extends Checkpoint {
  id: string
  /** the key that submitted it (its id, kept by `keys rotate`) */
  keyId: string
  /** the key's record when the job was submitted: the grants its rows run with */
  key: ApiKeyRecord
  /** the operationId each row runs */
  operation: string
  status: JobStatus
  format: RowFormat
  /** the columns of the upload, in their order (the results CSV's input columns) */
  columns: string[]
  rows: number
  /** the dataset build the job runs on, set when it starts */
  build: string | null
  createdAt: number
  startedAt: number | null
  finishedAt: number | null
  /** when the results are deleted: set when the job finishes */
  expiresAt: number | null
  /** why a job failed or was stopped */
  error: string | null
  /** when the last checkpoint was written */
  updatedAt: number
}

export type NewJob = Pick<Job, 'id' | 'keyId' | 'key' | 'operation' | 'format' | 'columns' | 'rows' | 'createdAt'>

/** The outcome of counting rows against a key's daily allowance. */
export interface Allowance {
  ok: boolean
  limit: number
  /** rows left today, after this upload when it was counted */
  remaining: number
  /** the day (YYYY-MM-DD, Africa/Johannesburg) counted */
  day: string
}

/**
 * The jobs, their checkpoints and the daily row counts. Every method may answer at once or with a
 * promise, so a remote store fits (the key store's pattern, src/auth/types.ts).
 */
export interface JobStore {
  create(job: NewJob): Job | Promise<Job>
  get(id: string): Job | null | Promise<Job | null>
  /** a key's jobs, newest first, expired ones included */
  list(keyId: string): Job[] | Promise<Job[]>
  /** a key's queued and running jobs */
  unfinished(keyId: string): number | Promise<number>
  /**
   * Counts `rows` against the key's allowance for `day` when they fit (`ok`), else counts
   * nothing; one step, so two uploads at once cannot both take the last rows.
   */
  count(keyId: string, day: string, rows: number, limit: number): Allowance | Promise<Allowance>
  /**
   * the next job to run but those in `exclude` (running here already): a running one (resumed
   * after a restart) first, else the oldest queued
   */
  next(exclude: readonly string[]): Job | null | Promise<Job | null>
  /** queued to running on `build`; false when it is no longer queued or running (cancelled) */
  start(id: string, build: string, now: number): boolean | Promise<boolean>
  /** records progress; false when the job is no longer running (cancelled: stop) */
  checkpoint(id: string, at: Checkpoint, now: number): boolean | Promise<boolean>
  /** running to done or failed, at `at` */
  finish(
    id: string,
    status: 'done' | 'failed',
    at: Checkpoint,
    now: number,
    expiresAt: number,
    error?: string,
  ): void | Promise<void>
  /** queued or running to cancelled; the job as it is now */
  cancel(id: string, now: number, expiresAt: number): Job | null | Promise<Job | null>
  remove(id: string): void | Promise<void>
  /** finished jobs whose results expired before `now` */
  expiring(now: number): Job[] | Promise<Job[]>
  markExpired(id: string): void | Promise<void>
  /** rows a second the finished jobs of `operation` ran at, or null when none has */
  rateOf(operation: string): number | null | Promise<number | null>
  /**
   * Takes or keeps the right to run jobs (one runner at a time per JOBS_DIR, whichever process
   * holds it; in Redis, per host) for `ttlMs`; `alive` says whether a holder's pid on this host
   * still runs.
   */
  lease(owner: string, now: number, ttlMs: number, alive: (owner: string) => boolean): boolean | Promise<boolean>
  releaseLease(owner: string): void | Promise<void>
  close(): void
}
