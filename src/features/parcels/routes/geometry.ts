/** GET /parcels/{lpi}/geometry: the current version's boundary, as GeoJSON or WKT, optionally simplified. */
import type { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { toGeoJson, toWkt } from '../../../geo/polygon-output.js'
import { simplifyPreserveTopology } from '../../../geo/simplify.js'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import type { ParcelQueries } from '../queries.js'
import { GeometryEnvelopeSchema, GeometryQuerySchema, LpiParamsSchema } from '../schemas.js'
import { NOT_FOUND, TAG, filterOf, notFound, type ParcelRoutes } from './shared.js'

export function registerGeometryRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/geometry',
      operationId: 'getParcelGeometry',
      tags: TAG,
      summary: 'Boundary of the current version',
      description:
        'GeoJSON MultiPolygon (longitude first, RFC 7946 winding) or WKT, optionally simplified with a ' +
        'topology-preserving tolerance in metres.',
      request: { params: LpiParamsSchema, query: GeometryQuerySchema },
      responses: { 200: { description: 'The boundary.', schema: GeometryEnvelopeSchema }, 404: NOT_FOUND },
    },
    guards,
    (c, { params, query }) => parcelGeometry(c, service(c), params.lpi, query),
  )
}

function parcelGeometry(
  c: Context<AppEnv>,
  s: ParcelQueries,
  lpi: string,
  query: z.infer<typeof GeometryQuerySchema>,
): Response {
  const g = s.geometry(lpi, filterOf(query))
  if (!g) throw notFound(`the LPI ${lpi}`)
  const mp = query.simplify ? simplifyPreserveTopology(g.geometry, query.simplify) : g.geometry
  const wkt = query.format === 'WKT'
  return json(c, {
    parcel: g.parcel,
    format: wkt ? 'wkt' : 'geojson',
    geometry: wkt ? toWkt(mp) : toGeoJson(mp),
    dataset_version: s.version,
    message: query.simplify ? `Boundary simplified at ${query.simplify} m` : 'Boundary as surveyed',
  })
}
