/**
 * The worst legal request of each endpoint family (docs/api.md "Bounded work"): the largest
 * radius, box, batch, page and geometry each accepts, aimed at the densest place of the dataset
 * (the 0.01° cell with the most erven; the biggest parcel and boundary by stored geometry), sent
 * through the whole app in process (`app.request`: parse, validation, key, limiter, lookups, the
 * answer's bytes). Reported per request: the slowest of a few runs, the answer's size, and the
 * heap held after the answer (forced collection before and after, so it is what a request
 * leaves, not its transient garbage: that is the peak column, from V8's heap statistics).
 *
 * @module
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import Database from 'better-sqlite3'
import pino from 'pino'
import { createApp } from '../../src/app.js'
import { SqliteKeyStore } from '../../src/auth/key-store.js'
import { DatasetHandle, openDataset } from '../../src/data/open-dataset.js'
import { MemoryRateLimiter } from '../../src/rate-limit/memory.js'
import { buildServices } from '../../src/services.js'
import { AREA_MAX_HOLES } from '../../src/features/encumbrances/geometry-input.js'
import { tileAt } from '../../src/geo/tiles.js'
import { BenchKeys } from '../lib/keys.js'
import { fmt } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'
import { type SlowReaders, slowReaders, slowReadersText } from './slow-readers.js'

interface Row {
  request: string
  status: number
  maxMs: number
  medianMs: number
  bytes: number
  /** heap growth while the request ran (peak), MB */
  peakMb: number
}

export interface WorstCaseData {
  runs: number
  place: { lon: number; lat: number; erven: number }
  rows: Row[]
  /** clients that do not read, against the real server (absent in older records) */
  slowReaders?: SlowReaders
}

type Call = { name: string; method?: 'GET' | 'POST'; path: string; body?: unknown }

/** The densest erf cell, the biggest parcel and the biggest boundary of the dataset. */
function places(dir: string) {
  const parcels = new Database(join(dir, 'parcels', 'parcels.sqlite'), { readonly: true })
  const dense = parcels
    .prepare(
      `SELECT round(label_lon, 2) AS lon, round(label_lat, 2) AS lat, count(*) AS n FROM parcel
        WHERE parcel_type = 'ERF' GROUP BY 1, 2 ORDER BY n DESC LIMIT 1`,
    )
    .get() as { lon: number; lat: number; n: number }
  const bigParcel = parcels.prepare('SELECT lpi FROM parcel ORDER BY length(geom) DESC LIMIT 1').pluck().get() as string
  const lpis = parcels.prepare('SELECT lpi FROM parcel ORDER BY id LIMIT 1000').pluck().all() as string[]
  parcels.close()
  const bounds = new Database(join(dir, 'jurisdiction', 'boundaries.sqlite'), { readonly: true })
  const big = bounds
    .prepare('SELECT type, code FROM boundary WHERE geom IS NOT NULL ORDER BY length(geom) DESC LIMIT 1')
    .get() as { type: string; code: string }
  bounds.close()
  return { dense, bigParcel, lpis, big }
}

