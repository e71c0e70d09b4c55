/**
 * `GET /encumbrances/within`: a page of the current encumbrances meeting a bounding box.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import { isGeoJson } from '../../../http/geojson.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { encumbrancesGeoJson } from '../geojson.js'
import type { EncumbranceQueries } from '../queries.js'
import { recordOf } from '../records.js'
import { ListEnvelopeSchema } from '../answers.js'
import { WithinQuerySchema } from '../schemas.js'
import { envelope, found, TAG, type EncumbranceService } from './shared.js'

/** One page of the records in the box, with their geometry and the cursor of the next. */
export function answerWithin(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  query: z.output<typeof WithinQuerySchema>,
): Response {
  const page = s.within(query.bbox, query.encumbrance_class, query.limit, query.cursor)
  return (isGeoJson(c) ? encumbrancesGeoJson : json)(c, {
    encumbrances: page.rows.map(({ row, geometry }) => recordOf(row, { geometry })),
    count: page.rows.length,
    limit: query.limit,
    // absent on the last page: absent fields are omitted, never null
    ...(page.next !== null ? { next_cursor: page.next } : {}),
    message: found(page.rows.length, 'in the box', s) + (page.next !== null ? '; more follow (next_cursor)' : ''),
    ...envelope(s),
  })
}

export function registerWithinRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/within',
      operationId: 'getEncumbrancesWithin',
      tags: TAG,
      summary: 'Encumbrances in a bounding box',
      description:
        'Current encumbrances whose geometry meets `bbox` (`minlon,minlat,maxlon,maxlat`, each side at most 1°), ' +
        'in source order, `limit` per page (1–1000, default 100); send `next_cursor` back as `cursor` for the ' +
        'next page (absent on the last).',
      request: { query: WithinQuerySchema },
      geojson: true,
      responses: { 200: { description: 'List envelope.', schema: ListEnvelopeSchema } },
    },
    guards,
    (c, { query }) => answerWithin(c, service(c), query),
  )
}
