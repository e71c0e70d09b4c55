/**
 * `GET /encumbrances/parcel/{lpi}` (every encumbrance meeting a parcel, with the part inside)
 * and `GET /encumbrances/summary/parcel/{lpi}` (the cheap screening summary).
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { areaSqm } from '../../../geo/overlay/measure.js'
import { round } from '../../../geo/round.js'
import type { EncumbranceQueries } from '../queries.js'
import { recordOf } from '../records.js'
import { ParcelEnvelopeSchema, SummaryEnvelopeSchema } from '../answers.js'
import { EncLpiParamsSchema } from '../schemas.js'
import { envelope, found, parcelOr404, parcelSummary, TAG, type EncumbranceService } from './shared.js'

type LpiParams = z.output<typeof EncLpiParamsSchema>

/** Every current encumbrance meeting the parcel, its part inside the parcel as geometry. */
export function answerParcel(c: Context<AppEnv>, s: EncumbranceQueries, { lpi }: LpiParams): Response {
  const p = parcelOr404(s, lpi)
  const parcelMp = s.parcelGeometry(p.id)
  const items = s.overlapsOfParcel(p.id).map(({ row, overlap }) => {
    const geometry = overlap.clip ?? (overlap.relationship === 'contains' ? { mp: parcelMp } : s.geometryOf(row))
    return recordOf(row, { overlap, geometry })
  })
  return json(c, {
    encumbrances: items,
    parcel: { lpi: p.lpi, parcel_type: p.parcel_type, province: p.province, area_sqm: round(areaSqm(parcelMp), 2) },
    message: found(items.length, `intersecting parcel ${p.lpi}`, s),
    ...envelope(s),
  })
}

/** The parcel's counts per class and largest overlap. */
export function answerParcelSummary(c: Context<AppEnv>, s: EncumbranceQueries, { lpi }: LpiParams): Response {
  const p = parcelOr404(s, lpi)
  const sum = parcelSummary(s, p)
  const n = Object.values(sum.counts_by_class).reduce((a, b) => a + b, 0)
  return json(c, { ...sum, message: found(n, `meeting parcel ${p.lpi}`, s), ...envelope(s) })
}

export function registerParcelRoutes(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/parcel/{lpi}',
      operationId: 'getEncumbrancesOfParcel',
      tags: TAG,
      summary: 'All encumbrances intersecting a parcel',
      description:
        "The parcel is the current published version of the LPI (the parcel service's default status filter; an " +
        'LPI whose every version is hidden answers 404 ParcelNotFound). ' +
        'Every current encumbrance meeting it, with `relationship` (the encumbrance relative to the parcel), ' +
        "`overlap_sqm` (geodesic m²), `overlap_pct_of_parcel` (of the parcel's computed area) and, for lines, " +
        '`overlap_m`; ' +
        '`geometry` is the part inside the parcel. A line along the boundary touches (`overlap_sqm` 0, `overlap_m` ' +
        'the shared length); an undimensioned line inside has `overlap_sqm` null and a `note`. ' +
        'Ordered by share of the parcel (highest first), then overlap length, then uid. Cancelled, withdrawn, ' +
        'historic and pending records are never included. ' +
        'An empty list says nothing was found in the dataset, never that the property is unencumbered.',
      request: { params: EncLpiParamsSchema },
      responses: {
        200: { description: 'The encumbrances.', schema: ParcelEnvelopeSchema },
        404: { description: 'ParcelNotFound.' },
        503: {
          description: 'EncumbranceDataUnavailable, or ParcelDataUnavailable when the cadastre is not installed.',
        },
      },
    },
    guards,
    (c, { params }) => answerParcel(c, service(c), params),
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/summary/parcel/{lpi}',
      operationId: 'getEncumbranceSummaryOfParcel',
      tags: TAG,
      summary: 'Cheap screening summary of a parcel',
      description:
        'Counts of current encumbrances meeting the parcel per class (touching ones included), the classes ' +
        'present, and the largest single overlap as a percentage of the parcel (`highest_impact_pct`, 0 when ' +
        'none has area). ' +
        '`has_encumbrances` false means nothing was found in the dataset, not that the property is unencumbered.',
      request: { params: EncLpiParamsSchema },
      responses: {
        200: { description: 'The summary.', schema: SummaryEnvelopeSchema },
        404: { description: 'ParcelNotFound.' },
        503: { description: 'EncumbranceDataUnavailable or ParcelDataUnavailable.' },
      },
    },
    guards,
    (c, { params }) => answerParcelSummary(c, service(c), params),
  )
}
