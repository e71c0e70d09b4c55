/**
 * Build and start (issue 7 item 5): national build wall time and peak RSS (measured when the
 * bench built the dataset, kept in bench/.work/<scale>/build.json), dataset size on disk,
 * server cold start to the first answer with a warm page cache, and server RSS after a
 * warm-up load.
 *
 * @module
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { BenchKeys } from '../lib/keys.js'
import { loadLayers, makeProbes } from '../lib/layers.js'
import { loadTool, runLoad } from '../lib/load.js'
import { fileRss, freePort, mappingUnitKiB, startApiServer, type RssSample } from '../lib/servers.js'
import { Random } from '../lib/prng.js'
import { fmt, median, mib } from '../lib/stats.js'
import type { Suite, SuiteRecord } from '../lib/suite.js'
import type { BuildRecord } from '../lib/dataset.js'
import { openDataset } from '../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../src/data/parcels-format.js'
import { createParcelQueries } from '../../src/features/parcels/queries.js'

export interface StartupData {
  build: BuildRecord | null
  datasetBytes: number
  coldStartMs: number[]
  listeningMs: number[]
  /**
   * cold starts with INDEX_MMAP=0: the index files read into memory (from 2026-11-25 evening, when mapping became the
   * default)
   */
  readColdStartMs?: number[]
  /**
   * `parcelRequests`, `parcelReqPerS` and the RSS parts (anonBytes, fileBytes) from 2026-11-25's
   * second session: before, the warm-up loaded reverse and radius only
   */
  warmup: Warmup | null
  /**
   * the same warm-up with SQLITE_MMAP_MB=0, the index files still mapped (absent in older records and without a
   * cadastre)
   */
  unmapped?: Warmup | null
  /**
   * RSS growth per first read of one byte of the dataset files holding the most mapped pages
   * after the warm-up, KiB (bench/lib/servers.ts mappingUnitKiB); absent in records before
   * 2026-11-26's third session
   */
  mappingUnits?: { file: string; kib: number }[]
}

interface Warmup {
  tool: string
  requests: number
  parcelRequests?: number
  parcelReqPerS?: number
  rss: (Omit<RssSample, 'anonBytes' | 'fileBytes'> & Partial<RssSample>)[]
  /**
   * the answering worker's mapped file pages by file, the 12 largest: dataset files by their path in
   * the dataset, the rest (Node's binary, shared libraries) as one entry (absent before
   * 2026-11-26's third session)
   */
  files?: { file: string; bytes: number }[]
}

/** The label of the mapped files outside the dataset in Warmup.files. */
const OUTSIDE = 'outside the dataset (node binary, libraries)'

function filesByRss(pid: number, datasetDir: string): { file: string; bytes: number }[] {
  const byFile = new Map<string, number>()
  for (const [path, bytes] of fileRss(pid)) {
    const rel = relative(resolve(datasetDir), path)
    const key = rel.startsWith('..') || isAbsolute(rel) ? OUTSIDE : rel
    byFile.set(key, (byFile.get(key) ?? 0) + bytes)
  }
  return [...byFile]
    .map(([file, bytes]) => ({ file, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 12)
}

const TARGET_BUILD_MS = 20 * 60_000
const TARGET_BUILD_RSS = 8e9
const TARGET_COLD_MS = 1500
const TARGET_RSS = 1.25 * 2 ** 30

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Spawns a 1-worker server (with `env` on top of the defaults) and times the first 200 answer to a reverse lookup. */
async function coldStart(
  datasetDir: string,
  keysDb: string,
  key: string,
  path: string,
  env: Record<string, string> = {},
): Promise<{ firstAnswerMs: number; listeningMs: number }> {
  const port = await freePort()
  const t0 = performance.now()
  const child = spawn(process.execPath, [resolve('dist', 'server.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATASET_DIR: datasetDir,
      KEYS_DB: keysDb,
      WORKERS: '1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let listeningMs = NaN
  child.stdout.on('data', (b: Buffer) => {
    if (Number.isNaN(listeningMs) && b.toString().includes('"listening"')) listeningMs = performance.now() - t0
  })
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`server exited with status ${child.exitCode} during the cold-start test`)
      if (performance.now() - t0 > 60_000) throw new Error('server did not answer within 60 s')
      try {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'X-API-KEY': key } })
        await res.arrayBuffer()
        if (res.status === 200) return { firstAnswerMs: performance.now() - t0, listeningMs }
        throw new Error(`cold start: first answer was ${res.status}`)
      } catch (err) {
        if ((err as Error).message.startsWith('cold start')) throw err
        await sleep(2)
      }
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)))
  }
}

