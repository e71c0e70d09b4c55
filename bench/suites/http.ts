/**
 * HTTP throughput of the plot endpoints on loopback: the real server (`node dist/server.js`,
 * WORKERS=1 and 2) against a Hono hello-world floor with the same number of processes, in the
 * same run, interleaved, over several rounds (medians reported; docs/benchmarks.md "Performance floors": this machine
 * is noisy). Each load run gets a fresh key with the store's highest rate, a warm-up, and
 * rotating seeded URLs. Before loading, a few answers are compared with the in-process
 * `createPlotQueries` results. Any error or non-2xx answer fails the run.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDataset } from '../../src/data/open-dataset.js'
import { createPlotQueries } from '../../src/features/plots/queries.js'
import { REVERSE_REACH_M } from '../../src/features/plots/schemas.js'
import { profileEndpoint, profileTable, targetLines } from '../lib/http-targets.js'
import { BenchKeys } from '../lib/keys.js'
import { loadLayers, makeProbes } from '../lib/layers.js'
import { findWrk, runLoad, type LoadResult } from '../lib/load.js'
import type { CpuBreakdown } from '../lib/profile.js'
import { startApiServer, startHello, type RunningProcess } from '../lib/servers.js'
import { fmt, median } from '../lib/stats.js'
import type { Suite, SuiteContext, SuiteRecord } from '../lib/suite.js'
import { barChart } from '../lib/svg.js'
import { RADIUS_LIMIT, RADIUS_M } from './plots.js'

type Endpoint = 'reverse' | 'radius' | 'hello'

interface HttpRun {
  round: number
  target: 'hello' | 'server'
  workers: number
  endpoint: Endpoint
  logLevel: string
  result: LoadResult
}

interface RssSample {
  workers: number
  logLevel: string
  round: number
  processes: { pid: number; rssBytes: number; hwmBytes: number }[]
}

export interface HttpData {
  tool: 'wrk' | 'autocannon'
  rounds: number
  durationS: number
  warmupS: number
  paths: number
  checks: { endpoint: string; probes: number; agreed: number }[]
  runs: HttpRun[]
  rss: RssSample[]
  /** CPU per request by component, one worker, 50 connections, from node --cpu-prof (absent in older records) */
  profiles?: { endpoint: Endpoint; reqPerS: number; breakdown: CpuBreakdown }[]
}

const ENDPOINT_PATH: Record<Exclude<Endpoint, 'hello'>, string> = {
  reverse: '/api/v1/plots/reverse',
  radius: '/api/v1/plots/search-given-coordinates',
}

function buildPaths(ctx: SuiteContext, count: number) {
  const ds = openDataset(ctx.dataset.dir)
  try {
    const layers = loadLayers(ds)
    const probes = makeProbes(layers, count, ctx.opts.seed, 'http')
    const q = createPlotQueries(ds)
    const reverse: string[] = []
    const radius: string[] = []
    const expected: { reverse: number[][]; radius: number[][] } = { reverse: [], radius: [] }
    for (let k = 0; k < count; k++) {
      const lat = probes.lat[k].toFixed(6)
      const lon = probes.lon[k].toFixed(6)
      reverse.push(`${ENDPOINT_PATH.reverse}?latitude=${lat}&longitude=${lon}`)
      radius.push(`${ENDPOINT_PATH.radius}?latitude=${lat}&longitude=${lon}&radius=${RADIUS_M}&limit=${RADIUS_LIMIT}`)
      if (k < 25) {
        expected.reverse.push(
          q
            .reverse(Number(lon), Number(lat), REVERSE_REACH_M, q.countries, {})
            .plots()
            .map((p) => p.id),
        )
        expected.radius.push(
          q
            .radius(Number(lon), Number(lat), RADIUS_M, RADIUS_LIMIT, q.countries, {})
            .plots()
            .map((p) => p.id),
        )
      }
    }
    return { reverse, radius, expected }
  } finally {
    ds.close()
  }
}

