/** GET /parcels/at: every parcel holding a point, or a 404 naming the nearest one. */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import { isGeoJson } from '../../../http/geojson.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { reply } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { parcelsGeoJson } from '../geojson.js'
import type { Filter, ParcelQueries } from '../queries.js'
import { AtQuerySchema, LookupEnvelopeSchema, NEAREST_MAX_M, NearestParcelSchema } from '../schemas.js'
import { TAG, filterOf, writer, type ParcelRoutes } from './shared.js'

export function registerAtRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/at',
      operationId: 'getParcelAt',
      tags: TAG,
      summary: 'Every parcel containing a point, most specific first',
      description:
        'Point-in-polygon over the six layers; a point on a boundary is inside (closed sets). Order: ERF, ' +
        'PUBLIC_PLACE and STREET first, then HOLDING, FARM_PORTION, PARENT_FARM; within a layer the smaller ' +
        'parcel first; versions of one LPI current first. ' +
        `None: 404 NoParcelAtPoint with \`details.nearest\` (a parcel record plus \`distance_meters\`, geodesic to ` +
        `its boundary) when a parcel obeying the same filters lies within ${NEAREST_MAX_M} m.`,
      request: { query: AtQuerySchema },
      geojson: true,
      responses: {
        200: { description: 'Containing parcels.', schema: LookupEnvelopeSchema },
        404: {
          description: 'NoParcelAtPoint; `details.nearest` when a parcel lies within 2 km.',
          schema: NearestParcelSchema,
        },
      },
    },
    guards,
    (c, { query }) =>
      (isGeoJson(c) ? parcelsAtGeoJson : parcelsAt)(c, service(c), query.longitude, query.latitude, filterOf(query)),
  )
}

/** The parcels holding the point, or NoParcelAtPoint with the nearest within NEAREST_MAX_M. */
function parcelsAt(c: Context<AppEnv>, s: ParcelQueries, longitude: number, latitude: number, f: Filter): Response {
  const parcels = s.found(longitude, latitude, f)
  if (!parcels.count) throw noParcelAt(s, longitude, latitude, f)
  // { parcels, message, dataset_version } written as bytes: JSON.stringify and the record
  // objects were a tenth of this route's CPU under load
  writer.start().ascii('{"parcels":')
  parcels.write(writer)
  writer
    .ascii(',"message":')
    .string(`${plural(parcels.count, 'parcel')} contain the point; the first is the most specific`)
  writer.ascii(',"dataset_version":').string(s.version).ascii('}')
  return reply(c, writer.take(), 200, 'application/json')
}

/** parcelsAt's answer as a FeatureCollection, each parcel with its boundary. */
function parcelsAtGeoJson(c: Context<AppEnv>, s: ParcelQueries, longitude: number, latitude: number, f: Filter) {
  const parcels = s.at(longitude, latitude, f)
  if (!parcels.length) throw noParcelAt(s, longitude, latitude, f)
  const message = `${plural(parcels.length, 'parcel')} contain the point; the first is the most specific`
  return parcelsGeoJson(c, s, { parcels, message, dataset_version: s.version }, parcels)
}

/** NoParcelAtPoint, naming the nearest parcel within NEAREST_MAX_M that obeys the filter. */
function noParcelAt(s: ParcelQueries, longitude: number, latitude: number, f: Filter): ApiError {
  const nearest = s.nearest(longitude, latitude, NEAREST_MAX_M, f)
  return new ApiError(
    'NoParcelAtPoint',
    nearest
      ? `no parcel contains the point; the nearest is ${nearest.distance_meters} m away`
      : `no parcel contains the point, and none lies within ${NEAREST_MAX_M} m`,
    nearest ? { nearest } : undefined,
  )
}
