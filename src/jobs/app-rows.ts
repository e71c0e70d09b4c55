/**
 * A job's rows answered by the app itself (docs/api.md "Bulk jobs": a row's answer is the
 * endpoint's): each row is a GET to the operation's path through `app.fetch`, marked internal
 * (src/http/internal-request.ts) so it carries the job's key, is not counted against the
 * per-minute rate or access-logged, and is served from the build the job pinned for its whole
 * run. Calling the app rather than the route's handler keeps every step of the online request
 * (guards, aliases, validation, the handler, the error envelope) in the answer.
 *
 * The server answers them on worker threads (thread-rows.ts, row-thread.ts), each with its own
 * app over the same build; `appRows` answers them on the calling thread, over this app (tests).
 *
 * @module
 */
import type { DatasetSnapshot } from '../data/open-dataset.js'
import type { SnapshotPins } from '../http/front-door.js'
import { INTERNAL, type InternalRequest } from '../http/internal-request.js'
import type { JobOperation } from './operations.js'
import type { RowAnswer, RowExecutor } from './runner.js'
import type { Job } from './types.js'

/** The part of the app a job calls. */
export interface Fetcher {
  fetch(request: Request, env: Record<PropertyKey, unknown>): Response | Promise<Response>
}

/** A job's operation and the build it runs on. */
export interface PinnedJob {
  op: JobOperation
  snapshot: DatasetSnapshot<unknown>
}

/**
 * The executor of each job, `rows(job, pinned)`, over the build served when it starts, pinned
 * until it closes (one build per job: a switch closes nothing under it); or why the job cannot go
 * on (nothing is then pinned).
 */
export function pinnedExecutors(
  pins: SnapshotPins,
  operation: (id: string) => JobOperation | undefined,
  rows: (job: Job, pinned: PinnedJob) => Omit<RowExecutor, 'build'>,
): (job: Job) => RowExecutor | string {
  return (job) => {
    const op = operation(job.operation)
    if (!op) return `the operation ${job.operation} is no longer served`
    const snapshot = pins.acquire()
    // a job resumed after a restart on another build cannot go on
    if (job.build !== null && job.build !== snapshot.build) {
      pins.release(snapshot)
      return `the job ran on build ${job.build}, which is no longer served (now ${snapshot.build}); submit it again`
    }
    const exec = rows(job, { op, snapshot })
    return {
      ...exec,
      build: snapshot.build,
      close: () => {
        exec.close()
        pins.release(snapshot)
      },
    }
  }
}

/** One row's request (`url`: from the API root, as JobOperation.url makes it) asked of `app`. */
export async function askApp(app: Fetcher, url: string, internal: InternalRequest): Promise<RowAnswer> {
  const res = await app.fetch(new Request(`http://job.internal${url}`), { [INTERNAL]: internal })
  return { status: res.status, body: await res.text() }
}

/** The executor of each job on this thread, by `app` (see pinnedExecutors). */
export function appRows(
  app: Fetcher,
  pins: SnapshotPins,
  base: string,
  operation: (id: string) => JobOperation | undefined,
): (job: Job) => RowExecutor | string {
  return pinnedExecutors(pins, operation, (job, { op, snapshot }) => {
    const internal: InternalRequest = { key: job.key, snapshot }
    return {
      answer: async (rows) => {
        const answers: RowAnswer[] = []
        for (const row of rows) answers.push(await askApp(app, op.url(base, row), internal))
        return answers
      },
      close: () => {},
    }
  })
}
