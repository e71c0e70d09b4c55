/**
 * `GET /encumbrances/{encumbrance_uid}`: one record (any status) with the parcels it affects.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { EncumbranceQueries } from '../queries.js'
import { recordOf, UNDIMENSIONED_NOTE } from '../records.js'
import { DetailEnvelopeSchema } from '../answers.js'
import { UidParamsSchema } from '../schemas.js'
import { envelope, TAG, type EncumbranceService } from './shared.js'

/** The record with its geometry; a current one with every current parcel it meets. */
export function answerDetail(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  { encumbrance_uid }: z.output<typeof UidParamsSchema>,
): Response {
  const r = s.byUid(encumbrance_uid)
  if (!r) throw new ApiError('EncumbranceNotFound', `no encumbrance carries the uid ${encumbrance_uid}`)
  const affected = r.recordStatus
    ? []
    : s.affectedParcels(r.id).map(({ parcel, overlap }) => ({
        lpi: parcel.lpi,
        parcel_type: parcel.parcel_type,
        province: parcel.province,
        relationship: overlap.relationship,
        overlap_sqm: overlap.overlapSqm ?? null,
        ...(overlap.overlapM !== undefined ? { overlap_m: overlap.overlapM } : {}),
        ...(overlap.pct !== undefined ? { overlap_pct_of_parcel: overlap.pct } : {}),
        ...(overlap.overlapSqm === null ? { note: UNDIMENSIONED_NOTE } : {}),
      }))
  const message = r.recordStatus
    ? `Encumbrance ${r.uid} is ${r.recordStatus.toLowerCase()}: it is excluded from intersections, so no affected ` +
      `parcels are listed`
    : `Encumbrance ${r.uid} affects ${plural(affected.length, 'current parcel')} in dataset ${s.version}`
  return json(c, {
    encumbrance: recordOf(r, { geometry: s.geometryOf(r) }),
    affected_parcels: affected,
    message,
    ...envelope(s),
  })
}

export function registerDetailRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/{encumbrance_uid}',
      operationId: 'getEncumbrance',
      tags: TAG,
      summary: 'One encumbrance with the parcels it affects',
      description:
        'The record (any status) with its geometry and `affected_parcels`: every current parcel it meets, by ' +
        'parcel id, with relationship and overlap. A cancelled, withdrawn, historic or pending record answers ' +
        '200 with its `record_status` and no affected parcels (such records are excluded from every ' +
        'intersection). Unknown uid: 404 EncumbranceNotFound.',
      request: { params: UidParamsSchema },
      responses: {
        200: { description: 'The encumbrance.', schema: DetailEnvelopeSchema },
        404: { description: 'EncumbranceNotFound.' },
      },
    },
    guards,
    (c, { params }) => answerDetail(c, service(c), params),
  )
}
