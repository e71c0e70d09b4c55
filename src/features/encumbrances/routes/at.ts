/**
 * `GET /encumbrances/at`: the current encumbrances at a point or within a radius of it.
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
import { AtQuerySchema } from '../schemas.js'
import { envelope, found, TAG, type EncumbranceService } from './shared.js'

/** The records at the point, nearest first, each with its distance and geometry. */
export function answerAt(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  { latitude, longitude, radius_m, encumbrance_class }: z.output<typeof AtQuerySchema>,
): Response {
  const hits = s.at(longitude, latitude, radius_m, encumbrance_class)
  return (isGeoJson(c) ? encumbrancesGeoJson : json)(c, {
    encumbrances: hits.map((h) => recordOf(h.row, { distanceM: h.distanceM, geometry: s.geometryOf(h.row) })),
    count: hits.length,
    message: found(hits.length, radius_m ? `within ${radius_m} m of the point` : 'at the point', s),
    ...envelope(s),
  })
}

export function registerAtRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/at',
      operationId: 'getEncumbrancesAt',
      tags: TAG,
      summary: 'Encumbrances at a point',
      description:
        '`latitude` and `longitude` are required (WGS84). Current encumbrances containing the point, or within ' +
        '`radius_m` of it (geodesic, 0–1000, default 0), nearest first then by uid, each with `distance_m`. ' +
        'A dimensioned servitude line is measured from its strip, an undimensioned one from the line.',
      request: { query: AtQuerySchema },
      geojson: true,
      responses: { 200: { description: 'List envelope.', schema: ListEnvelopeSchema } },
    },
    guards,
    (c, { query }) => answerAt(c, service(c), query),
  )
}
