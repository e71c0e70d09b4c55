/**
 * What every jurisdiction route shares: its tag and guards, the service getter, today's date,
 * the envelope fields, the chain message, and the boundary-in-force lookup that answers 404.
 */
import { johannesburgDate } from '../../../auth/dates.js'
import type { BoundaryType } from '../../../data/jurisdiction-format.js'
import type { RouteGuard } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import type { ApiTag } from '../../../http/openapi.js'
import type { BoundaryRow, JurisdictionQueries } from '../queries.js'
import type { Service } from '../../../http/service-guard.js'

/** The OpenAPI tag of every jurisdiction operation. */
export const TAG: readonly ApiTag[] = [
  {
    name: 'Jurisdiction',
    description:
      'Jurisdiction in South Africa (spec 002, product `jurisdiction`): province, municipality, ward, ' +
      'registration division, Deeds Office and township at a point or of a parcel, the boundaries, search, ' +
      'coverage, a heatmap and tiles.',
  },
]

/** What registerJurisdictionRoutes hands every route family. */
export interface JurisdictionRouteContext {
  /** product and country checks */
  guards: RouteGuard[]
  /** the service, or 503 JurisdictionDataUnavailable */
  service: Service<JurisdictionQueries>
}

/** Today in Africa/Johannesburg, the default `as_at`. */
export const today = (): string => johannesburgDate(new Date())

/** The fields every answer ends with. */
export function envOf(s: JurisdictionQueries): { as_of: string; dataset_version: string } {
  return { as_of: s.asOf, dataset_version: s.version }
}

export function chainMessage(found: boolean, d: string): string {
  return found ? `Jurisdiction chain on ${d}` : `No boundary in force on ${d} contains the point`
}

/** The boundary in force on `d`, or 404 BoundaryNotFound naming the dates it was in force. */
export function boundaryAt(s: JurisdictionQueries, type: BoundaryType, code: string, d: string): BoundaryRow {
  const r = s.byCode(type, code, d)
  if (r) return r
  const versions = s.versionsOf(type, code)
  const when = versions.map((v) => `${v.vintage} (${v.from ?? '…'} to ${v.to ?? 'today'})`).join(', ')
  throw new ApiError(
    'BoundaryNotFound',
    versions.length
      ? `no ${type} ${code} was in force on ${d}; it is known in ${when}`
      : `no ${type} carries the code ${code}`,
  )
}
