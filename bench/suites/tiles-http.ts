/**
 * The tiles suite's HTTP part: z15 parcel tiles at erf points against `/parcels/at` at the same
 * points, on the real server (`node dist/server.js`, 1 worker), wrk or autocannon, 50 connections,
 * loopback, the runs interleaved over the rounds. The tiles are asked as a browser asks them
 * (`Accept-Encoding: gzip`: a stored tile is sent as stored) and without it (decompressed).
 * Before loading, the first tiles are fetched and compared with the tiles made in process.
 *
 * Issue target at national scale: the z15 tiles at least 0.5x `/parcels/at`'s throughput, with
 * p99 within 50 ms.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { PARCEL_TILE_LAYERS } from '../../src/data/parcel-tiles.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import type { OpenDataset } from '../../src/data/open-dataset.js'
import { createParcelQueries } from '../../src/features/parcels/queries.js'
import { tileAt } from '../../src/geo/tiles.js'
import { BenchKeys } from '../lib/keys.js'
import { loadTool, runLoad, type LoadResult } from '../lib/load.js'
import { Random } from '../lib/prng.js'
import { startApiServer } from '../lib/servers.js'
import { fmt, median } from '../lib/stats.js'
import type { SuiteContext } from '../lib/suite.js'

const CONNECTIONS = 50
const TILE_ZOOM = 15
export const TARGET_RATIO = 0.5
export const TARGET_P99_MS = 50
/** How many tile paths are fetched once and compared with the in-process tile. */
const CHECKED = 25

export type TilesHttpLoad = 'at' | 'tiles gzip' | 'tiles identity'

export interface TilesHttpData {
  tool: 'wrk' | 'autocannon'
  durationS: number
  paths: number
  /** distinct tiles among the paths */
  tiles: number
  checked: { probes: number; agreed: number }
  runs: { round: number; load: TilesHttpLoad; result: LoadResult }[]
}

/** Seeded current erven's label points: the `/parcels/at` and z15 tile paths of each. */
export function erfPaths(ds: OpenDataset, count: number, seed: number): { at: string[]; tiles: string[] } {
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const ids = db.prepare("SELECT id FROM parcel WHERE parcel_type = 'ERF' AND hidden = 0").pluck().all() as number[]
  const one = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE id = ?').raw()
  const rnd = new Random(seed >>> 0, 'bench/tiles/http')
  const at: string[] = []
  const tiles: string[] = []
  for (let k = 0; ids.length && k < count; k++) {
    const [lon, lat] = one.get(ids[rnd.int(0, ids.length - 1)]) as [number, number]
    at.push(`/api/v1/parcels/at?latitude=${lat.toFixed(7)}&longitude=${lon.toFixed(7)}`)
    const t = tileAt(lon, lat, TILE_ZOOM)
    tiles.push(`/api/v1/parcels/tiles/${TILE_ZOOM}/${t.x}/${t.y}.mvt`)
  }
  return { at, tiles }
}

/** Runs the rounds (3, or 1 with `--quick`). */
export async function runTilesHttp(ctx: SuiteContext, ds: OpenDataset): Promise<TilesHttpData> {
  const quick = ctx.opts.quick
  const tool = loadTool(ctx.opts)
  const { at, tiles } = erfPaths(ds, quick ? 200 : 2_000, ctx.opts.seed)
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-tiles-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const runs: TilesHttpData['runs'] = []
  let agreed = 0
  const checked = Math.min(CHECKED, tiles.length)
  try {
    const server = await startApiServer({ datasetDir: ctx.dataset.dir, keysDb: keys.path, workers: 1, workDir: work })
    try {
      const key = keys.issue(['parcels'])
      const q = createParcelQueries(ds)
      for (let k = 0; k < checked; k++) {
        const res = await fetch(`http://127.0.0.1:${server.port}${tiles[k]}`, {
          headers: { 'X-API-KEY': key, 'Accept-Encoding': 'gzip' },
        })
        // fetch decodes the gzip body itself; the stored bytes are what it decoded
        const body = Buffer.from(await res.arrayBuffer())
        const [z, x, y] = /(\d+)\/(\d+)\/(\d+)\.mvt$/.exec(tiles[k])!.slice(1).map(Number)
        const want = Buffer.from(q.tile(z, x, y, PARCEL_TILE_LAYERS))
        const got = body.length > 2 && body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body
        if ((res.status === 200 || res.status === 204) && got.equals(want)) agreed++
        else ctx.fail(`tiles http: ${tiles[k]} answered ${res.status} with other bytes than the tile made in process`)
      }
      const warmupS = quick ? 0.5 : 2
      const loads: [TilesHttpLoad, string[], Record<string, string>][] = [
        ['at', at, {}],
        ['tiles gzip', tiles, { 'Accept-Encoding': 'gzip' }],
        ['tiles identity', tiles, {}],
      ]
      for (let round = 1; round <= (quick ? 1 : 3); round++) {
        for (const [load, paths, headers] of loads) {
          const o = {
            port: server.port,
            paths,
            headers: { 'X-API-KEY': keys.issue(['parcels']), ...headers },
            connections: CONNECTIONS,
            workDir: work,
          }
          await runLoad(tool, { ...o, durationS: warmupS })
          const result = await runLoad(tool, { ...o, durationS: ctx.opts.durationS })
          runs.push({ round, load, result })
          ctx.log(
            `tiles http: round ${round} ${load}: ${fmt(result.reqPerS)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, ` +
              `p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}`,
          )
          if (result.errors > 0) ctx.fail(`tiles http: ${load} had ${result.errors} errors (${result.non2xx} non-2xx)`)
        }
      }
    } finally {
      await server.stop()
    }
    return {
      tool,
      durationS: ctx.opts.durationS,
      paths: tiles.length,
      tiles: new Set(tiles).size,
      checked: { probes: checked, agreed },
      runs,
    }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

/** The median run of a load (by req/s) and the median req/s. */
export function medianRun(d: TilesHttpData, load: TilesHttpLoad): { reqPerS: number; run: LoadResult } | null {
  const rs = d.runs.filter((r) => r.load === load).map((r) => r.result)
  if (!rs.length) return null
  const m = median(rs.map((r) => r.reqPerS))
  const run = rs.reduce((a, b) => (Math.abs(b.reqPerS - m) < Math.abs(a.reqPerS - m) ? b : a))
  return { reqPerS: m, run }
}
