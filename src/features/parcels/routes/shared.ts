/** What every parcel route shares: its guards and service, the status filter, the 404, and the byte writer. */
import type { ParcelType } from '../../../data/parcels-format.js'
import { ApiError } from '../../../http/errors.js'
import type { ApiTag } from '../../../http/openapi.js'
import type { RouteGuard } from '../../../http/env.js'
import { JsonBytes } from '../../../http/json-bytes.js'
import type { Filter, ParcelQueries } from '../queries.js'
import type { Service } from '../../../http/service-guard.js'

/** The guards of every parcel route and its service (a 503 when the dataset holds no parcels). */
export interface ParcelRoutes {
  guards: RouteGuard[]
  service: Service<ParcelQueries>
}

/** The /parcels/at and batch answers are written by this one writer (synchronously, so requests never share it). */
export const writer = new JsonBytes()

/** The OpenAPI tag of every parcel operation. */
export const TAG: readonly ApiTag[] = [
  {
    name: 'Parcels',
    description:
      'The South African parcel cadastre (spec 001, product `parcels`): parcels at a point or in a box, by LPI or ' +
      'Surveyor-General key, their boundaries, neighbours, beacons and General Plans, batch lookups and tiles.',
  },
]

export const filterOf = (q: { include_status?: string; parcel_type?: string }): Filter => ({
  all: q.include_status === 'all',
  ...(q.parcel_type ? { type: q.parcel_type as ParcelType } : {}),
})

export const NOT_FOUND = {
  description: 'ParcelNotFound: no parcel (visible under the status filter) carries this identifier.',
}

export const notFound = (what: string) => new ApiError('ParcelNotFound', `no parcel carries ${what}`)
