/**
 * Worker thread of the parcel layer pass (build-parcels.ts): prepares each chunk of cadastre rows
 * (parcel-rows.ts) and answers with it, its typed arrays transferred, not copied.
 */
import { parentPort } from 'node:worker_threads'
import type { ParcelType } from '../../src/data/parcels-format.js'
import type { ProvinceCode } from '../../src/data/provinces.js'
import { prepareParcels, transferOf, type LayerItem } from './parcel-rows.js'

parentPort!.on('message', (m: { chunk: number; items: LayerItem[]; type: ParcelType; province: ProvinceCode }) => {
  const c = prepareParcels(m.items, m.type, m.province, m.chunk)
  parentPort!.postMessage(c, transferOf(c))
})