export const startupSuite: Suite<StartupData> = {
  name: 'startup',
  title: 'Build and start',
  summary: 'dataset build time and peak RSS, size on disk, server cold start to first answer, RSS after warm-up',

  async run(ctx) {
    const work = mkdtempSync(join(tmpdir(), 'landdata-bench-start-'))
    const keysDb = join(work, 'keys.db')
    const keys = new BenchKeys(keysDb)
    try {
      const ds = openDataset(ctx.dataset.dir)
      const probes = makeProbes(loadLayers(ds), 500, ctx.opts.seed, 'startup')
      const parcels = ds.domain('parcels') ? parcelPaths(ds, ctx.opts.quick ? 500 : 20_000, ctx.opts.seed) : []
      ds.close()
      const reverse: string[] = []
      const radius: string[] = []
      for (let k = 0; k < probes.length; k++) {
        const q = `latitude=${probes.lat[k].toFixed(6)}&longitude=${probes.lon[k].toFixed(6)}`
        reverse.push(`/api/v1/plots/reverse?${q}`)
        radius.push(`/api/v1/plots/search-given-coordinates?${q}&radius=500&limit=100`)
      }
      // one start first so the dataset files are in the page cache ("warm page cache")
      const key = keys.issue()
      await coldStart(ctx.dataset.dir, keysDb, key, reverse[0])
      const coldStartMs: number[] = []
      const listeningMs: number[] = []
      for (let i = 0; i < (ctx.opts.quick ? 1 : 5); i++) {
        const r = await coldStart(ctx.dataset.dir, keysDb, key, reverse[i + 1])
        coldStartMs.push(r.firstAnswerMs)
        listeningMs.push(r.listeningMs)
        ctx.log(
          `startup: cold start to first answer ${fmt(r.firstAnswerMs)} ms (listening at ${fmt(r.listeningMs)} ms)`,
        )
      }
      // the same with the index files read into memory rather than mapped (README: INDEX_MMAP)
      const readColdStartMs: number[] = []
      for (let i = 0; i < (ctx.opts.quick ? 1 : 3); i++) {
        const r = await coldStart(ctx.dataset.dir, keysDb, key, reverse[i + 10], { INDEX_MMAP: '0' })
        readColdStartMs.push(r.firstAnswerMs)
        ctx.log(`startup: cold start with INDEX_MMAP=0 to first answer ${fmt(r.firstAnswerMs)} ms`)
      }

      const tool = loadTool(ctx.opts)
      /** One server (1 worker) under the warm-up loads, then its RSS. */
      const warm = async (env: Record<string, string>): Promise<Warmup> => {
        const server = await startApiServer({ datasetDir: ctx.dataset.dir, keysDb, workers: 1, workDir: work, env })
        try {
          const durationS = ctx.opts.quick ? 0.5 : 5
          let requests = 0
          let parcelRequests = 0
          let parcelReqPerS = 0
          // then /parcels/at over many distinct parcels: its row and geometry reads map pages of
          // the cadastre's SQLite file, which count in RSS as file pages
          for (const paths of [reverse, radius, parcels]) {
            if (!paths.length) continue
            const r = await runLoad(tool, {
              port: server.port,
              paths,
              headers: { 'X-API-KEY': keys.issue(['plots', 'parcels']) },
              connections: 50,
              durationS: paths === parcels ? durationS * 3 : durationS,
              workDir: work,
            })
            if (r.errors > 0)
              ctx.fail(
                `startup: warm-up load${env.SQLITE_MMAP_MB ? ` (SQLITE_MMAP_MB=${env.SQLITE_MMAP_MB})` : ''} had ${r.errors} errors`,
              )
            if (paths === parcels) {
              parcelRequests += r.requests
              parcelReqPerS = r.reqPerS
            } else requests += r.requests
          }
          const w = {
            tool,
            requests,
            parcelRequests,
            parcelReqPerS,
            rss: server.rss(),
            files: filesByRss(server.workerPids[0], ctx.dataset.dir),
          }
          ctx.log(
            `startup: RSS${env.SQLITE_MMAP_MB ? ` with SQLITE_MMAP_MB=${env.SQLITE_MMAP_MB}` : ''} after ${requests} + ${parcelRequests} requests: ${w.rss.map((p) => `${mib(p.rssBytes)} (private ${mib(p.anonBytes)}, file ${mib(p.fileBytes)})`).join(', ')}; /parcels/at ${fmt(parcelReqPerS)} req/s`,
          )
          return w
        } finally {
          await server.stop()
        }
      }
      const warmup = await warm({})
      // the same loads with the SQLite files not memory-mapped (README: SQLITE_MMAP_MB)
      const unmapped = parcels.length ? await warm({ SQLITE_MMAP_MB: '0' }) : null
      // the unit RssFile grows in, for the dataset files holding the most mapped pages (cached now)
      const mappingUnits: { file: string; kib: number }[] = []
      for (const { file } of (warmup.files ?? []).filter((f) => f.file !== OUTSIDE).slice(0, 4)) {
        const kib = mappingUnitKiB(join(ctx.dataset.dir, file))
        if (kib === null) continue
        mappingUnits.push({ file, kib })
        ctx.log(`startup: a first read of one byte of mapped ${file} adds ${fmt(kib)} KiB to RSS`)
      }
      return {
        build: ctx.dataset.build,
        datasetBytes: ctx.dataset.sizeBytes,
        coldStartMs,
        listeningMs,
        readColdStartMs,
        warmup,
        unmapped,
        mappingUnits,
      }
    } finally {
      keys.close()
      rmSync(work, { recursive: true, force: true })
    }
  },

  render(r: SuiteRecord<StartupData>) {
    const d = r.data
    const national = r.dataset.scale === 'national'
    const verdict = (ok: boolean, miss: string) =>
      !national ? '(target is for national scale)' : ok ? 'met' : `missed by ${miss}`
    const lines = ['| measure | value | target | verdict |', '|---|--:|--:|---|']
    if (d.build) {
      const b = d.build
      lines.push(
        `| source generation (synth, in the bench process) | ${b.synthMs ? `${fmt(b.synthMs / 1000)} s` : 'reused'} | | |`,
        `| dataset build wall time (build-index in a child process, built ${b.builtAt.slice(0, 10)}) | ${fmt(b.buildWallMs / 1000)} s | ≤ 20 min | ${verdict(b.buildWallMs <= TARGET_BUILD_MS, `${fmt((b.buildWallMs - TARGET_BUILD_MS) / 1000)} s`)} |`,
        `| dataset build peak RSS | ${mib(b.buildPeakRssBytes)} | ≤ 8 GB | ${verdict(b.buildPeakRssBytes <= TARGET_BUILD_RSS, mib(b.buildPeakRssBytes - TARGET_BUILD_RSS))} |`,
        `| source export size on disk | ${mib(b.sourceBytes)} | | |`,
      )
      if (b.phases && Object.keys(b.phases).length) {
        // where the build's time goes (the rest: opening, indexes, VACUUM-free copies, the manifest)
        const parts = Object.entries(b.phases).sort((x, y) => y[1] - x[1])
        const listed = parts.reduce((t, [, v]) => t + v, 0)
        lines.push(
          `| … by phase (from build-index's progress lines; layers = reading, repairing and writing every province ` +
            `layer) | ${parts.map(([k, v]) => `${k} ${fmt(v)} s`).join(', ')}; other ${fmt(Math.max(0, b.buildWallMs / 1000 - listed))} s | | |`,
        )
      }
    } else {
      lines.push(
        '| dataset build | not measured (dataset given with --dataset, or built before the bench kept build.json) ' +
          '| | |',
      )
    }
    lines.push(`| dataset size on disk | ${mib(d.datasetBytes)} | | |`)
    const cold = median(d.coldStartMs)
    lines.push(
      `| server cold start to first answer, warm page cache (median of ${d.coldStartMs.length}: ${d.coldStartMs.map((v) => fmt(v)).join(', ')} ms) | ${fmt(cold)} ms | ≤ 1.5 s | ${verdict(cold <= TARGET_COLD_MS, `${fmt(cold - TARGET_COLD_MS)} ms`)} |`,
      `| … of which until the \`listening\` log line (median) | ${fmt(median(d.listeningMs))} ms | | |`,
    )
    if (d.readColdStartMs?.length) {
      lines.push(
        `| … the same with \`INDEX_MMAP=0\` (the index files read into memory on the thread pool, not mapped; ` +
          `median of ${d.readColdStartMs.length}: ${d.readColdStartMs.map((v) => fmt(v)).join(', ')} ms) | ${fmt(median(d.readColdStartMs))} ms | | |`,
      )
    }
    if (d.warmup) {
      const w = d.warmup
      const worst = w.rss.reduce((a, b) => (b.rssBytes > a.rssBytes ? b : a))
      const load = w.parcelRequests
        ? `${w.requests.toLocaleString('en-US')} reverse + radius requests, then ${w.parcelRequests.toLocaleString('en-US')} \`/parcels/at\` ` +
          `requests over up to 20,000 distinct parcels, by ${w.tool}`
        : `${w.requests.toLocaleString('en-US')} reverse + radius requests by ${w.tool}`
      lines.push(
        `| server RSS after warm-up (WORKERS=1, ${load}) | ${mib(worst.rssBytes)} | ≤ 1.25 GiB per worker | ${verdict(worst.rssBytes <= TARGET_RSS, mib(worst.rssBytes - TARGET_RSS))} |`,
      )
      if (worst.anonBytes !== undefined && worst.fileBytes !== undefined) {
        lines.push(
          `| … of which private memory (RssAnon: heap, caches${
            d.readColdStartMs ? '' : ', indexes read into ' + 'memory'
          }) | ${mib(worst.anonBytes)} | | |`,
          `| … of which mapped file pages (RssFile: the pages of the dataset's ${
            d.readColdStartMs ? 'mapped index files ' + 'and ' : ''
          }mmapped SQLite files ` +
            `the requests touched; shared with the page cache and every other worker, and dropped by the kernel ` +
            `under memory pressure) | ${mib(worst.fileBytes)} | | |`,
        )
        if (w.files?.length) {
          lines.push(
            `| … mapped file pages by file (/proc/<pid>/smaps) | ${w.files
              .slice(0, 6)
              .map((f) => `${f.file} ${mib(f.bytes)}`)
              .join(', ')} | | |`,
          )
        }
        if (d.mappingUnits?.length) {
          lines.push(
            `| … the unit they are counted in: RSS growth per first read of one byte of a mapped file (up to 64 ` +
              `reads 8 MiB apart, page cache warm). The kernel maps pages around a read that the page cache ` +
              `already holds (fault-around, 64 KiB) and a large folio whole (up to 2 MiB), so RssFile counts the ` +
              `regions requests touched rather than the bytes they read | ${d.mappingUnits.map((u) => `${u.file} ${fmt(u.kib)} KiB`).join(', ')} | | |`,
          )
        }
      }
      lines.push(`| … peak RSS of that process | ${mib(Math.max(...w.rss.map((p) => p.hwmBytes)))} | | |`)
      const u = d.unmapped
      if (u && w.parcelReqPerS) {
        const uw = u.rss.reduce((a, b) => (b.rssBytes > a.rssBytes ? b : a))
        lines.push(
          `| the same loads with \`SQLITE_MMAP_MB=0\` (${
            d.readColdStartMs
              ? 'the SQLite files not memory-mapped, ' + 'the index files still mapped'
              : 'no memory-mapping'
          }): server RSS | ${mib(uw.rssBytes)} (private ${mib(uw.anonBytes ?? NaN)}, file pages ${mib(uw.fileBytes ?? NaN)}) | ≤ 1.25 GiB per ` +
            `worker | ${verdict(uw.rssBytes <= TARGET_RSS, mib(uw.rssBytes - TARGET_RSS))} |`,
          `| … \`/parcels/at\` req/s during its load (50 connections; one run each, so within the VM's noise): ` +
            `mapped / not mapped | ${fmt(w.parcelReqPerS)} / ${fmt(u.parcelReqPerS ?? NaN)} (${fmt(((u.parcelReqPerS ?? NaN) / w.parcelReqPerS - 1) * 100, 1)} %) | | |`,
        )
      }
    }
    return lines.join('\n')
  },
}

