import { join } from 'node:path'
import type { DomainManifest, LayerStats } from '../src/data/manifest.js'
import type { PlotCountry } from '../src/data/plots-format.js'
import { countLines, createProgress } from './progress.js'
import type { RejectLog } from './reject-log.js'
import { findLayerFile, readLayer } from './sources/read-layer.js'
import { normaliseBotswanaPlot, normaliseErf, type Normalised } from './transform/plots.js'
import type { DatasetWriter } from './write/dataset-writer.js'
import { PlotLayerWriter } from './write/plots-writer.js'

const LAYERS: { country: PlotCountry; dir: string; base: string; normalise: typeof normaliseBotswanaPlot }[] = [
  { country: 'botswana', dir: 'botswana', base: 'plots', normalise: normaliseBotswanaPlot },
  { country: 'south_africa', dir: 'south_africa', base: 'erven', normalise: normaliseErf },
]

/**
 * The plot domain: Botswana plots and South African erven, each to SQLite + KDBush. A country
 * whose layer file is absent is simply not served (0 rows), never an error.
 */
export async function buildPlots(
  source: string,
  ds: DatasetWriter,
  rejects: RejectLog,
  exportInfo: { export_id: string; as_of: string },
): Promise<DomainManifest | null> {
  const layers: Record<string, LayerStats> = {}
  let idOffset = 0
  let any = false
  for (const layer of LAYERS) {
    const file = findLayerFile(join(source, layer.dir), layer.base)
    const name = `plots/${layer.country}`
    const writer = new PlotLayerWriter(ds, layer.country)
    if (file) {
      any = true
      const progress = createProgress(name, await countLines(file))
      for await (const row of readLayer(file, { pointLayer: true })) {
        progress.tick()
        if (!row.ok) {
          rejects.reject(name, row.ref, row.reason)
          continue
        }
        const r: Normalised = layer.normalise(row.properties, row.geometry)
        if (r.ok) writer.add(r.rec)
        else rejects.reject(name, row.ref, r.reason)
      }
      progress.done(`${writer.count} rows, ${rejects.count(name)} rejected`)
    }
    layers[layer.country] = writer.finish({ rejected: rejects.count(name), idOffset })
    idOffset += writer.count
  }
  if (!any) return null
  return { dataset_version: exportInfo.export_id, as_of: exportInfo.as_of, layers }
}
