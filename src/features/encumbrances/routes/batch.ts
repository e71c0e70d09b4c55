/**
 * `POST /encumbrances/batch`: the summaries of up to BATCH_MAX parcels, by LPI or by point.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { EncumbranceQueries } from '../queries.js'
import { BatchEnvelopeSchema } from '../answers.js'
import { BATCH_MAX, BatchBodySchema } from '../schemas.js'
import { envelope, needParcels, parcelSummary, TAG, type EncumbranceService } from './shared.js'

/** Each item's parcel summary, in input order, null where no parcel was found. */
export function answerBatch(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  body: z.output<typeof BatchBodySchema>,
): Response {
  needParcels(s)
  const results = body.map((it) => {
    const p = it.lpi !== undefined ? s.parcelByLpi(it.lpi) : s.parcelAt(it.longitude!, it.latitude!)
    return p ? parcelSummary(s, p) : null
  })
  const hit = results.filter((r) => r !== null).length
  const encumbered = results.filter((r) => r?.has_encumbrances).length
  return json(c, {
    results,
    found: hit,
    not_found: results.length - hit,
    message:
      `${plural(hit, 'parcel')} of ${results.length} found; ${encumbered} with encumbrances in dataset ${s.version}. A parcel without ` +
      `any is not thereby unencumbered.`,
    ...envelope(s),
  })
}

export function registerBatchRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'post',
      path: '/encumbrances/batch',
      operationId: 'postEncumbrancesBatch',
      tags: TAG,
      summary: `Screen up to ${BATCH_MAX} parcels`,
      description:
        `Body: a JSON array of 1 to ${BATCH_MAX} items (or \`{"items": [...]}\`), each \`{"lpi"}\` or ` +
        `\`{"latitude", "longitude"}\`. A point screens the most specific current parcel containing it (erf ` +
        `first, parent farm last). ` +
        '`results` is in input order: the summary record of each parcel (as /summary/parcel), or null where no ' +
        'parcel was found. Counts as one request.',
      request: { body: BatchBodySchema },
      responses: {
        200: { description: 'Aligned results.', schema: BatchEnvelopeSchema },
        503: { description: 'EncumbranceDataUnavailable or ParcelDataUnavailable.' },
      },
    },
    guards,
    (c, { body }) => answerBatch(c, service(c), body),
  )
}
