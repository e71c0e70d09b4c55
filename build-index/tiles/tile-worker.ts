/**
 * Worker thread of the tile store build (build-tile-store.ts): opens its domain's BlockSource once,
 * then answers each block with its tiles (cut-block.ts), their buffers transferred, not copied.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { TileWorkerData } from './build-tile-store.js'
import { cutBlock } from './cut-block.js'
import { parcelBlockSource, type ParcelTileData } from './parcel-tiles.js'
import { plotBlockSource, type PlotTileData } from './plot-tiles.js'
import { transferOf } from './cut-block.js'

const d = workerData as TileWorkerData
const source =
  d.domain === 'parcels' ? parcelBlockSource(d.data as ParcelTileData) : plotBlockSource(d.data as PlotTileData)
parentPort!.on('message', (m: { chunk: number; x: number; y: number }) => {
  const tiles = cutBlock(source, m.x, m.y, d.maxZoom, m.chunk)
  parentPort!.postMessage(tiles, transferOf(tiles))
})
