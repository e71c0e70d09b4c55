/**
 * Shipping builds (docs/operations.md "Publishing and pulling builds"): `dataset publish` of the
 * bench dataset and of the weekly encumbrance build (incremental.ts), into one target served by
 * nginx on loopback; `dataset pull` of each over HTTP into an empty DATASETS_DIR (the second
 * linking what the first holds); then the weekly pull again onto a running server (2 workers,
 * under load) with `--activate`: the pull, and the switch from SIGHUP to every worker serving
 * it. Any failed request fails the run.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Nginx } from '../../../scripts/lb/nginx.js'
import type { Compression } from '../../../src/ship/layout.js'
import { publishDataset } from '../../../src/ship/publish.js'
import { pullBuild } from '../../../src/ship/pull.js'
import { httpSource } from '../../../src/ship/source.js'
import { BenchKeys } from '../../lib/keys.js'
import { reversePaths } from '../../lib/layers.js'
import { type LoadResult, loadTool, runLoad } from '../../lib/load.js'
import { freePort, startApiServer } from '../../lib/servers.js'
import { fmt, mib } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { switchedLines } from './swap.js'

const COMPRESSION: Compression = 'zstd'

export interface ShipStep {
  s: number
  /** publish: stored bytes written; pull: stored bytes received */
  bytes: number
  files: number
  /** pull: files hard-linked from the builds held */
  linked?: number
}

export interface ShipData {
  compression: Compression
  /** the stored bytes of every object of the full build */
  fullStoredBytes: number
  publishFull: ShipStep
  publishWeekly: ShipStep | null
  pullFull: ShipStep
  pullWeekly: ShipStep | null
  /** `pull --activate` of the weekly build onto a running server, under load */
  activate: { pullS: number; hupToServedMs: number; requests: number; failed: number } | null
}

const seconds = (t0: number) => (performance.now() - t0) / 1000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function runShip(ctx: SuiteContext, work: string, weekly: string | null): Promise<ShipData> {
  const www = join(work, 'www')
  const target = join(www, 'published')
  let t0 = performance.now()
  const full = await publishDataset(ctx.dataset.dir, target, { compression: COMPRESSION, name: 'full' })
  const publishFull = { s: seconds(t0), bytes: full.bytesWritten, files: full.written }
  ctx.log(`operations: published the full build in ${fmt(publishFull.s)} s (${mib(full.bytesWritten)})`)
  let week: Awaited<ReturnType<typeof publishDataset>> | null = null
  let publishWeekly: ShipStep | null = null
  if (weekly) {
    t0 = performance.now()
    week = await publishDataset(weekly, target, { compression: COMPRESSION, name: 'weekly' })
    publishWeekly = { s: seconds(t0), bytes: week.bytesWritten, files: week.written }
    ctx.log(
      `operations: published the weekly build in ${fmt(publishWeekly.s)} s (${mib(week.bytesWritten)}, ` +
        `${week.written} objects; ${fmt((week.bytesWritten / full.bytesTotal) * 100)} % of the full build)`,
    )
  }

  const port = await freePort()
  const nginx = new Nginx(join(work, 'nginx'), port, {
    template: 'static.conf.template',
    vars: {
      user: process.getuid?.() === 0 ? 'user root;' : '',
      root: www,
      listen_slow: `127.0.0.1:${await freePort()}`,
      limit_rate: '0',
    },
  })
  await nginx.start([])
  const source = httpSource(`http://127.0.0.1:${port}/published/`)
  try {
    const datasets = join(work, 'datasets')
    mkdirSync(datasets)
    t0 = performance.now()
    const pf = await pullBuild(source, datasets, { build: full.build.build_digest })
    const pullFull = { s: seconds(t0), bytes: pf.bytesFetched, files: pf.filesFetched, linked: pf.filesLinked }
    ctx.log(`operations: pulled the full build in ${fmt(pullFull.s)} s (${mib(pf.bytesFetched)})`)
    let pullWeekly: ShipStep | null = null
    if (week) {
      t0 = performance.now()
      const pw = await pullBuild(source, datasets, { build: week.build.build_digest })
      pullWeekly = { s: seconds(t0), bytes: pw.bytesFetched, files: pw.filesFetched, linked: pw.filesLinked }
      ctx.log(
        `operations: pulled the weekly build in ${fmt(pullWeekly.s)} s (${mib(pw.bytesFetched)}, ` +
          `${pw.filesFetched} files fetched, ${pw.filesLinked} linked)`,
      )
    }
    const activate = week
      ? await pullAndSwitch(ctx, work, source, full.build.build_digest, week.build.build_digest)
      : null
    return {
      compression: COMPRESSION,
      fullStoredBytes: full.bytesTotal,
      publishFull,
      publishWeekly,
      pullFull,
      pullWeekly,
      activate,
    }
  } finally {
    await nginx.stop()
  }
}

