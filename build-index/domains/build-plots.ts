import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { PROVINCES, provinceCode, type ProvinceCode } from '../../src/data/provinces.js'
import { normaliseParcel } from '../transform/parcels.js'
import type { DomainManifest, LayerStats } from '../../src/data/manifest.js'
import type { PlotCountry } from '../../src/data/plots-format.js'
import { countLines, createProgress } from '../progress.js'
import type { RejectLog } from '../reject-log.js'
import { findLayerFile, readLayer } from '../sources/read-layer.js'
import {
  BOTSWANA_PLOT_COLUMNS,
  ERF_COLUMNS,
  normaliseBotswanaPlot,
  normaliseErf,
  type Normalised,
} from '../transform/plots.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { PlotLayerWriter } from '../write/plots-writer.js'

const LAYERS: {
  country: PlotCountry
  dir: string
  base: string
  normalise: typeof normaliseBotswanaPlot
  required: readonly string[]
}[] = [
  {
    country: 'botswana',
    dir: 'botswana',
    base: 'plots',
    normalise: normaliseBotswanaPlot,
    required: BOTSWANA_PLOT_COLUMNS,
  },
  { country: 'south_africa', dir: 'south_africa', base: 'erven', normalise: normaliseErf, required: ERF_COLUMNS },
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
    if (!file && layer.country === 'south_africa' && (await deriveErvenFromCadastre(source, writer))) {
      any = true
      layers[layer.country] = writer.finish({ rejected: 0, idOffset })
      layers[layer.country].meta = { ...layers[layer.country].meta, derived_from: 'cadastre erf layers' }
      idOffset += writer.count
      continue
    }
    if (file) {
      any = true
      const progress = createProgress(name, await countLines(file))
      for await (const row of readLayer(file, { pointLayer: true, required: layer.required })) {
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

/**
 * docs/source-formats.md: without `south_africa/erven`, each erf of the cadastre that passes the
 * default status filter becomes one record: its label point, `min_region` as township, and
 * `<parcel_no>` or `<parcel_no>/<portion>` as number (docs/decisions.md). Rows the parcel build
 * rejects are reported there, not twice here. Returns false when the export has no erf layer.
 */
export async function deriveErvenFromCadastre(source: string, writer: PlotLayerWriter): Promise<boolean> {
  const cadastre = join(source, 'south_africa', 'cadastre')
  let names: string[]
  try {
    names = readdirSync(cadastre)
  } catch {
    return false
  }
  const provinces = names
    .map((n) => ({ code: provinceCode(n), dir: join(cadastre, n) }))
    .filter((p): p is { code: ProvinceCode; dir: string } => p.code !== null)
    .sort((a, b) => a.code.localeCompare(b.code) || a.dir.localeCompare(b.dir))
  let found = false
  for (const { code, dir } of provinces) {
    const file = findLayerFile(dir, 'erf')
    if (!file) continue
    found = true
    const name = `plots/south_africa (from ${code} erf)`
    const progress = createProgress(name, await countLines(file), { part: true })
    for await (const row of readLayer(file, { pointLayer: false })) {
      progress.tick()
      if (!row.ok) continue
      const r = normaliseParcel(row.properties, row.geometry, 'ERF', code)
      if (!r.ok || r.rec.hidden || !r.rec.minorRegion || r.rec.parcelNumber === null) continue
      const portion = r.rec.portion ?? 0
      writer.add({
        plotNumber: portion > 0 ? `${r.rec.parcelNumber}/${portion}` : String(r.rec.parcelNumber),
        lon: r.rec.labelLon,
        lat: r.rec.labelLat,
        city: r.rec.minorRegion.toUpperCase(),
        region: PROVINCES[code],
      })
    }
    progress.done(`${writer.count} erven so far`)
  }
  return found
}
