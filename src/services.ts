import type { Domain } from './data/manifest.js'
import type { OpenDataset } from './data/open-dataset.js'
import { createEncumbranceQueries, type EncumbranceQueries } from './features/encumbrances/queries.js'
import { createJurisdictionQueries, type JurisdictionQueries } from './features/jurisdiction/queries.js'
import { createParcelQueries, type ParcelQueries } from './features/parcels/queries.js'
import { createPlotQueries, type PlotQueries } from './features/plots/queries.js'

/** Everything the routes query, built once per open dataset (and rebuilt on a swap). */
export interface Services {
  plots: PlotQueries | null
  parcels: ParcelQueries | null
  encumbrances: EncumbranceQueries | null
  jurisdiction: JurisdictionQueries | null
}

/** The domain's service, or null when the dataset does not hold the domain. */
function serviceOf<T>(ds: OpenDataset, domain: Domain, make: (ds: OpenDataset) => T): T | null {
  return ds.domain(domain) ? make(ds) : null
}

/**
 * As buildServices, for index files read into memory (INDEX_MMAP=0, or no native addon): they are
 * read on libuv's thread pool (OpenDataset.preload) while this thread builds each domain as soon
 * as its own files are in: jurisdiction first (small indexes, ~0.3 s of building at national
 * scale), then plots, parcels, and the encumbrances last (they share the parcel index), which
 * overlaps ~0.5 s of reading with that building. Mapped files need no reading: the same build.
 */
export async function loadServices(ds: OpenDataset): Promise<Services> {
  const order = ['jurisdiction', 'plots', 'parcels', 'encumbrances'] as const
  // one domain after the other (each file in parallel chunks): queued all at once, the small
  // jurisdiction files would wait behind the national indexes' chunks; a failed read is
  // rethrown where it is awaited (and fails the reads after it, none unhandled)
  let previous: Promise<void> = Promise.resolve()
  const reads = order.map((d) => (previous = previous.then(() => (ds.domain(d) ? ds.preload(d) : undefined))))
  for (const r of reads) r.catch(() => {})
  const [jurisdictionRead, plotsRead, parcelsRead, encumbrancesRead] = reads
  await jurisdictionRead
  const jurisdiction = serviceOf(ds, 'jurisdiction', createJurisdictionQueries)
  await plotsRead
  const plots = serviceOf(ds, 'plots', createPlotQueries)
  await parcelsRead
  const parcels = serviceOf(ds, 'parcels', createParcelQueries)
  await encumbrancesRead
  const encumbrances = serviceOf(ds, 'encumbrances', createEncumbranceQueries)
  return { plots, parcels, encumbrances, jurisdiction }
}

export function buildServices(ds: OpenDataset): Services {
  return {
    plots: serviceOf(ds, 'plots', createPlotQueries),
    parcels: serviceOf(ds, 'parcels', createParcelQueries),
    encumbrances: serviceOf(ds, 'encumbrances', createEncumbranceQueries),
    jurisdiction: serviceOf(ds, 'jurisdiction', createJurisdictionQueries),
  }
}
