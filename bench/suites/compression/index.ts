/**
 * `--only compression` (issue #37 item 3, "compression costs must not land on small answers"):
 * the CPU cost of compressing real answers, in process, from about 200 B to about 200 KB, with
 * the codings and levels of src/http/compress.ts (gzip level 1, brotli quality 4), and the bytes
 * each saves; each coding one-shot (as the server compresses: a native handle opened and closed
 * per answer) and on one kept handle (compressors.ts), to show whether reuse pays. The answers
 * come from the whole app in process (`app.request`, `Accept-Encoding: identity`): radius answers
 * at growing `limit`, `/parcels/within` pages at growing `page_size` in JSON and in GeoJSON, and
 * `/jurisdiction/at`. Every compressed body is decompressed once and compared with the answer.
 * The figures set COMPRESS_MIN_BYTES and the levels in src/http/compress.ts.
 *
 * @module
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { johannesburgDate } from '../../../src/auth/dates.js'
import { openDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../../src/data/parcels-format.js'
import { createJurisdictionQueries } from '../../../src/features/jurisdiction/queries.js'
import { BROTLI_QUALITY, COMPRESS_MIN_BYTES, GZIP_LEVEL } from '../../../src/http/compress.js'
import { withInProcessApp } from '../../lib/batches.js'
import { loadLayers } from '../../lib/layers.js'
import { Random } from '../../lib/prng.js'
import { fmt } from '../../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../../lib/suite.js'
import { boxPath, pointQuery } from '../http/urls.js'
import { makeJurisdictionProbes } from '../jurisdiction.js'
import { brotliOneShot, brotliReused, type Compressor, gzipOneShot, gzipReused } from './compressors.js'

/** The variants timed: coding, level, one-shot or on a kept handle. */
export const VARIANTS = [
  { name: 'gzip 1', coding: 'gzip', level: 1, reused: false },
  { name: 'gzip 1, reused', coding: 'gzip', level: 1, reused: true },
  { name: 'brotli 1', coding: 'br', level: 1, reused: false },
  { name: 'brotli 1, reused', coding: 'br', level: 1, reused: true },
  { name: 'brotli 2', coding: 'br', level: 2, reused: false },
  { name: 'brotli 4', coding: 'br', level: 4, reused: false },
  { name: 'brotli 4, reused', coding: 'br', level: 4, reused: true },
] as const
type Variant = (typeof VARIANTS)[number]['name']

const compressorOf = (v: (typeof VARIANTS)[number]): Compressor =>
  v.coding === 'gzip'
    ? (v.reused ? gzipReused : gzipOneShot)(v.level)
    : (v.reused ? brotliReused : brotliOneShot)(v.level)

export interface CompressionRow {
  answer: string
  bytes: number
  /** compressed size by variant (a reused handle gives the one-shot's bytes) */
  out: Record<Variant, number>
  /** µs per call of each variant: its fastest batch (other processes only ever add time) */
  us: Record<Variant, number>
}

export interface CompressionData {
  batches: number
  rows: CompressionRow[]
}

const LIMITS = [1, 3, 10, 30, 100, 300, 500]
const PAGE_SIZES = [1, 3, 10, 30, 100, 300, 500]
/** Timed batches per variant and answer, interleaved; each batch about this long. */
const BATCH_MS = 2

/** The answers to compress: `[label, path, accept]` through the app, identity. */
function answerPaths(dir: string, seed: number): [string, string, string][] {
  const ds = openDataset(dir)
  try {
    const out: [string, string, string][] = []
    // the radius answers at a random plot of the largest layer, 5 km: the limit sets the size
    const layers = loadLayers(ds).sort((a, b) => b.n - a.n)
    if (layers.length) {
      const i = new Random(seed >>> 0, 'bench/compression/radius').int(0, layers[0].n - 1)
      const at = pointQuery(layers[0].lon[i], layers[0].lat[i], 6)
      for (const limit of LIMITS)
        out.push([
          `radius, limit ${limit}`,
          `/api/v1/plots/search-given-coordinates?${at}&radius=5000&limit=${limit}`,
          'application/json',
        ])
    }
    if (ds.domain('parcels')) {
      const db = ds.sqlite(PARCEL_FILES.sqlite)
      const ids = db.prepare("SELECT id FROM parcel WHERE parcel_type = 'ERF' AND hidden = 0").pluck().all() as number[]
      if (ids.length) {
        const rnd = new Random(seed >>> 0, 'bench/compression/box')
        const [lon, lat] = db
          .prepare('SELECT label_lon, label_lat FROM parcel WHERE id = ?')
          .raw()
          .get(ids[rnd.int(0, ids.length - 1)]) as [number, number]
        for (const accept of ['application/json', 'application/geo+json'])
          for (const size of PAGE_SIZES)
            out.push([
              `/parcels/within${accept.includes('geo') ? ' GeoJSON' : ''}, page_size ${size}`,
              `${boxPath(lon, lat, 0.05)}&page_size=${size}`,
              accept,
            ])
      }
    }
    if (ds.domain('jurisdiction')) {
      const q = createJurisdictionQueries(ds)
      const p = makeJurisdictionProbes(q, johannesburgDate(new Date()), 3, seed, 'compression', 1)
      for (let k = 0; k < p.length; k++)
        out.push([
          `/jurisdiction/at #${k + 1}`,
          `/api/v1/jurisdiction/at?lat=${p.lat[k]}&lon=${p.lon[k]}`,
          'application/json',
        ])
    }
    return out
  } finally {
    ds.close()
  }
}