function calls(dir: string): { calls: Call[]; place: WorstCaseData['place'] } {
  const { dense, bigParcel, lpis, big } = places(dir)
  const { lon, lat } = dense
  const at = `latitude=${lat}&longitude=${lon}`
  const box = (d: number) => `${lon - d},${lat - d},${lon + d},${lat + d}`
  const t = tileAt(lon, lat, 14)
  // about the largest area /intersect takes: a 2 400 km² square (0.44° of latitude) on the densest cell
  const dy = 0.44 / 2
  const dx = dy / Math.cos((lat * Math.PI) / 180)
  const square = [
    [lon - dx, lat - dy],
    [lon + dx, lat - dy],
    [lon + dx, lat + dy],
    [lon - dx, lat + dy],
    [lon - dx, lat - dy],
  ]
  // the same square with small square holes (0.002°, about 200 m) on a grid across it: the most
  // holes accepted, and a request with four times as many, refused before any ring is checked
  const holey = (holes: number) => {
    const k = Math.ceil(Math.sqrt(holes))
    const rings = [square]
    for (let i = 0; i < holes; i++) {
      const x = lon - dx + ((2 * dx) / (k + 1)) * ((i % k) + 1)
      const y = lat - dy + ((2 * dy) / (k + 1)) * (Math.floor(i / k) + 1)
      const r = 0.001
      rings.push([
        [x - r, y - r],
        [x - r, y + r],
        [x + r, y + r],
        [x + r, y - r],
        [x - r, y - r],
      ])
    }
    return { geometry: { type: 'Polygon', coordinates: rings }, include_geometry: false }
  }
  const points = Array.from({ length: 1000 }, (_, k) => ({
    latitude: lat + ((k % 40) - 20) * 0.0005,
    longitude: lon + (Math.floor(k / 40) - 12) * 0.0005,
  }))
  return {
    place: { lon, lat, erven: dense.n },
    calls: [
      {
        name: 'GET /plots/search-given-coordinates (50 km)',
        path: `/plots/search-given-coordinates?${at}&radius=50000`,
      },
      { name: 'GET /parcels/at', path: `/parcels/at?${at}` },
      // issue #39 item 9: the nearest search's 2 km became every degree of longitude at a pole
      { name: 'GET /parcels/at (a pole: no parcel, no nearest)', path: '/parcels/at?latitude=-90&longitude=0' },
      { name: 'GET /encumbrances/at (a pole, 1 km)', path: '/encumbrances/at?latitude=90&longitude=0&radius_m=1000' },
      {
        name: 'GET /parcels/within (largest page)',
        path: `/parcels/within?min_lat=${lat - 0.02}&min_lng=${lon - 0.02}&max_lat=${lat + 0.02}&max_lng=${lon + 0.02}&page_size=500`,
      },
      { name: 'POST /parcels/batch (1 000 points)', method: 'POST', path: '/parcels/batch', body: { points } },
      { name: 'POST /parcels/batch (1 000 LPIs)', method: 'POST', path: '/parcels/batch', body: { lpis } },
      { name: 'GET /parcels/{lpi}/geometry (biggest parcel)', path: `/parcels/${bigParcel}/geometry` },
      { name: 'GET /encumbrances/at (1 km)', path: `/encumbrances/at?${at}&radius_m=1000` },
      {
        name: 'GET /encumbrances/within (widest box, 1 000)',
        path: `/encumbrances/within?bbox=${box(0.05)}&limit=1000`,
      },
      { name: 'GET /encumbrances/search (sg 1*, 1 000)', path: '/encumbrances/search?sg_number=1*/19*&limit=1000' },
      {
        name: 'POST /encumbrances/batch (500 points)',
        method: 'POST',
        path: '/encumbrances/batch',
        body: points.slice(0, 500),
      },
      {
        name: 'POST /encumbrances/intersect (2 400 km² area)',
        method: 'POST',
        path: '/encumbrances/intersect',
        body: { geometry: { type: 'Polygon', coordinates: [square] } },
      },
      {
        name: 'POST /encumbrances/intersect (2 400 km² area, 1 000 holes)',
        method: 'POST',
        path: '/encumbrances/intersect',
        body: holey(AREA_MAX_HOLES),
      },
      {
        name: 'POST /encumbrances/intersect (3 990 holes, refused)',
        method: 'POST',
        path: '/encumbrances/intersect',
        body: holey(3990),
      },
      {
        name: 'POST /encumbrances/intersect (200 km route)',
        method: 'POST',
        path: '/encumbrances/intersect',
        body: {
          geometry: {
            type: 'LineString',
            coordinates: [
              [lon - 0.9, lat - 0.6],
              [lon + 0.4, lat + 0.4],
            ],
          },
        },
      },
      {
        name: 'GET /encumbrances/heatmap (whole country)',
        path: '/encumbrances/heatmap?north=-22&south=-35&east=33&west=16',
      },
      { name: 'GET /encumbrances/tiles z14 (densest)', path: `/encumbrances/tiles/14/${t.x}/${t.y}.mvt` },
      {
        name: 'POST /jurisdiction/batch (5 000 points)',
        method: 'POST',
        path: '/jurisdiction/batch',
        body: {
          points: Array.from({ length: 5000 }, (_, k) => ({
            latitude: lat + ((k % 100) - 50) * 0.002,
            longitude: lon + (Math.floor(k / 100) - 25) * 0.002,
          })),
        },
      },
      { name: 'GET /jurisdiction/boundaries/ward (1 000)', path: '/jurisdiction/boundaries/ward?limit=1000' },
      {
        name: 'GET /jurisdiction/boundaries/.../geometry (biggest)',
        path: `/jurisdiction/boundaries/${big.type}/${encodeURIComponent(big.code)}/geometry`,
      },
      { name: 'GET /jurisdiction/search (100)', path: '/jurisdiction/search?q=ma&limit=100' },
    ],
  }
}

