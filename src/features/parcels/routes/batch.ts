/** POST /parcels/batch: the first parcel at each point, or the current record of each LPI, as bytes. */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { reply } from '../../../http/reply.js'
import type { Filter, ParcelQueries } from '../queries.js'
import { BATCH_MAX, BatchBodySchema, BatchEnvelopeSchema } from '../schemas.js'
import { TAG, writer, type ParcelRoutes } from './shared.js'

export function registerBatchRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'post',
      path: '/parcels/batch',
      operationId: 'postParcelsBatch',
      tags: TAG,
      summary: `Resolve up to ${BATCH_MAX} points or LPIs in one call`,
      description:
        'Results are in input order, null where nothing matched (or the LPI is hidden by the default status ' +
        'filter). Counts as one request against the rate limit. Send `include_status: "all"` in the body to ' +
        'lift the status filter. A body over 2 MB is a 413.',
      request: { body: BatchBodySchema },
      responses: { 200: { description: 'Results in input order.', schema: BatchEnvelopeSchema } },
    },
    guards,
    (c, { body }) => parcelBatch(c, service(c), body),
  )
}

/** The results in input order, null where nothing matched. */
function parcelBatch(c: Context<AppEnv>, s: ParcelQueries, body: z.infer<typeof BatchBodySchema>): Response {
  const f: Filter = { all: body.include_status === 'all' }
  // { results, found, not_found, dataset_version, message } written as bytes, record by record
  writer.start().ascii('{"results":[')
  let found = 0
  const n = body.points ? body.points.length : body.lpis!.length
  for (let k = 0; k < n; k++) {
    if (k) writer.ascii(',')
    const hit = body.points
      ? s.writeFirstAt(writer, body.points[k].longitude, body.points[k].latitude, f)
      : s.writeCurrent(writer, body.lpis![k], f)
    if (hit) found++
  }
  writer
    .ascii('],"found":')
    .int(found)
    .ascii(',"not_found":')
    .int(n - found)
  writer.ascii(',"dataset_version":').string(s.version)
  writer
    .ascii(',"message":')
    .string(`${found} of ${n} ${body.points ? 'points' : 'LPIs'} resolved`)
    .ascii('}')
  return reply(c, writer.take(), 200, 'application/json')
}
