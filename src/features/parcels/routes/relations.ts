/** GET /parcels/{lpi}/neighbours, /beacons and /general-plan: what lies around the current version. */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { Filter, ParcelQueries } from '../queries.js'
import {
  NEIGHBOURS_LIMIT_MAX,
  BeaconsEnvelopeSchema,
  GeneralPlansEnvelopeSchema,
  LpiParamsSchema,
  NeighboursEnvelopeSchema,
  NeighboursQuerySchema,
  StatusQuerySchema,
} from '../schemas.js'
import { NOT_FOUND, TAG, filterOf, notFound, type ParcelRoutes } from './shared.js'

export function registerRelationRoutes(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/neighbours',
      operationId: 'getParcelNeighbours',
      tags: TAG,
      summary: 'Adjacent parcels',
      description:
        'Never includes the parcel itself, its other versions, or a parcel that contains it or that it contains. ' +
        'Streets and public places count. `touching` neighbours come largest shared boundary first; `within` ' +
        'neighbours nearest first.',
      request: { params: LpiParamsSchema, query: NeighboursQuerySchema },
      responses: {
        200: { description: 'Neighbours of the current version.', schema: NeighboursEnvelopeSchema },
        404: NOT_FOUND,
      },
    },
    guards,
    (c, { params, query }) => parcelNeighbours(c, service(c), params.lpi, query),
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/beacons',
      operationId: 'getParcelBeacons',
      tags: TAG,
      summary: 'Survey beacons on the boundary, ordered around the ring',
      description:
        'Beacons within 0.5 m of the exterior ring, ordered by `ring_position` (0 to 1 along the ring from its ' +
        'first vertex, exterior counter-clockwise). Empty when none was captured.',
      request: { params: LpiParamsSchema, query: StatusQuerySchema },
      responses: { 200: { description: 'Beacons.', schema: BeaconsEnvelopeSchema }, 404: NOT_FOUND },
    },
    guards,
    (c, { params, query }) => parcelBeacons(c, service(c), params.lpi, filterOf(query)),
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/general-plan',
      operationId: 'getParcelGeneralPlan',
      tags: TAG,
      summary: 'General Plans covering the parcel',
      description:
        'Every General Plan sharing interior area with the current version, with its SG number `<number>/<year>`.',
      request: { params: LpiParamsSchema, query: StatusQuerySchema },
      responses: { 200: { description: 'General Plans.', schema: GeneralPlansEnvelopeSchema }, 404: NOT_FOUND },
    },
    guards,
    (c, { params, query }) => parcelGeneralPlans(c, service(c), params.lpi, filterOf(query)),
  )
}

function parcelNeighbours(
  c: Context<AppEnv>,
  s: ParcelQueries,
  lpi: string,
  query: z.infer<typeof NeighboursQuerySchema>,
): Response {
  const mode = query.mode === 'WITHIN' ? 'within' : 'touching'
  const r = s.neighbours(lpi, mode, query.distance, query.limit, filterOf(query))
  if (!r) throw notFound(`the LPI ${lpi}`)
  const what = mode === 'touching' ? 'touching' : `within ${query.distance} m`
  return json(c, {
    parcel: r.parcel,
    mode,
    neighbours: r.neighbours,
    dataset_version: s.version,
    message:
      r.neighbours.length < r.total
        ? `${r.neighbours.length} of ${plural(r.total, 'neighbour')} ${what} (the first ${query.limit}; ` +
          `\`limit\` takes up to ${NEIGHBOURS_LIMIT_MAX})`
        : r.neighbours.length
          ? `${plural(r.neighbours.length, 'neighbour')} ${what}`
          : `No neighbour ${what}`,
  })
}

function parcelBeacons(c: Context<AppEnv>, s: ParcelQueries, lpi: string, f: Filter): Response {
  const r = s.beacons(lpi, f)
  if (!r) throw notFound(`the LPI ${lpi}`)
  return json(c, {
    ...r,
    dataset_version: s.version,
    message: r.beacons.length
      ? `${plural(r.beacons.length, 'beacon')} on the boundary`
      : 'No beacon captured for this parcel',
  })
}

function parcelGeneralPlans(c: Context<AppEnv>, s: ParcelQueries, lpi: string, f: Filter): Response {
  const r = s.generalPlans(lpi, f)
  if (!r) throw notFound(`the LPI ${lpi}`)
  return json(c, {
    ...r,
    dataset_version: s.version,
    message: r.general_plans.length
      ? `${plural(r.general_plans.length, 'General Plan')} ${r.general_plans.length === 1 ? 'covers' : 'cover'} the parcel`
      : 'No General Plan covers this parcel',
  })
}