async function run(ctx: SuiteContext): Promise<WorstCaseData> {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const runs = ctx.opts.quick ? 2 : 5
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-worst-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const key = keys.issue(['plots', 'parcels', 'encumbrance', 'jurisdiction'])
  const store = new SqliteKeyStore(keys.path)
  const app = createApp({
    log: pino({ level: 'silent' }),
    keys: store,
    limiter: new MemoryRateLimiter(),
    data: new DatasetHandle(openDataset(ctx.dataset.dir), buildServices),
  })
  const { calls: list, place } = calls(ctx.dataset.dir)
  const rows: Row[] = []
  for (const c of list) {
    const send = async () => {
      const res = await app.request(`/api/v1${c.path}`, {
        method: c.method ?? 'GET',
        headers: { 'X-API-KEY': key, ...(c.body ? { 'Content-Type': 'application/json' } : {}) },
        body: c.body ? JSON.stringify(c.body) : undefined,
      })
      return { status: res.status, bytes: (await res.arrayBuffer()).byteLength }
    }
    await send()
    const times: number[] = []
    let last = { status: 0, bytes: 0 }
    let peak = 0
    for (let k = 0; k < runs; k++) {
      gc()
      const before = process.memoryUsage().heapUsed
      let high = before
      const timer = setInterval(() => {
        high = Math.max(high, process.memoryUsage().heapUsed)
      }, 5)
      const t0 = performance.now()
      last = await send()
      times.push(performance.now() - t0)
      clearInterval(timer)
      peak = Math.max(peak, Math.max(high, process.memoryUsage().heapUsed) - before)
    }
    if (last.status >= 500) ctx.fail(`worst-case: ${c.name} answered ${last.status}`)
    times.sort((a, b) => a - b)
    rows.push({
      request: c.name,
      status: last.status,
      maxMs: times[times.length - 1],
      medianMs: times[times.length >> 1],
      bytes: last.bytes,
      peakMb: peak / 1e6,
    })
    ctx.log(`worst-case: ${c.name}: ${last.status}, max ${fmt(times[times.length - 1], 1)} ms`)
  }
  store.close()
  const batch = list.find((c) => c.path === '/jurisdiction/batch')!
  const batchRow = rows.find((r) => r.request === batch.name)!
  const slow = await slowReaders({
    datasetDir: ctx.dataset.dir,
    keys,
    workDir: work,
    body: batch.body,
    answerBytes: batchRow.bytes,
    count: ctx.opts.quick ? 20 : 200,
    waitS: ctx.opts.quick ? 2 : 8,
  })
  ctx.log(`worst-case: ${slowReadersText(slow)}`)
  keys.close()
  return { runs, place, rows, slowReaders: slow }
}

export const worstCaseSuite: Suite<WorstCaseData> = {
  name: 'worst-case',
  title: 'Worst legal request per endpoint',
  summary: 'the largest radius, box, batch, page and geometry of each endpoint, on the densest place, in process',
  run,
  render(r: SuiteRecord<WorstCaseData>) {
    const d = r.data
    const lines = [
      `The largest request each endpoint accepts, aimed at the densest 0.01° cell of erven ` +
        `(${d.place.erven} erven around ${fmt(d.place.lon, 2)}, ${fmt(d.place.lat, 2)}), through the whole app in ` +
        `process; ${d.runs} runs after one warm-up. "peak heap" is the heap growth while the request ran, ` +
        'sampled every 5 ms (a lower bound for short requests).',
      '',
      '| request | status | median ms | max ms | answer KB | peak heap MB |',
      '|---|--:|--:|--:|--:|--:|',
    ]
    for (const row of d.rows)
      lines.push(
        `| ${row.request} | ${row.status} | ${fmt(row.medianMs, 1)} | ${fmt(row.maxMs, 1)} | ` +
          `${fmt(row.bytes / 1024, 0)} | ${fmt(row.peakMb, 1)} |`,
      )
    if (d.slowReaders) lines.push('', slowReadersText(d.slowReaders))
    return lines.join('\n')
  },
}
