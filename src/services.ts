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

export function buildServices(ds: OpenDataset): Services {
  return {
    plots: ds.domain('plots') ? createPlotQueries(ds) : null,
    parcels: ds.domain('parcels') ? createParcelQueries(ds) : null,
    encumbrances: ds.domain('encumbrances') ? createEncumbranceQueries(ds) : null,
    jurisdiction: ds.domain('jurisdiction') ? createJurisdictionQueries(ds) : null,
  }
}