/** A server (2 workers, 50 connections of load) on the full build; the weekly one pulled with --activate. */
async function pullAndSwitch(
  ctx: SuiteContext,
  work: string,
  source: ReturnType<typeof httpSource>,
  fullDigest: string,
  weeklyDigest: string,
): Promise<ShipData['activate']> {
  // a fresh machine: the full build pulled with --activate and no server yet (the link alone moves)
  const datasets = join(work, 'served')
  mkdirSync(datasets)
  const current = join(datasets, 'current')
  const pidFile = join(work, 'ship-server.pid')
  await pullBuild(source, datasets, { build: fullDigest, activate: current, pidFile })
  const keysDb = join(work, 'ship-keys.db')
  const keys = new BenchKeys(keysDb)
  const headers = { 'X-API-KEY': keys.issue(['plots']) }
  keys.close()
  const workers = 2
  const p = await startApiServer({ datasetDir: current, keysDb, workers, workDir: work, env: { PID_FILE: pidFile } })
  writeFileSync(pidFile, String(p.pid))
  const logFile = join(work, `server-${p.port}.log`)
  const paths = reversePaths(ctx.dataset.dir, 2000, ctx.opts.seed, 'operations')
  const loads: LoadResult[] = []
  let running = true
  const load = (async () => {
    while (running)
      loads.push(
        await runLoad(loadTool(ctx.opts), {
          port: p.port,
          paths,
          headers,
          connections: 50,
          durationS: 2,
          workDir: work,
        }),
      )
  })()
  try {
    await sleep(1000)
    const t0 = performance.now()
    await pullBuild(source, datasets, { build: weeklyDigest, activate: current, pidFile })
    const pullS = seconds(t0)
    const signalled = performance.now()
    for (;;) {
      const { done, refused } = switchedLines(logFile)
      if (refused.length) throw new Error(`switch refused: ${refused[0]}`)
      if (done.length >= workers) break
      if (performance.now() - signalled > 300_000) throw new Error('no switch within 300 s of the pull')
      await sleep(20)
    }
    const hupToServedMs = performance.now() - signalled
    ctx.log(
      `operations: pull --activate in ${fmt(pullS)} s, then every worker served it ${fmt(hupToServedMs, 0)} ms later`,
    )
    await sleep(1000)
    running = false
    await load
    const requests = loads.reduce((s, l) => s + l.requests, 0)
    const failed = loads.reduce((s, l) => s + l.errors + l.non2xx, 0)
    if (failed) ctx.fail(`operations: ${failed} of ${requests} requests failed across pull --activate`)
    return { pullS, hupToServedMs, requests, failed }
  } finally {
    running = false
    await load
    await p.stop()
  }
}

export function renderShip(d: ShipData): string[] {
  const pct = (n: number) => `${fmt((n / d.fullStoredBytes) * 100, 1)} %`
  const row = (what: string, s: ShipStep | null, how: string) =>
    s
      ? `| ${what} | ${fmt(s.s, 2)} s | ${mib(s.bytes)} (${pct(s.bytes)}) | ${s.files}${s.linked !== undefined ? ` (${s.linked} linked)` : ''} | ${how} |`
      : `| ${what} | – | – | – | skipped (no weekly build) |`
  const lines = [
    '### Shipping builds (`dataset publish`, `dataset pull`)',
    '',
    `The bench dataset (full) and the weekly encumbrance build above, published into one target with ` +
      `\`--compress ${d.compression}\` (the full build's objects: ${mib(d.fullStoredBytes)}), served by nginx on ` +
      'loopback, pulled into an empty DATASETS_DIR; every file hashed on both sides.',
    '',
    '| step | time | bytes written / received (of the full build) | files | what it does |',
    '|---|--:|--:|--:|---|',
    row('publish full', d.publishFull, 'hash, compress and write every object'),
    row('publish weekly', d.publishWeekly, 'only the objects the target lacks'),
    row('pull full', d.pullFull, 'fetch, uncompress, verify every file'),
    row('pull weekly', d.pullWeekly, 'link the full build’s files, fetch the changed ones'),
  ]
  if (d.activate)
    lines.push(
      '',
      `\`pull --activate\` of the weekly build onto a running server (2 workers, 50 connections): the pull ` +
        `**${fmt(d.activate.pullS, 2)} s**, then SIGHUP → every worker serving it **${fmt(d.activate.hupToServedMs, 0)} ms** ` +
        `(the primary hashes the build whole once); ${d.activate.requests.toLocaleString('en-US')} requests, ` +
        `**${d.activate.failed} failed**.`,
    )
  return lines
}
