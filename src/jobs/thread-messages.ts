/**
 * What the jobs' worker threads (row-thread.ts) and their pool (thread-rows.ts) say to each
 * other. Plain data only: every message is copied by the structured clone of `postMessage`.
 *
 * @module
 */
import type { ApiKeyRecord } from '../auth/types.js'
import type { OpenOptions } from '../data/open-dataset.js'
import type { RowAnswer } from './runner.js'

/** What a thread is started with (its `workerData`). */
export interface RowThreadData {
  /** the thread's log level (LOG_LEVEL): a row that fails with a 500 is logged there */
  logLevel: string
  /** how it opens a build (SQLITE_MMAP_MB, INDEX_MMAP), as the server does */
  open: OpenOptions
  /** (0, 1]: the share of the time it works (JOBS_CPU_SHARE) */
  cpuShare: number
  /** ms of work before each rest */
  sliceMs: number
}

/** To a thread: answer a batch of one job's rows, or close a build no job of the thread uses any more. */
export type ToRowThread =
  | {
      type: 'batch'
      id: number
      /** the build's directory (as opened by the server: its real path), and its name */
      dir: string
      build: string
      /** the job's key: each row is answered as that key's request */
      key: ApiKeyRecord
      /** each row's request, from the API root (`/api/v1/parcels/at?lat=…`) */
      urls: string[]
    }
  | { type: 'release'; dir: string }

/**
 * From a thread, once per batch: the answers in the rows' order, or why none could be given;
 * with the thread's CPU time so far and its time spent on batches (rests included), in µs.
 */
export type FromRowThread = { id: number; cpuMicros: number; answeringMicros: number } & (
  | { type: 'answers'; answers: RowAnswer[] }
  | { type: 'failed'; message: string }
)