/**
 * µs per call of each compressor on `body`: the fastest of `batches` interleaved batches of about
 * {@link BATCH_MS} each. The fastest, not the median: on this shared machine other processes only
 * ever add time, and a median of 2 ms batches still moved 4x between runs at load 10.
 */
export function timeCompressors(body: Uint8Array, fns: Compressor[], batches: number): number[] {
  const per = fns.map((f) => {
    const t = performance.now()
    f(body)
    return Math.max(1, Math.min(5_000, Math.round(BATCH_MS / Math.max(performance.now() - t, 0.001))))
  })
  const samples = fns.map(() => [] as number[])
  for (let b = 0; b < batches; b++)
    fns.forEach((f, i) => {
      const t = performance.now()
      for (let k = 0; k < per[i]; k++) f(body)
      samples[i].push(((performance.now() - t) * 1000) / per[i])
    })
  return samples.map((s) => Math.min(...s))
}

async function run(ctx: SuiteContext): Promise<CompressionData> {
  const batches = ctx.opts.quick ? 3 : 31
  const paths = answerPaths(ctx.dataset.dir, ctx.opts.seed)
  const ds = openDataset(ctx.dataset.dir)
  try {
    const bodies = await withInProcessApp(ds, 'compression', ['plots', 'parcels', 'jurisdiction'], async (app, key) => {
      const got: [string, Uint8Array][] = []
      for (const [label, path, accept] of paths) {
        const res = await app.request(path, {
          headers: { 'X-API-KEY': key, 'Accept-Encoding': 'identity', Accept: accept },
        })
        const body = new Uint8Array(await res.arrayBuffer())
        if (res.status === 200) got.push([label, body])
        else ctx.fail(`compression: ${path} answered ${res.status}: ${Buffer.from(body.subarray(0, 200)).toString()}`)
      }
      return got
    })
    const fns = VARIANTS.map(compressorOf)
    const rows: CompressionRow[] = []
    for (const [answer, body] of bodies) {
      const out = fns.map((f) => f(body))
      out.forEach((o, i) => {
        const back = VARIANTS[i].coding === 'gzip' ? gunzipSync(o) : brotliDecompressSync(o)
        if (!back.equals(body))
          ctx.fail(`compression: ${VARIANTS[i].name} of ${answer} does not decompress to the answer`)
      })
      const us = timeCompressors(body, fns, batches)
      const byVariant = (v: number[]) =>
        Object.fromEntries(VARIANTS.map((x, i) => [x.name, v[i]])) as Record<Variant, number>
      rows.push({ answer, bytes: body.length, out: byVariant(out.map((o) => o.length)), us: byVariant(us) })
      ctx.log(
        `compression: ${answer}, ${body.length} B: ${VARIANTS.map((v, i) => `${v.name} ${fmt(us[i], 1)} µs`).join(', ')}`,
      )
    }
    rows.sort((a, b) => a.bytes - b.bytes)
    return { batches, rows }
  } finally {
    ds.close()
  }
}

const pct = (part: number, whole: number) => `${fmt((100 * part) / whole, 0)} %`
/** The one-shot variants, whose bytes the table shows (a reused handle gives the same bytes). */
const ONE_SHOT = VARIANTS.filter((v) => !v.reused).map((v) => v.name)

export function renderCompression(r: SuiteRecord<CompressionData>): string {
  const d = r.data
  const lines = [
    'In process, one core: each answer compressed by each variant in batches of about 2 ms, ' +
      `${d.batches} batches interleaved, µs per answer in the fastest batch (other processes only add time). ` +
      "One-shot: node:zlib's `gzipSync`/`brotliCompressSync`, as src/http/compress.ts calls them (a native handle " +
      'opened and closed per answer); reused: one handle kept and reset after each answer (bench/suites/compression/compressors.ts). ' +
      'Brotli in text mode. Answers from the app with `Accept-Encoding: identity`. The server: ' +
      `brotli quality ${BROTLI_QUALITY}, gzip level ${GZIP_LEVEL}, answers up to ${COMPRESS_MIN_BYTES} B uncompressed ` +
      '(src/http/compress.ts).',
    '',
    `| answer | bytes | ${ONE_SHOT.map((v) => `${v} bytes`).join(' | ')} | ${VARIANTS.map((v) => `${v.name} µs`).join(' | ')} |`,
    `|---|--:|${ONE_SHOT.map(() => '--:').join('|')}|${VARIANTS.map(() => '--:').join('|')}|`,
  ]
  for (const row of d.rows)
    lines.push(
      `| ${row.answer} | ${row.bytes.toLocaleString('en-US')} | ` +
        `${ONE_SHOT.map((v) => `${row.out[v].toLocaleString('en-US')} (${pct(row.out[v], row.bytes)})`).join(' | ')} | ` +
        `${VARIANTS.map((v) => fmt(row.us[v.name], 1)).join(' | ')} |`,
    )
  return lines.join('\n')
}

export const compressionSuite: Suite<CompressionData> = {
  name: 'compression',
  title: 'Compression of answers: CPU and bytes saved by size',
  summary: 'gzip 1 and brotli 4 on real answers from 200 B to 200 KB, one-shot vs a reused handle, µs and bytes',
  run,
  render: renderCompression,
}
