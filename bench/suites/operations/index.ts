/**
 * Operations (docs/operations.md): what a platform team pays for the weekly cycle.
 * - swap: live dataset switches under load (2 workers, 50 connections): SIGHUP to every worker
 *   serving the new build, each worker's check and load time, RSS, and the failed requests
 *   (any is a failure of the run);
 * - incremental: `build-index --reuse` after a weekly encumbrance export (one encumbrance file
 *   and export.json changed) against the full build of the same source;
 * - ship: `dataset publish` of the bench dataset and of that weekly build, `dataset pull` of each
 *   over loopback HTTP (nginx), and `pull --activate` onto a running server under load;
 * - compression: req/s and latency of one worker with `Accept-Encoding` identity, gzip and br,
 *   on a large answer and on a small one (which stays on the uncompressed path).
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Suite, SuiteRecord } from '../../lib/suite.js'
import { type CompressionData, renderCompression, runCompression } from './compression.js'
import { type IncrementalData, renderIncremental, runIncremental } from './incremental.js'
import { renderShip, runShip, type ShipData } from './ship.js'
import { renderSwap, runSwap, type SwapData } from './swap.js'

export interface OperationsData {
  swap: SwapData | null
  incremental: IncrementalData | null
  /** absent from records written before the ship section */
  ship?: ShipData | null
  compression: CompressionData | null
  notes: string[]
}

export const operationsSuite: Suite<OperationsData> = {
  name: 'operations',
  title: 'Operations: live dataset switch, incremental build, publish and pull, compression',
  summary:
    'dataset switch time and memory under load, build-index --reuse vs a full build, dataset publish/pull time and bytes, gzip/br cost per request',
  async run(ctx) {
    // beside the dataset, so that the hard-linked copies stay on its filesystem
    const work = mkdtempSync(join(dirname(ctx.dataset.dir), 'ops-'))
    const notes: string[] = []
    try {
      const swap = await runSwap(ctx, work)
      const inc = await runIncremental(ctx, work)
      if (typeof inc === 'string') notes.push(inc)
      // the weekly build incremental.ts made, beside the bench dataset
      const ship = await runShip(ctx, work, typeof inc === 'string' ? null : join(work, 'incremental'))
      const compression = await runCompression(ctx, work)
      return { swap, incremental: typeof inc === 'string' ? null : inc, ship, compression, notes }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  },
  render(record: SuiteRecord<OperationsData>) {
    const d = record.data
    return [
      ...(d.swap ? renderSwap(d.swap) : []),
      '',
      ...(d.incremental ? renderIncremental(d.incremental) : []),
      '',
      ...(d.ship ? [...renderShip(d.ship), ''] : []),
      ...(d.compression ? renderCompression(d.compression) : []),
      ...(d.notes.length ? ['', ...d.notes.map((n) => `- ${n}`)] : []),
    ].join('\n')
  },
}
