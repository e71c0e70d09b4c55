/** `GET /jurisdiction/parcel/{lpi}`: the chain of a parcel, from its label point. */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { round } from '../../../geo/round.js'
import type { JurisdictionQueries } from '../queries.js'
import { ParcelChainEnvelopeSchema } from '../answers.js'
import { AsAtQuerySchema, LpiParamsSchema } from '../schemas.js'
import { chainMessage, envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

export function registerParcelRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/parcel/{lpi}',
      operationId: 'getJurisdictionOfParcel',
      tags: TAG,
      summary: 'Chain for a parcel, from its label point',
      description:
        "The parcel is the current published version of the LPI (the parcel service's default status filter); its " +
        'label point is resolved as /at does. ' +
        'A note names every boundary the parcel straddles (judged from its vertices and edge midpoints: a sample ' +
        "outside the label's boundary but inside another of the same type). Unknown or hidden LPI: 404 " +
        'ParcelNotFound.',
      request: { params: LpiParamsSchema, query: AsAtQuerySchema },
      responses: {
        200: { description: 'The chain.', schema: ParcelChainEnvelopeSchema },
        404: {
          description: 'ParcelNotFound, or NoJurisdictionAtPoint when the label point lies outside every boundary.',
        },
        503: {
          description: 'JurisdictionDataUnavailable, or ParcelDataUnavailable when the cadastre is not installed.',
        },
      },
    },
    guards,
    (c, { params, query }) => chainOfParcel(c, service(c), params.lpi, query.as_at),
  )
}

/** The chain of the published parcel `lpi` on `asAt` (default today). */
function chainOfParcel(c: Context<AppEnv>, s: JurisdictionQueries, lpi: string, asAt: string | undefined): Response {
  const d = asAt ?? today()
  const r = s.resolveParcel(lpi, d)
  if (r === 'no-parcels')
    throw new ApiError(
      'ParcelDataUnavailable',
      'the parcel dataset is not installed on this deployment, so parcels cannot be resolved',
    )
  if (!r) throw new ApiError('ParcelNotFound', `no published parcel carries the LPI ${lpi}`)
  if (!r.found && s.earliest !== null && d >= s.earliest) {
    const nearest = s.nearest(r.label[0], r.label[1], d)
    throw new ApiError(
      'NoJurisdictionAtPoint',
      `no boundary in force on ${d} contains the label point of ${lpi}`,
      nearest ? { nearest } : undefined,
    )
  }
  return json(c, {
    lpi: r.lpi,
    label_point: { latitude: round(r.label[1], 7), longitude: round(r.label[0], 7) },
    jurisdiction: r.jurisdiction,
    notes: r.notes,
    as_at: d,
    message: chainMessage(r.found, d) + ` for parcel ${r.lpi}`,
    ...envOf(s),
  })
}
