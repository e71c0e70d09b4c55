/**
 * A job's rows answered by the app itself (docs/api.md "Bulk jobs": a row's answer is the
 * endpoint's): each row is a GET to the operation's path through `app.fetch`, marked internal
 * (src/http/internal-request.ts) so it carries the job's key, is not counted against the
 * per-minute rate or access-logged, and is served from the build the job pinned for its whole
 * run. Calling the app rather than the route's handler keeps every step of the online request
 * (guards, aliases, validation, the handler, the error envelope) in the answer.
 *
 * @module
 */
import type { SnapshotPins } from '../http/front-door.js'
import { INTERNAL, type InternalRequest } from '../http/internal-request.js'
import type { JobOperation } from './operations.js'
import type { RowExecutor } from './runner.js'
import type { Job } from './types.js'

/** The part of the app a job calls. */
export interface Fetcher {
  fetch(request: Request, env: Record<PropertyKey, unknown>): Response | Promise<Response>
}

/** The executor of each job: the build served now pinned, or why the job cannot go on. */
export function appRows(
  app: Fetcher,
  pins: SnapshotPins,
  base: string,
  operation: (id: string) => JobOperation | undefined,
): (job: Job) => RowExecutor | string {
  return (job) => {
    const op = operation(job.operation)
    if (!op) return `the operation ${job.operation} is no longer served`
    const snapshot = pins.acquire()
    // one build per job: a job resumed after a restart on another build cannot go on
    if (job.build !== null && job.build !== snapshot.build) {
      pins.release(snapshot)
      return `the job ran on build ${job.build}, which is no longer served (now ${snapshot.build}); submit it again`
    }
    const env = { [INTERNAL]: { key: job.key, snapshot } satisfies InternalRequest }
    return {
      build: snapshot.build,
      answer: async (row) => {
        const res = await app.fetch(new Request(`http://job.internal${op.url(base, row)}`), env)
        return { status: res.status, body: await res.text() }
      },
      close: () => pins.release(snapshot),
    }
  }
}
