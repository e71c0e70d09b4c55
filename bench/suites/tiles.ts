/**
 * The map tiles: `GET /parcels/tiles/{z}/{x}/{y}.mvt` at z14 and z15 (every layer; erven appear
 * from z15) and `GET /plots/tiles/14/{x}/{y}.mvt` over the densest townships, in process, and the
 * z15 parcel tiles against `/parcels/at` over HTTP (tiles-http.ts).
 *
 * Probe set, seeded (`--seed`) and drawn from the dataset itself: the 0.01° cells holding the
 * most current erven (label points; the worst-case suite's densest cell is the first of them),
 * the top {@link CELL_SHARE} of the cells with erven and at least {@link MIN_CELLS}; the tiles
 * of random points in them, distinct, at each zoom. "whole handler" sends each request through the app
 * (`app.request`: routing, key check, rate limit, validation, the tile read back as bytes):
 * without `Accept-Encoding` (a stored tile decompressed), and with `gzip` (a stored tile sent as
 * stored); "tile made when asked" is the tile() call that made every tile before the tile store
 * (src/data/tile-store.ts), and still makes those the store lacks. Each whole-handler answer is
 * checked (untimed) to be a 200 or 204 whose bytes, decoded, equal the tile made when asked.
 *
 * Issue target at national scale: a z14 parcel tile over a dense township within 20 ms (p99).
 *
 * @module
 */
import { Buffer } from 'node:buffer'
import { gunzipSync } from 'node:zlib'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { openDataset, type OpenDataset } from '../../src/data/open-dataset.js'
import { PARCEL_TILE_LAYERS } from '../../src/features/parcels/tiles.js'
import { PLOT_TILE_LAYERS } from '../../src/features/plots/tiles.js'
import type { Product } from '../../src/auth/types.js'
import { tileAt } from '../../src/geo/tiles.js'
import type { Services } from '../../src/services.js'
import { withInProcessApp } from '../lib/batches.js'
import { measureAsync, type OpRow } from '../lib/measure.js'
import { Random } from '../lib/prng.js'
import { verdict } from '../lib/report.js'
import { fmt } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'
import {
  medianRun,
  runTilesHttp,
  TARGET_P99_MS as HTTP_P99_MS,
  TARGET_RATIO,
  type TilesHttpData,
} from './tiles-http.js'

/** The zoom of the target, and the first zoom with erven (PARCEL_TILE_MIN_ZOOM.erf). */
const ZOOM = 14
const ERF_ZOOM = 15
const CELL_DEG = 0.01
/** Tiles are drawn in the densest cells: this share of the cells with erven, at least MIN_CELLS. */
const CELL_SHARE = 0.02
const MIN_CELLS = 20
const TARGET_P99_MS = 20
const WHOLE = 'whole handler (app.request, no socket)'
const WHOLE_GZIP = 'whole handler, Accept-Encoding: gzip'
const QUERIES = 'tile made when asked (queries only)'

interface TileRow extends OpRow {
  set: 'parcels' | 'plots'
  z: number
  share204: number
  /** mean bytes of the tiles answered 200 */
  meanBytes: number
  maxBytes: number
}

export interface TilesData {
  skipped?: string
  /** distinct tiles per zoom */
  tiles: number
  cells: number
  /** current erven in the densest cell */
  densest: number
  rounds: number
  rows: TileRow[]
  notes: string[]
  /** z15 tiles against /parcels/at over HTTP (absent with --no-http, and from older records) */
  http?: TilesHttpData
}

/** The cells holding the most current erven, densest first. */
function denseCells(ds: OpenDataset): { lon: number; lat: number; n: number }[] {
  const cells = ds
    .sqlite(PARCEL_FILES.sqlite)
    .prepare(
      `SELECT CAST(floor(label_lon / ${CELL_DEG}) AS INTEGER) AS cx, CAST(floor(label_lat / ${CELL_DEG}) AS INTEGER) AS cy,
        count(*) AS n FROM parcel WHERE parcel_type = 'ERF' AND hidden = 0 GROUP BY 1, 2 ORDER BY n DESC, 1, 2`,
    )
    .all() as { cx: number; cy: number; n: number }[]
  const top = cells.slice(0, Math.max(MIN_CELLS, Math.ceil(cells.length * CELL_SHARE)))
  return top.map((c) => ({ lon: c.cx * CELL_DEG, lat: c.cy * CELL_DEG, n: c.n }))
}