/**
 * `/parcels/at` paths at the label points of `count` distinct published parcels drawn at random
 * (seeded), kept only where the point lies in a parcel (every answer a 200).
 */
function parcelPaths(ds: ReturnType<typeof openDataset>, count: number, seed: number): string[] {
  const q = createParcelQueries(ds)
  const db = ds.sqlite(PARCEL_FILES.sqlite)
  const max = db.prepare('SELECT max(id) FROM parcel').pluck().get() as number
  const row = db.prepare('SELECT label_lon, label_lat FROM parcel WHERE id = ? AND hidden = 0')
  const rnd = new Random(seed >>> 0, 'bench/startup/parcels')
  const seen = new Set<number>()
  const out: string[] = []
  for (let tries = 0; out.length < count && tries < count * 4; tries++) {
    const id = rnd.int(1, max)
    if (seen.has(id)) continue
    seen.add(id)
    const r = row.get(id) as { label_lon: number; label_lat: number } | undefined
    if (!r) continue
    const lon = Number(r.label_lon.toFixed(6))
    const lat = Number(r.label_lat.toFixed(6))
    if (q.at(lon, lat, { all: false }).length === 0) continue
    out.push(`/api/v1/parcels/at?latitude=${lat}&longitude=${lon}`)
  }
  return out
}
