/**
 * What compression costs: one worker's req/s and latency with `Accept-Encoding` identity, gzip
 * and br, on a large answer (/parcels/at) and a small one (/plots/reverse, never compressed).
 *
 * @module
 */
import { join } from 'node:path'
import { BenchKeys } from '../../lib/keys.js'
import { reversePaths } from '../../lib/layers.js'
import { loadTool, runLoad } from '../../lib/load.js'
import { startApiServer, type RunningProcess } from '../../lib/servers.js'
import { fmt, median } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { openDataset } from '../../../src/data/open-dataset.js'
import { createParcelQueries } from '../../../src/features/parcels/queries.js'
import { makeParcelProbes } from '../parcels.js'

export interface CompressionRow {
  endpoint: string
  encoding: string
  /** median answer size on the wire, bytes */
  bytes: number
  reqPerS: number
  p50Ms: number
  p99Ms: number
}

export interface CompressionData {
  tool: string
  connections: number
  durationS: number
  rows: CompressionRow[]
}

const ENCODINGS = ['identity', 'gzip', 'br'] as const

async function answerBytes(port: number, path: string, key: string, encoding: string): Promise<number> {
  // node's fetch decodes bodies, so the bytes on the wire come from Content-Length
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    headers: { 'X-API-KEY': key, 'Accept-Encoding': encoding },
  })
  await res.arrayBuffer()
  return Number(res.headers.get('content-length') ?? Number.NaN)
}

export async function runCompression(ctx: SuiteContext, work: string): Promise<CompressionData> {
  const ds = openDataset(ctx.dataset.dir)
  let parcelPaths: string[]
  try {
    const probes = makeParcelProbes(ds, 4000, ctx.opts.seed, 'compression', 1)
    const q = createParcelQueries(ds)
    parcelPaths = []
    for (let k = 0; k < probes.lat.length && parcelPaths.length < 2000; k++) {
      const lat = probes.lat[k].toFixed(7)
      const lon = probes.lon[k].toFixed(7)
      // only points in a parcel: elsewhere the answer is a 404, which would count as a failure
      if (q.at(Number(lon), Number(lat), { all: false }).length)
        parcelPaths.push(`/api/v1/parcels/at?latitude=${lat}&longitude=${lon}`)
    }
  } finally {
    ds.close()
  }
  const endpoints: [string, string[]][] = [
    ['/parcels/at', parcelPaths],
    ['/plots/reverse', reversePaths(ctx.dataset.dir, 2000, ctx.opts.seed, 'operations')],
  ]
  const keys = new BenchKeys(join(work, 'keys-compression.db'))
  const key = keys.issue(['plots', 'parcels'])
  keys.close()
  const durationS = ctx.opts.durationS
  const connections = 50
  const rows: CompressionRow[] = []
  let p: RunningProcess | null = null
  try {
    p = await startApiServer({
      datasetDir: ctx.dataset.dir,
      keysDb: join(work, 'keys-compression.db'),
      workers: 1,
      workDir: work,
    })
    for (const [endpoint, paths] of endpoints) {
      for (const encoding of ENCODINGS) {
        const headers = { 'X-API-KEY': key, 'Accept-Encoding': encoding }
        const sizes: number[] = []
        for (const path of paths.slice(0, 50)) sizes.push(await answerBytes(p.port, path, key, encoding))
        const o = { port: p.port, paths, headers, connections, workDir: work }
        await runLoad(loadTool(ctx.opts), { ...o, durationS: 1 })
        const r = await runLoad(loadTool(ctx.opts), { ...o, durationS })
        if (r.errors + r.non2xx)
          ctx.fail(`operations: ${endpoint} with ${encoding}: ${r.errors + r.non2xx} failed requests`)
        rows.push({ endpoint, encoding, bytes: median(sizes), reqPerS: r.reqPerS, p50Ms: r.p50Ms, p99Ms: r.p99Ms })
        ctx.log(`operations: ${endpoint} ${encoding}: ${fmt(r.reqPerS, 0)} req/s, ${median(sizes)} B`)
      }
    }
  } finally {
    await p?.stop()
  }
  return { tool: loadTool(ctx.opts), connections, durationS, rows }
}

export function renderCompression(c: CompressionData): string[] {
  const lines = [
    '### Compression',
    '',
    `One worker, ${c.connections} connections, ${c.tool}, ${c.durationS} s per run after a 1 s warm-up; the same ` +
      'seeded URLs with each `Accept-Encoding`. Answers under 1 KiB are sent as they are, so the small endpoint ' +
      'shows what negotiating alone costs. CPU per request: the difference of 1/(req/s) against identity, ' +
      'with the worker saturating one core.',
    '',
    '| endpoint | Accept-Encoding | median answer | req/s | p50 | p99 | cost per request |',
    '|---|---|--:|--:|--:|--:|--:|',
  ]
  for (const r of c.rows) {
    const base = c.rows.find((x) => x.endpoint === r.endpoint && x.encoding === 'identity')
    const cost = base && r !== base ? `${fmt((1 / r.reqPerS - 1 / base.reqPerS) * 1e6, 0)} µs` : '–'
    lines.push(
      `| ${r.endpoint} | ${r.encoding} | ${r.bytes.toLocaleString('en-US')} B | ${fmt(r.reqPerS, 0)} | ` +
        `${fmt(r.p50Ms, 2)} ms | ${fmt(r.p99Ms, 2)} ms | ${cost} |`,
    )
  }
  return lines
}