async function checkAnswers(
  ctx: SuiteContext,
  port: number,
  key: string,
  paths: string[],
  expected: number[][],
  endpoint: string,
) {
  let agreed = 0
  for (let k = 0; k < expected.length; k++) {
    const res = await fetch(`http://127.0.0.1:${port}${paths[k]}`, { headers: { 'X-API-KEY': key } })
    const body = (await res.json()) as { plots?: { id: number }[] }
    const ids = body.plots?.map((p) => p.id) ?? null
    if (res.status === 200 && ids && ids.length === expected[k].length && ids.every((id, j) => id === expected[k][j]))
      agreed++
    else
      ctx.fail(
        `http: ${endpoint} ${paths[k]} answered ${res.status} with ids ${JSON.stringify(ids)?.slice(0, 200)}, in process ${JSON.stringify(expected[k]).slice(0, 200)}`,
      )
  }
  return { endpoint, probes: expected.length, agreed }
}

export const httpSuite: Suite<HttpData> = {
  name: 'http',
  title: 'Plot endpoints over HTTP',
  summary: 'reverse and search-given-coordinates with 1 and 2 workers vs a Hono hello-world, req/s, p50/p99, errors',

  async run(ctx) {
    const quick = ctx.opts.quick
    const wrk = findWrk()
    const tool = ctx.opts.tool === 'auto' ? (wrk ? 'wrk' : 'autocannon') : ctx.opts.tool
    if (tool === 'wrk' && !wrk) throw new Error('--tool wrk: wrk is not installed (apt-get install wrk)')
    if (ctx.opts.tool === 'auto' && !wrk)
      ctx.log(
        'http: wrk not installed; using autocannon (it shares the 2 cores with the server, so 2-worker numbers ' +
          'understate)',
      )
    const rounds = quick ? 1 : 3
    const durationS = ctx.opts.durationS
    const warmupS = quick ? 0.5 : 2
    const pathCount = quick ? 200 : 2_000
    const work = mkdtempSync(join(tmpdir(), 'landdata-bench-http-'))
    const keys = new BenchKeys(join(work, 'keys.db'))
    const runs: HttpRun[] = []
    const rss: RssSample[] = []
    const checks: HttpData['checks'] = []
    const profiles: NonNullable<HttpData['profiles']> = []
    try {
      const { reverse, radius, expected } = buildPaths(ctx, pathCount)
      const pathsOf = { reverse, radius, hello: reverse }

      const load = async (
        p: RunningProcess,
        endpoint: Endpoint,
        connections: number,
        headers: Record<string, string>,
      ) => {
        const o = { port: p.port, paths: pathsOf[endpoint], headers, connections, workDir: work }
        await runLoad(tool, { ...o, durationS: warmupS })
        return runLoad(tool, { ...o, durationS })
      }
      const record = (run: Omit<HttpRun, 'result'>, result: LoadResult) => {
        runs.push({ ...run, result })
        const label = `${run.target} w${run.workers} ${run.endpoint} c${result.connections}${run.logLevel !== 'info' ? ` log=${run.logLevel}` : ''}`
        ctx.log(
          `http: round ${run.round} ${label}: ${fmt(result.reqPerS)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}`,
        )
        if (result.errors > 0) ctx.fail(`http: ${label} had ${result.errors} errors (${result.non2xx} non-2xx)`)
      }

      const serverConfigs: { workers: number; logLevel: string; oneConn: boolean; endpoints: Endpoint[] }[] = [
        { workers: 1, logLevel: 'info', oneConn: !quick, endpoints: ['reverse', 'radius'] },
        ...(quick ? [] : [{ workers: 1, logLevel: 'warn', oneConn: false, endpoints: ['reverse'] as Endpoint[] }]),
        { workers: 2, logLevel: 'info', oneConn: false, endpoints: ['reverse', 'radius'] },
      ]
      for (let round = 1; round <= rounds; round++) {
        for (const workers of [1, 2]) {
          // the floor first, then the server(s) with the same process count
          const hello = await startHello(workers, work)
          try {
            record(
              { round, target: 'hello', workers, endpoint: 'hello', logLevel: '-' },
              await load(hello, 'hello', 50, {}),
            )
            // the floor's own latency on one connection, next to the endpoints' 1-connection p50
            if (serverConfigs.some((c) => c.workers === workers && c.oneConn))
              record(
                { round, target: 'hello', workers, endpoint: 'hello', logLevel: '-' },
                await load(hello, 'hello', 1, {}),
              )
          } finally {
            await hello.stop()
          }
          for (const cfg of serverConfigs.filter((c) => c.workers === workers)) {
            const server = await startApiServer({
              datasetDir: ctx.dataset.dir,
              keysDb: join(work, 'keys.db'),
              workers,
              logLevel: cfg.logLevel,
              workDir: work,
            })
            try {
              if (round === 1 && cfg.logLevel === 'info') {
                const key = keys.issue()
                checks.push(
                  await checkAnswers(ctx, server.port, key, reverse, expected.reverse, `reverse (w${workers})`),
                )
                checks.push(await checkAnswers(ctx, server.port, key, radius, expected.radius, `radius (w${workers})`))
              }
              for (const endpoint of cfg.endpoints) {
                record(
                  { round, target: 'server', workers, endpoint, logLevel: cfg.logLevel },
                  await load(server, endpoint, 50, { 'X-API-KEY': keys.issue() }),
                )
              }
              if (cfg.oneConn) {
                for (const endpoint of cfg.endpoints) {
                  record(
                    { round, target: 'server', workers, endpoint, logLevel: cfg.logLevel },
                    await load(server, endpoint, 1, { 'X-API-KEY': keys.issue() }),
                  )
                }
              }
              rss.push({ workers, logLevel: cfg.logLevel, round, processes: server.rss() })
            } finally {
              await server.stop()
            }
          }
        }
      }
      // where the CPU goes: one more run per endpoint on a profiled process (1 worker), floor included
      for (const endpoint of ['hello', 'reverse', 'radius'] as Endpoint[]) {
        const p = await profileEndpoint(ctx, {
          endpoint,
          paths: pathsOf[endpoint],
          key: endpoint === 'hello' ? undefined : keys.issue(),
          keysDb: join(work, 'keys.db'),
          tool,
          workDir: work,
          warmupS,
          durationS,
        })
        profiles.push({ ...p, endpoint })
        ctx.log(
          `http: profiled ${endpoint}: ${fmt(p.reqPerS)} req/s, ${fmt((p.breakdown.busyMs * 1000) / p.breakdown.requests, 1)} µs CPU per request`,
        )
      }
    } finally {
      keys.close()
      rmSync(work, { recursive: true, force: true })
    }
    return { tool, rounds, durationS, warmupS, paths: pathCount, checks, runs, rss, profiles }
  },

  render(r: SuiteRecord<HttpData>) {
    const d = r.data
    const rows = aggregate(d)
    const national = r.dataset.scale === 'national'
    const lines = [
      `Load: ${
        d.tool === 'wrk'
          ? 'wrk 4 (1 thread, Lua script rotating the URLs)'
          : 'autocannon (in the bench ' +
            'process; it needs about one core itself, so 2-worker numbers understate the server)'
      }, ` +
        `loopback, ${d.durationS} s per run after a ${d.warmupS} s warm-up, ${d.rounds} round(s) interleaved ` +
        `(hello → server, 1 worker then 2), median req/s reported with the p50/p99 of the median run. ` +
        `${d.paths.toLocaleString('en-US')} seeded URLs per endpoint (80 % near a real plot). Server: \`node ` +
        `dist/server.js\`, access log at the default level (info) to a file unless noted; ` +
        `each run has a fresh key with a 1 000 000/min rate. Floor: Hono hello-world on @hono/node-server with the ` +
        `same number of processes. ` +
        (d.tool === 'autocannon' ? 'autocannon latencies have whole-millisecond resolution.' : ''),
      '',
      `Answer check before loading: ${d.checks.map((c) => `${c.endpoint} ${c.agreed}/${c.probes}`).join(', ')} identical to ` +
        `in-process \`createPlotQueries\`.`,
      '',
      '| endpoint | workers | log | conns | req/s (median) | per round | p50 ms | p99 ms | errors | vs hello (same ' +
        'workers and conns) |',
      '|---|--:|---|--:|--:|---|--:|--:|--:|--:|',
    ]
    for (const row of rows) {
      lines.push(
        `| ${row.endpoint} | ${row.workers} | ${row.logLevel} | ${row.connections} | ${fmt(row.reqPerS)} | ${row.perRound.map((v) => fmt(v)).join(', ')} | ${fmt(row.p50Ms, 3)} | ${fmt(row.p99Ms, 3)} | ${row.errors} | ${row.ratio === null ? '' : `${fmt(row.ratio, 2)}x`} |`,
      )
    }
    const t = targetLines(rows.filter((x) => x.endpoint !== 'hello' && x.logLevel === 'info'))
    lines.push(
      '',
      `Issue 7 targets${national ? '' : ' (they apply at national scale; shown for reference)'}:`,
      '',
      ...t.map((x) => `- ${x}`),
    )
    if (d.profiles?.length) lines.push('', ...profileTable(d.profiles))
    if (d.rss.length) {
      lines.push(
        '',
        'Resident memory after the load runs (per process; the cluster primary holds the rate-limit counters, not ' +
          'the dataset):',
        '',
      )
      const byCfg = new Map<string, RssSample[]>()
      for (const s of d.rss)
        byCfg.set(`${s.workers}/${s.logLevel}`, [...(byCfg.get(`${s.workers}/${s.logLevel}`) ?? []), s])
      for (const [cfg, samples] of byCfg) {
        const last = samples[samples.length - 1]
        const [workers, log] = cfg.split('/')
        lines.push(
          `- WORKERS=${workers} (log ${log}): ${last.processes.map((p) => `pid ${p.pid} RSS ${fmt(p.rssBytes / 2 ** 20)} MiB (peak ${fmt(p.hwmBytes / 2 ** 20)} MiB)`).join('; ')}`,
        )
      }
    }
    return lines.join('\n')
  },

  chart(r: SuiteRecord<HttpData>) {
    const rows = aggregate(r.data).filter((x) => x.connections === 50 && (x.logLevel === 'info' || x.logLevel === '-'))
    const groups = [1, 2].map((w) => ({
      label: `${w} process${w > 1 ? 'es' : ''} (WORKERS=${w})`,
      bars: rows
        .filter((x) => x.workers === w)
        .map((x) => ({
          label:
            x.endpoint === 'hello'
              ? 'Hono hello-world'
              : x.endpoint === 'radius'
                ? 'search-given-coordinates'
                : 'reverse',
          value: x.reqPerS,
          note: x.ratio === null ? '' : `(${fmt(x.ratio, 2)}x)`,
        })),
    }))
    return {
      file: 'results-http.svg',
      svg: barChart({
        title: 'Plot endpoints, req/s on loopback (median of rounds)',
        subtitle: `${r.dataset.scale} dataset, ${r.data.tool}, 50 connections, ${r.machine.cores} cores, Node ${r.machine.node}, ${r.ranAt.slice(0, 10)}`,
        unit: 'req/s',
        groups,
      }),
    }
  },
}

