/**
 * GET /parcels/by-key?source_key= and GET /parcels/by-key/{source_key} (the spec's form), and GET
 * /parcels/{lpi}: a parcel's records, current version first.
 */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { Filter, ParcelQueries } from '../queries.js'
import {
  LookupEnvelopeSchema,
  LpiParamsSchema,
  SourceKeyParamsSchema,
  SourceKeyQuerySchema,
  StatusQuerySchema,
} from '../schemas.js'
import { NOT_FOUND, TAG, filterOf, notFound, type ParcelRoutes } from './shared.js'

const BY_KEY_RESPONSES = {
  200: { description: 'Records, current version first.', schema: LookupEnvelopeSchema },
  404: NOT_FOUND,
}

/**
 * The lookup by Surveyor-General key, at two URLs that answer alike. The spec's
 * `/parcels/by-key/{source_key}` stays answered but is left out of the OpenAPI document: beside
 * `/parcels/{lpi}/geometry` (and the other `/parcels/{lpi}/...` paths) it is ambiguous, since
 * `/parcels/by-key/geometry` matches both templates (the router answers it as a key, being first).
 * The document describes `/parcels/by-key?source_key=` instead, which no other path matches
 * (docs/api.md "OpenAPI document").
 */
export function registerBySourceKeyRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/by-key',
      operationId: 'getParcelBySourceKey',
      tags: TAG,
      summary: 'Records for a Surveyor-General parcel key',
      description:
        "The same answer as the spec's `GET /api/v1/parcels/by-key/{source_key}`, which is answered too and " +
        'stays supported; this document names the query form because the path form is ambiguous beside ' +
        '`/api/v1/parcels/{lpi}/geometry` and its siblings.',
      request: { query: SourceKeyQuerySchema },
      responses: BY_KEY_RESPONSES,
    },
    guards,
    (c, { query }) => parcelsOfSourceKey(c, service(c), query.source_key, filterOf(query)),
  )
  router.add(
    {
      method: 'get',
      path: '/parcels/by-key/{source_key}',
      operationId: 'getParcelBySourceKeyInPath',
      hidden: true,
      tags: TAG,
      summary: 'Records for a Surveyor-General parcel key',
      request: { params: SourceKeyParamsSchema, query: StatusQuerySchema },
      responses: BY_KEY_RESPONSES,
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
      operationId: 'getParcelByLpi',
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
