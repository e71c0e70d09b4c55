/**
 * What every encumbrance route shares: the OpenAPI tag, the envelope fields, the dataset-wide
 * answer message, the parcel of an LPI or a 404, and a parcel's summary record.
 *
 * @module
 */
import { ApiError } from '../../../http/errors.js'
import type { ApiTag } from '../../../http/openapi.js'
import { plural } from '../../../http/text.js'
import type { ParcelRef } from '../parcels.js'
import type { EncumbranceQueries } from '../queries.js'
import type { Service } from '../../../http/service-guard.js'

/** The OpenAPI tag of every encumbrance operation. */
export const TAG: readonly ApiTag[] = [
  {
    name: 'Encumbrances',
    description:
      'Encumbrances in South Africa (spec 002, product `encumbrance`): what restricts a parcel, a point, a box, ' +
      'a route or an area (servitudes, leases, mineral rights…), search, coverage, a heatmap and tiles.',
  },
]

/** The service of the current dataset, or a 503 (requireService). */
export type EncumbranceService = Service<EncumbranceQueries>

const EMPTY_NOTE =
  'Nothing was found in this dataset; this does not mean the property is unencumbered (the export may be ' +
  'incomplete, and unregistered rights are not in it).'

/** The envelope fields of every answer. */
export function envelope(s: EncumbranceQueries): { as_of: string; dataset_version: string } {
  return { as_of: s.asOf, dataset_version: s.version }
}

export function needParcels(s: EncumbranceQueries): void {
  if (!s.hasParcels)
    throw new ApiError(
      'ParcelDataUnavailable',
      'the parcel dataset is not installed on this deployment, so parcels cannot be screened',
    )
}

export function parcelOr404(s: EncumbranceQueries, lpi: string): ParcelRef {
  needParcels(s)
  const p = s.parcelByLpi(lpi)
  if (!p) throw new ApiError('ParcelNotFound', `no published parcel carries the LPI ${lpi}`)
  return p
}

/**
 * The answer's message; `what` reads after "encumbrance(s)": "intersecting parcel …", "at the point", "matching the
 * filters".
 */
export function found(n: number, what: string, s: EncumbranceQueries): string {
  return n
    ? `${plural(n, 'encumbrance')} ${what} found in dataset ${s.version} (as of ${s.asOf})`
    : `No encumbrance ${what} was found in dataset ${s.version} (as of ${s.asOf}). ${EMPTY_NOTE}`
}

/** A parcel's summary record (/summary/parcel and each /batch result). */
export function parcelSummary(s: EncumbranceQueries, p: ParcelRef) {
  const { counts, highestPct } = s.summaryOfParcel(p.id)
  const classes = Object.keys(counts)
  return {
    lpi: p.lpi,
    province: p.province,
    parcel_type: p.parcel_type,
    has_encumbrances: classes.length > 0,
    counts_by_class: counts,
    classes,
    highest_impact_pct: highestPct,
  }
}