/** Distinct tiles at zoom z of random points in the cells. */
function makeTiles(
  cells: { lon: number; lat: number }[],
  count: number,
  seed: number,
  z: number,
): { x: number; y: number }[] {
  const rnd = new Random(seed >>> 0, `bench/tiles/${z}`)
  const seen = new Set<string>()
  const tiles: { x: number; y: number }[] = []
  for (let tries = 0; cells.length && tiles.length < count && tries < count * 20; tries++) {
    const c = cells[rnd.int(0, cells.length - 1)]
    const t = tileAt(c.lon + rnd.float() * CELL_DEG, c.lat + rnd.float() * CELL_DEG, z)
    const k = `${t.x}/${t.y}`
    if (seen.has(k)) continue
    seen.add(k)
    tiles.push(t)
  }
  return tiles
}

/** The whole-handler and queries-only rows of one tile set over the tiles. */
async function measureSet(
  ctx: SuiteContext,
  ds: OpenDataset,
  set: TileRow['set'],
  product: Product,
  z: number,
  tiles: { x: number; y: number }[],
  rounds: number,
  query: (s: Services, x: number, y: number) => Uint8Array,
): Promise<TileRow[]> {
  return withInProcessApp(ds, `tiles-${set}`, product, async (app, key, services) => {
    const headers = { 'X-API-KEY': key }
    const paths = tiles.map((t) => `/api/v1/${set}/tiles/${z}/${t.x}/${t.y}.mvt`)
    const bodies: Uint8Array[] = new Array(tiles.length)
    const statuses = new Uint16Array(tiles.length)
    const whole = await measureAsync(`${set} z${z}`, WHOLE, tiles.length, rounds, null, async (k) => {
      const res = await app.request(paths[k], { headers })
      bodies[k] = new Uint8Array(await res.arrayBuffer())
      statuses[k] = res.status
      return res.status === 200 ? 1 : 0
    })
    // as a browser asks: a stored tile is sent as stored (gzip), a tile made when asked is compressed
    const coded: Uint8Array[] = new Array(tiles.length)
    const codings: (string | null)[] = new Array(tiles.length)
    const gzipHeaders = { ...headers, 'Accept-Encoding': 'gzip' }
    const wholeGzip = await measureAsync(`${set} z${z}`, WHOLE_GZIP, tiles.length, rounds, null, async (k) => {
      const res = await app.request(paths[k], { headers: gzipHeaders })
      coded[k] = new Uint8Array(await res.arrayBuffer())
      codings[k] = res.headers.get('Content-Encoding')
      return res.status === 200 ? 1 : 0
    })
    const queries = await measureAsync(`${set} z${z}`, QUERIES, tiles.length, rounds, null, (k) =>
      query(services, tiles[k].x, tiles[k].y).byteLength > 0 ? 1 : 0,
    )
    let ok = 0
    let empty = 0
    let bytes = 0
    let maxBytes = 0
    let gzBytes = 0
    let gzMax = 0
    let bad = 0
    for (let k = 0; k < tiles.length; k++) {
      const expected = query(services, tiles[k].x, tiles[k].y)
      const decoded = codings[k] === 'gzip' ? gunzipSync(coded[k]) : Buffer.from(coded[k])
      const same = Buffer.from(bodies[k]).equals(Buffer.from(expected)) && decoded.equals(Buffer.from(expected))
      if ((statuses[k] !== 200 && statuses[k] !== 204) || !same) {
        if (bad++ < 3) ctx.fail(`tiles: ${paths[k]} answered ${statuses[k]} (${same ? 'same' : 'other'} bytes)`)
        continue
      }
      if (statuses[k] === 204) empty++
      else {
        ok++
        bytes += bodies[k].byteLength
        maxBytes = Math.max(maxBytes, bodies[k].byteLength)
        gzBytes += coded[k].byteLength
        gzMax = Math.max(gzMax, coded[k].byteLength)
      }
    }
    if (bad > 3) ctx.fail(`tiles: ${set}: ${bad - 3} further bad answers`)
    const extra = {
      set,
      z,
      share204: empty / tiles.length,
      meanBytes: ok ? bytes / ok : Number.NaN,
      maxBytes,
    }
    const row = { ...whole.row, ...extra }
    const gzRow = { ...wholeGzip.row, ...extra, meanBytes: ok ? gzBytes / ok : Number.NaN, maxBytes: gzMax }
    ctx.log(
      `tiles: ${set} z${z}: whole handler p50 ${fmt(row.all.p50Us / 1000, 2)} ms, p99 ${fmt(row.all.p99Us / 1000, 2)} ms, ` +
        `with gzip p50 ${fmt(gzRow.all.p50Us / 1000, 2)} ms (made when asked p50 ${fmt(queries.row.all.p50Us / 1000, 2)} ms); ` +
        `${fmt(extra.meanBytes / 1024)} KiB per tile (${fmt(gzRow.meanBytes / 1024)} KiB gzip), ` +
        `largest ${fmt(maxBytes / 1024)} KiB, ${fmt(extra.share204 * 100)} % 204`,
    )
    return [row, gzRow, { ...queries.row, ...extra }]
  })
}

