/** GET /parcels/by-key/{source_key} and GET /parcels/{lpi}: a parcel's records, current version first. */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { Filter, ParcelQueries } from '../queries.js'
import { LookupEnvelopeSchema, LpiParamsSchema, SourceKeyParamsSchema, StatusQuerySchema } from '../schemas.js'
import { NOT_FOUND, TAG, filterOf, notFound, type ParcelRoutes } from './shared.js'

export function registerBySourceKeyRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/by-key/{source_key}',
      tags: TAG,
      summary: 'Records for a Surveyor-General parcel key',
      request: { params: SourceKeyParamsSchema, query: StatusQuerySchema },
      responses: {
        200: { description: 'Records, current version first.', schema: LookupEnvelopeSchema },
        404: NOT_FOUND,
      },
    },
    guards,
    (c, { params, query }) => parcelsOfSourceKey(c, service(c), params.source_key, filterOf(query)),
  )
}

/** The last parcel route: its path also matches the fixed `/parcels/...` paths registered before it. */
export function registerByLpiRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}',
      tags: TAG,
      summary: 'Records for an LPI, current version first',
      description:
        'An LPI whose every version is hidden by the default status filter is a 404; `include_status=all` shows ' +
        'its versions.',
      request: { params: LpiParamsSchema, query: StatusQuerySchema },
      responses: {
        200: { description: 'Records, current version first.', schema: LookupEnvelopeSchema },
        404: NOT_FOUND,
      },
    },
    guards,
    (c, { params, query }) => parcelsOfLpi(c, service(c), params.lpi, filterOf(query)),
  )
}

function parcelsOfSourceKey(c: Context<AppEnv>, s: ParcelQueries, sourceKey: string, f: Filter): Response {
  const parcels = s.bySourceKey(sourceKey, f)
  if (!parcels.length) throw notFound(`the source key ${sourceKey}`)
  return json(c, {
    parcels,
    message: `${plural(parcels.length, 'record')} for source key ${sourceKey}`,
    dataset_version: s.version,
  })
}

function parcelsOfLpi(c: Context<AppEnv>, s: ParcelQueries, lpi: string, f: Filter): Response {
  const parcels = s.byLpi(lpi, f)
  if (!parcels.length) throw notFound(`the LPI ${lpi}`)
  return json(c, { parcels, message: `${plural(parcels.length, 'record')} for LPI ${lpi}`, dataset_version: s.version })
}
