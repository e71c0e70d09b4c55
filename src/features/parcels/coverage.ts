/** The load ledger: what the dataset holds per province and layer (the six parcel layers, beacons, General Plans). */
import { PARCEL_LAYERS } from '../../data/parcels-format.js'
import { PROVINCES, type ProvinceCode } from '../../data/provinces.js'
import type { ParcelStore } from './store.js'

interface CoverageRow {
  province: ProvinceCode
  layer: string
  records: number
  repaired: number
  rejected: number
}

/** One entry per province and layer, including those the dataset does not hold (`present: false`). */
export function coverage(s: ParcelStore) {
  const rows = new Map((s.st.coverage.all() as CoverageRow[]).map((r) => [`${r.province}/${r.layer}`, r]))
  const layers = [...PARCEL_LAYERS.map((l) => l.type as string), 'BEACON', 'GENERAL_PLAN']
  const fileOf = (layer: string) => PARCEL_LAYERS.find((l) => l.type === layer)?.file ?? layer.toLowerCase()
  const out = []
  for (const code of Object.keys(PROVINCES) as ProvinceCode[]) {
    for (const layer of layers) {
      const r = rows.get(`${code}/${layer}`)
      const stats = s.layers[`${code}/${fileOf(layer)}`]
      out.push({
        province: code,
        province_name: PROVINCES[code],
        layer,
        present: Boolean(r),
        records: r?.records ?? 0,
        geometries_repaired: r?.repaired ?? 0,
        rows_rejected: r?.rejected ?? 0,
        rings_reoriented: stats?.reoriented ?? 0,
        duplicates_dropped: stats?.duplicates ?? 0,
        dataset_version: s.version,
        loaded_at: s.loadedAt,
      })
    }
  }
  return out
}
