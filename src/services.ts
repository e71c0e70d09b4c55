import type { OpenDataset } from './data/open-dataset.js'
import { createPlotQueries, type PlotQueries } from './features/plots/queries.js'

/** Everything the routes query, built once per open dataset (and rebuilt on a swap). */
export interface Services {
  plots: PlotQueries | null
}

export function buildServices(ds: OpenDataset): Services {
  return {
    plots: ds.domain('plots') ? createPlotQueries(ds) : null,
  }
}