export const tilesSuite: Suite<TilesData> = {
  name: 'tiles',
  title: 'Map tiles: z14 parcel and plot tiles over the densest townships, in process',
  summary:
    'GET /parcels/tiles at z14 and z15 and /plots/tiles at z14 over the densest erf cells: p50/p99 ms, bytes; ' +
    'z15 tiles vs /parcels/at req/s over HTTP',

  async run(ctx) {
    const ds = openDataset(ctx.dataset.dir)
    const data: TilesData = { tiles: 0, cells: 0, densest: 0, rounds: 0, rows: [], notes: [] }
    try {
      if (!ds.domain('parcels')) {
        ctx.log('tiles: skipped: the dataset has no parcel domain')
        return { ...data, skipped: 'the dataset has no parcel domain' }
      }
      const cells = denseCells(ds)
      const count = ctx.opts.quick ? 30 : 300
      const tiles = makeTiles(cells, count, ctx.opts.seed, ZOOM)
      const erfTiles = makeTiles(cells, count, ctx.opts.seed, ERF_ZOOM)
      if (!tiles.length) return { ...data, skipped: 'no current erf: no dense cell to draw tiles in' }
      data.tiles = tiles.length
      data.cells = cells.length
      data.densest = cells[0].n
      data.rounds = ctx.opts.quick ? 1 : 3
      ctx.log(
        `tiles: ${tiles.length} tiles per zoom in the ${cells.length} densest cells (densest: ${cells[0].n} erven)`,
      )
      for (const [z, at] of [
        [ZOOM, tiles],
        [ERF_ZOOM, erfTiles],
      ] as const) {
        data.rows.push(
          ...(await measureSet(ctx, ds, 'parcels', 'parcels', z, at, data.rounds, (s, x, y) =>
            s.parcels!.tile(z, x, y, PARCEL_TILE_LAYERS),
          )),
        )
      }
      if (ds.domain('plots')) {
        data.rows.push(
          ...(await measureSet(ctx, ds, 'plots', 'plots', ZOOM, tiles, data.rounds, (s, x, y) =>
            s.plots!.tile(ZOOM, x, y, PLOT_TILE_LAYERS, ['BOTSWANA', 'SOUTH_AFRICA'], {}),
          )),
        )
      } else data.notes.push('the dataset has no plot domain: the plot tiles were not measured')
      if (ctx.opts.http) data.http = await runTilesHttp(ctx, ds)
      return data
    } finally {
      ds.close()
    }
  },

  render(r: SuiteRecord<TilesData>) {
    const d = r.data
    if (d.skipped) return `Skipped: ${d.skipped}.`
    const national = r.dataset.scale === 'national'
    const ms = (us: number) => `${fmt(us / 1000, 2)} ms`
    const kib = (b: number) => `${fmt(b / 1024)} KiB`
    const lines = [
      `${d.tiles} distinct tiles per zoom of seeded points in the ${d.cells.toLocaleString('en-US')} densest 0.01° cells of ` +
        `current erven (the top ${CELL_SHARE * 100} %, at least ${MIN_CELLS}; the densest holds ` +
        `${d.densest.toLocaleString('en-US')} erven), every layer, ${d.rounds} timed round(s). Target (the issue's): a z${ZOOM} ` +
        `parcel tile within ${TARGET_P99_MS} ms p99 (whole handler). Erven appear from z${ERF_ZOOM}, measured too.`,
      '',
      '| tiles | variant | p50 | p99 | mean | ops/s | 204 share | mean bytes (200) | largest | target | verdict |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
      ...d.rows.map((x) => {
        const target = x.set === 'parcels' && x.z === ZOOM && x.variant === WHOLE
        return (
          `| ${x.op} | ${x.variant} | ${ms(x.all.p50Us)} | ${ms(x.all.p99Us)} | ${ms(x.all.meanUs)} | ${fmt(x.opsPerS)} | ` +
          `${fmt(x.share204 * 100)} % | ${kib(x.meanBytes)} | ${kib(x.maxBytes)} | ${target ? `p99 ≤ ${TARGET_P99_MS} ms` : ''} | ` +
          `${target ? verdict(national, x.all.p99Us / 1000, TARGET_P99_MS, 'ms') : ''} |`
        )
      }),
    ]
    for (const n of d.notes) lines.push('', `Note: ${n}.`)
    if (d.http) lines.push('', ...httpSection(d.http, national))
    return lines.join('\n')
  },
}

