/** GET /parcels/coverage: the load ledger per province and layer. */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import type { ParcelQueries } from '../queries.js'
import { CoverageEnvelopeSchema } from '../schemas.js'
import { TAG, type ParcelRoutes } from './shared.js'

export function registerCoverageRoute(router: ApiRouter, { guards, service }: ParcelRoutes): void {
  router.add(
    {
      method: 'get',
      path: '/parcels/coverage',
      operationId: 'getParcelCoverage',
      tags: TAG,
      summary: 'Load ledger: what this deployment holds, per province and layer',
      description:
        'One row per province and layer (the six parcel layers, BEACON and GENERAL_PLAN), including layers the ' +
        'export does not have (`present: false`, e.g. holdings outside FS, GP, KZN, LP, MP and NW). `loaded_at` ' +
        'is when the served build was written (its manifest), not when this server started; `geometries_repaired` counts geometries repaired on ingest.',
      request: {},
      responses: { 200: { description: 'The ledger.', schema: CoverageEnvelopeSchema } },
    },
    guards,
    (c) => parcelCoverage(c, service(c)),
  )
}

/** The ledger, with the parcel records loaded (beacons and General Plans not counted). */
function parcelCoverage(c: Context<AppEnv>, s: ParcelQueries): Response {
  const coverage = s.coverage()
  const total = coverage
    .filter((r) => r.layer !== 'BEACON' && r.layer !== 'GENERAL_PLAN')
    .reduce((a, r) => a + r.records, 0)
  return json(c, { coverage, as_of: s.asOf, dataset_version: s.version, message: `${total} parcel records loaded` })
}
