/**
 * A request the server makes of itself: a bulk job's row (src/jobs/app-rows.ts), answered by
 * the same route as the online request with those parameters. It is marked in the Hono `env` of
 * the call (`app.fetch(request, { [INTERNAL]: … })`) under a symbol, which no HTTP request can
 * carry (the server's env is `{ incoming, outgoing }`), rather than by a header a client could
 * forge. Marked, it is not authenticated again (it carries its job's key), not counted against
 * the per-minute rate (the job's rows were counted against the bulk allowance), not
 * access-logged one line per row, and served from the job's pinned build.
 *
 * @module
 */
import type { Context } from 'hono'
import type { ApiKeyRecord } from '../auth/types.js'
import type { DatasetSnapshot } from '../data/open-dataset.js'
import type { AppEnv } from './env.js'

export const INTERNAL: unique symbol = Symbol('internal request')

/** What an internal request is answered with. */
export interface InternalRequest {
  key: ApiKeyRecord
  snapshot: DatasetSnapshot<unknown>
}

/** The marking of an internal request, or undefined for one from the network. */
export function internalOf(c: Context<AppEnv>): InternalRequest | undefined {
  return (c.env as { [INTERNAL]?: InternalRequest } | undefined)?.[INTERNAL]
}
