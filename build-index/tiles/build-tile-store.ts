/**
 * Builds a domain's tile store (src/data/tile-store.ts) from the domain's files once they are
 * written: block by block (cut-block.ts), on worker threads when the bundled worker exists and the
 * domain is large, the blocks' tiles handed back in block order and written by this thread, so
 * the file is the same whichever way it was made (docs/operations.md "Building and verifying").
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import { DEFAULT_TILE_BUFFER_PX } from '../../src/geo/mvt/encode.js'
import { latToWorldY, lonToWorldX, tileBBox } from '../../src/geo/tiles.js'
import { createProgress } from '../progress.js'
import { buildThreads, runChunksOnWorkers, workerScript } from '../threads.js'
import type { DatasetWriter } from '../write/dataset-writer.js'
import { TileStoreWriter } from '../write/tile-store-writer.js'
import { BLOCK_ZOOM, cutBlock, type BlockSource, type BlockTiles } from './cut-block.js'

/** Below this many features a store is built in the thread (a worker takes ~0.1 s to start and load). */
const WORKER_MIN_FEATURES = 50_000

/** The domains with a tile store: the worker makes each one's BlockSource from its data (tile-worker.ts). */
export type TileDomain = 'parcels' | 'plots'

/** What tile-worker.ts is started with. */
export interface TileWorkerData {
  domain: TileDomain
  /** the domain's own: paths and shared buffers of its files */
  data: unknown
  maxZoom: number
}

/** A tile store to build. */
export interface TileStoreSpec {
  domain: TileDomain
  /** the store's path in the dataset */
  file: string
  /** MBTiles metadata: name and description */
  name: string
  description: string
  /** the layers, for the metadata's `vector_layers`: id, fields (name -> type and meaning), minzoom */
  layers: { id: string; fields: Record<string, string>; minzoom: number }[]
  minZoom: number
  maxZoom: number
  /** west, south, east, north of the features */
  bounds: [number, number, number, number]
  /** the domain's data for its BlockSource, passed to the workers (paths, SharedArrayBuffers) */
  data: unknown
  /** the BlockSource over `data`, in this thread */
  source: () => BlockSource
  /** whether block bx/by holds a feature (cheap: the blocks without one are never sent) */
  hasFeature(bx: number, by: number): boolean
  /** features in the domain, to choose between this thread and workers */
  features: number
}

/** A file read whole into shared memory: the workers read it without a copy each. */
export function readShared(path: string): SharedArrayBuffer {
  const bytes = readFileSync(path)
  const sab = new SharedArrayBuffer(bytes.byteLength)
  new Uint8Array(sab).set(bytes)
  return sab
}

/** The BLOCK_ZOOM tiles whose grown box meets `bounds`, row by row. */
function blocksOver(bounds: [number, number, number, number]): { x: number; y: number }[] {
  const n = 2 ** BLOCK_ZOOM
  const pad = DEFAULT_TILE_BUFFER_PX / 4096
  const clamp = (v: number) => Math.max(0, Math.min(n - 1, Math.floor(v)))
  const x0 = clamp(lonToWorldX(bounds[0]) * n - pad)
  const x1 = clamp(lonToWorldX(bounds[2]) * n + pad)
  const y0 = clamp(latToWorldY(bounds[3]) * n - pad)
  const y1 = clamp(latToWorldY(bounds[1]) * n + pad)
  const out: { x: number; y: number }[] = []
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) out.push({ x, y })
  return out
}

/** Builds the store `spec` describes into the dataset; logs its tiles, bytes and time. */
export async function buildTileStore(
  ds: DatasetWriter,
  spec: TileStoreSpec,
  log: (line: string) => void,
): Promise<void> {
  const blocks = blocksOver(spec.bounds).filter((b) => spec.hasFeature(b.x, b.y))
  const name = `${spec.file.split('/')[0]}/tiles`
  const progress = createProgress(name, blocks.length, { unit: 'blocks' })
  const writer = new TileStoreWriter(ds, spec.file)
  let raw = 0
  const take = (t: BlockTiles) => {
    for (let k = 0; k < t.count; k++)
      writer.add(
        t.zxy[3 * k],
        t.zxy[3 * k + 1],
        t.zxy[3 * k + 2],
        t.data.subarray(k ? t.ends[k - 1] : 0, t.ends[k]),
        t.hashes.subarray(8 * k, 8 * k + 8),
      )
    raw += t.raw
    progress.tick()
  }
  const script = workerScript('tile-worker')
  const { threads, forced } = buildThreads()
  if (script && threads >= 2 && (forced || spec.features >= WORKER_MIN_FEATURES)) {
    log(`${name}: ${blocks.length} blocks on ${threads} worker threads`)
    const data: TileWorkerData = { domain: spec.domain, data: spec.data, maxZoom: spec.maxZoom }
    await runChunksOnWorkers<BlockTiles>(
      script,
      threads,
      data,
      blocks.length,
      (k) => ({ message: { x: blocks[k].x, y: blocks[k].y } }),
      take,
    )
  } else {
    const source = spec.source()
    try {
      for (let k = 0; k < blocks.length; k++) take(cutBlock(source, blocks[k].x, blocks[k].y, spec.maxZoom, k))
    } finally {
      source.close()
    }
  }
  const [w, s, e, n] = spec.bounds
  writer.finish({
    name: spec.name,
    description: spec.description,
    format: 'pbf',
    type: 'overlay',
    minzoom: String(spec.minZoom),
    maxzoom: String(spec.maxZoom),
    bounds: [w, s, e, n].map((v) => v.toFixed(6)).join(','),
    json: JSON.stringify({
      vector_layers: spec.layers.map((l) => ({
        id: l.id,
        fields: l.fields,
        minzoom: l.minzoom,
        maxzoom: spec.maxZoom,
      })),
    }),
  })
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`
  progress.done(
    `${writer.count} tiles z${spec.minZoom}–${spec.maxZoom} in ${blocks.length} blocks, ${mib(writer.bytes)} ` +
      `gzip-compressed (${mib(raw)} before)`,
  )
}

/** A block's grown box, for a domain's hasFeature and features. */
export function blockBox(bx: number, by: number) {
  return tileBBox(BLOCK_ZOOM, bx, by, DEFAULT_TILE_BUFFER_PX)
}