interface AggRow {
  endpoint: Endpoint
  workers: number
  logLevel: string
  connections: number
  reqPerS: number
  perRound: number[]
  p50Ms: number
  p99Ms: number
  errors: number
  /** req/s over the hello-world's with the same processes and connections */
  ratio: number | null
  /** 1-connection rows: the hello-world's p50 on one connection */
  helloP50Ms?: number
}

function aggregate(d: HttpData): AggRow[] {
  const groups = new Map<string, HttpRun[]>()
  for (const run of d.runs) {
    const k = `${run.endpoint}|${run.workers}|${run.logLevel}|${run.result.connections}`
    groups.set(k, [...(groups.get(k) ?? []), run])
  }
  const rows: AggRow[] = []
  for (const runs of groups.values()) {
    const rates = runs.map((x) => x.result.reqPerS)
    const med = median(rates)
    // the run whose rate is closest to the median supplies the latencies
    const mid = runs.reduce((a, b) => (Math.abs(b.result.reqPerS - med) < Math.abs(a.result.reqPerS - med) ? b : a))
    rows.push({
      endpoint: runs[0].endpoint,
      workers: runs[0].workers,
      logLevel: runs[0].logLevel,
      connections: runs[0].result.connections,
      reqPerS: med,
      perRound: rates,
      p50Ms: mid.result.p50Ms,
      p99Ms: mid.result.p99Ms,
      errors: runs.reduce((s, x) => s + x.result.errors, 0),
      ratio: null,
    })
  }
  for (const row of rows) {
    const hello = rows.find(
      (h) => h.endpoint === 'hello' && h.workers === row.workers && h.connections === row.connections,
    )
    if (row.endpoint === 'hello' || !hello) continue
    row.ratio = row.reqPerS / hello.reqPerS
    if (row.connections === 1) row.helloP50Ms = hello.p50Ms
  }
  const order = (x: AggRow) =>
    x.workers * 1000 +
    (x.endpoint === 'hello' ? 0 : x.endpoint === 'reverse' ? 100 : 200) +
    (x.logLevel === 'info' ? 0 : 10) +
    (x.connections === 1 ? 50 : 0)
  return rows.sort((a, b) => order(a) - order(b))
}