/** The HTTP part's Markdown: per load the median req/s over the rounds, each round's, and the median run's latency. */
function httpSection(h: TilesHttpData, national: boolean): string[] {
  const at = medianRun(h, 'at')
  const gz = medianRun(h, 'tiles gzip')
  const lines = [
    `Over HTTP: \`GET /parcels/tiles/15/{x}/{y}.mvt\` at ${h.paths.toLocaleString('en-US')} seeded current erven's label ` +
      `points (${h.tiles.toLocaleString('en-US')} distinct tiles) against \`GET /parcels/at\` at the same points, one ` +
      `worker, ${h.tool}, 50 connections, ${h.durationS} s per run, the loads interleaved in each round; ` +
      `${h.checked.agreed}/${h.checked.probes} tiles fetched first equal to the tiles made in process. ` +
      `Target (the issue's): the tiles at least ${TARGET_RATIO}x \`/parcels/at\`'s req/s, p99 ≤ ${HTTP_P99_MS} ms.`,
    '',
    '| load | req/s (median) | rounds | vs /parcels/at | p50 | p99 |',
    '|---|--:|---|--:|--:|--:|',
  ]
  for (const load of ['at', 'tiles gzip', 'tiles identity'] as const) {
    const m = medianRun(h, load)
    if (!m) continue
    const rounds = h.runs.filter((r) => r.load === load).map((r) => fmt(r.result.reqPerS))
    const name =
      load === 'at'
        ? '/parcels/at'
        : `z15 tiles, ${load === 'tiles gzip' ? 'Accept-Encoding: gzip' : 'no Accept-Encoding'}`
    lines.push(
      `| ${name} | ${fmt(m.reqPerS)} | ${rounds.join(', ')} | ${at ? `${fmt(m.reqPerS / at.reqPerS, 2)}x` : ''} | ` +
        `${fmt(m.run.p50Ms, 2)} ms | ${fmt(m.run.p99Ms, 2)} ms |`,
    )
  }
  if (at && gz) {
    const ratio = gz.reqPerS / at.reqPerS
    lines.push(
      '',
      `- z15 tiles (gzip) vs /parcels/at: ${fmt(ratio, 2)}x, target ≥ ${TARGET_RATIO}x: ` +
        (national
          ? ratio >= TARGET_RATIO
            ? 'met'
            : `missed by ${fmt(TARGET_RATIO - ratio, 2)}x`
          : '(target is for national scale)'),
      `- z15 tiles (gzip) p99: ${fmt(gz.run.p99Ms, 2)} ms, target ≤ ${HTTP_P99_MS} ms: ${verdict(national, gz.run.p99Ms, HTTP_P99_MS, 'ms')}`,
    )
  }
  return lines
}
