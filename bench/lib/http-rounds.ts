/**
 * One service endpoint over HTTP next to the Hono hello-world floor of the same run: in each
 * round, with 1 then 2 workers, the hello-world server and then the API server are started,
 * warmed up and loaded over the same seeded path list (wrk or autocannon, 50 connections,
 * loopback), and the 1-worker server once more on a single connection (latency without
 * queueing). Before the first API load, the first answers are compared with the in-process ones.
 * Every error (socket, timeout, non-2xx) fails the run, so the path list holds only requests
 * that answer 200. After the rounds, the floor and the endpoint are loaded once more on profiled
 * processes: where the CPU goes.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Product } from '../../src/auth/types.js'
import { profileEndpoint, profileTable, targetLines, type EndpointProfile, type TargetRow } from './http-targets.js'
import { BenchKeys } from './keys.js'
import { findWrk, runLoad, type LoadResult } from './load.js'
import { startApiServer, startHello } from './servers.js'
import { fmt, median } from './stats.js'
import type { SuiteContext } from './suite.js'

const CONNECTIONS = 50
const WORKERS = [1, 2]
/** How many of the paths are fetched once and compared with the in-process answer. */
const CHECKED = 25

export interface HttpRoundRow {
  target: 'hello' | 'server'
  workers: number
  round: number
  result: LoadResult
}

/** What a suite stores of its HTTP rounds (results.json). */
export interface HttpRoundsData {
  tool: 'wrk' | 'autocannon'
  durationS: number
  paths: number
  check: { probes: number; agreed: number }
  /**
   * 50-connection runs, and (from 2026-11-25) 1-connection runs of the 1-worker server (and, from 2026-11-25's second
   * session, of the 1-worker hello-world)
   */
  runs: HttpRoundRow[]
  /** CPU per request by component: the floor, then the endpoint (absent in older records) */
  profiles?: EndpointProfile[]
}

/** What differs between the suites that load one endpoint. `B`: the JSON body of its answer. */
export interface HttpRoundsSpec<B> {
  /** the suite: log lines and failures start `<name> http:`, the work directory `landdata-bench-<name>-` */
  name: string
  /** the endpoint as failures name it, e.g. `/parcels/at` */
  endpoint: string
  /** the product the requests' API key is issued for */
  product: Product
  /**
   * Draws `count` probes and keeps the requests that answer 200: their paths and, for each, the
   * in-process answer in the form {@link answer} gives.
   */
  requests(count: number): { paths: string[]; expected: string[] }
  /** The live answer reduced to the form of `expected` (compared as strings, with a 200 status). */
  answer(body: B): string
  /** How a mismatching answer (live or in-process) is quoted in the failure; default whole. */
  quote?(answer: string): string
}

/** Runs the rounds (3, or 1 with `--quick`) and returns every load run's result. */
export async function runHttpRounds<B>(ctx: SuiteContext, spec: HttpRoundsSpec<B>): Promise<HttpRoundsData> {
  const label = `${spec.name} http`
  const quote = spec.quote ?? ((s: string) => s)
  const quick = ctx.opts.quick
  const wrk = findWrk()
  const tool = ctx.opts.tool === 'auto' ? (wrk ? 'wrk' : 'autocannon') : ctx.opts.tool
  if (tool === 'wrk' && !wrk) throw new Error('--tool wrk: wrk is not installed (apt-get install wrk)')
  const { paths, expected } = spec.requests(quick ? 200 : 2_000)
  const work = mkdtempSync(join(tmpdir(), `landdata-bench-${spec.name}-`))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const runs: HttpRoundRow[] = []
  let agreed = 0
  const checked = Math.min(CHECKED, paths.length)
  try {
    const warmupS = quick ? 0.5 : 2
    const durationS = ctx.opts.durationS
    const rounds = quick ? 1 : 3
    for (let round = 1; round <= rounds; round++) {
      for (const workers of WORKERS) {
        const hello = await startHello(workers, work)
        try {
          const o = { port: hello.port, paths, headers: {}, connections: CONNECTIONS, workDir: work }
          await runLoad(tool, { ...o, durationS: warmupS })
          runs.push({ target: 'hello', workers, round, result: await runLoad(tool, { ...o, durationS }) })
          if (workers === 1 && !quick) {
            // the floor's own latency on one connection, next to the endpoint's 1-connection p50
            const one = { ...o, connections: 1 }
            await runLoad(tool, { ...one, durationS: warmupS })
            runs.push({ target: 'hello', workers, round, result: await runLoad(tool, { ...one, durationS }) })
          }
        } finally {
          await hello.stop()
        }
        const server = await startApiServer({
          datasetDir: ctx.dataset.dir,
          keysDb: join(work, 'keys.db'),
          workers,
          workDir: work,
        })
        try {
          const key = keys.issue([spec.product])
          if (round === 1 && workers === 1) {
            for (let k = 0; k < checked; k++) {
              const res = await fetch(`http://127.0.0.1:${server.port}${paths[k]}`, { headers: { 'X-API-KEY': key } })
              const got = spec.answer((await res.json()) as B)
              if (res.status === 200 && got === expected[k]) agreed++
              else
                ctx.fail(`${label}: ${paths[k]} answered ${res.status} ${quote(got)}, in process ${quote(expected[k])}`)
            }
          }
          const o = { port: server.port, paths, headers: { 'X-API-KEY': key }, connections: CONNECTIONS, workDir: work }
          await runLoad(tool, { ...o, durationS: warmupS })
          const result = await runLoad(tool, { ...o, durationS })
          runs.push({ target: 'server', workers, round, result })
          const floor = runs.find(
            (x) =>
              x.target === 'hello' &&
              x.workers === workers &&
              x.round === round &&
              (x.result.connections ?? CONNECTIONS) === CONNECTIONS,
          )!
          ctx.log(
            `${label}: round ${round} w${workers}: ${fmt(result.reqPerS)} req/s (hello ${fmt(floor.result.reqPerS)}), p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}`,
          )
          if (result.errors > 0)
            ctx.fail(`${label}: ${spec.endpoint} w${workers} had ${result.errors} errors (${result.non2xx} non-2xx)`)
          if (workers === 1 && !quick) {
            const one = { ...o, connections: 1 }
            await runLoad(tool, { ...one, durationS: warmupS })
            const single = await runLoad(tool, { ...one, durationS })
            runs.push({ target: 'server', workers, round, result: single })
            ctx.log(
              `${label}: round ${round} w1 1 connection: p50 ${fmt(single.p50Ms * 1000)} µs, p99 ${fmt(single.p99Ms, 2)} ms, errors ${single.errors}`,
            )
            if (single.errors > 0)
              ctx.fail(
                `${label}: ${spec.endpoint} on 1 connection had ${single.errors} errors (${single.non2xx} non-2xx)`,
              )
          }
        } finally {
          await server.stop()
        }
      }
    }
    const profiles: EndpointProfile[] = []
    for (const endpoint of ['hello', spec.endpoint]) {
      const p = await profileEndpoint(ctx, {
        endpoint,
        paths,
        key: endpoint === 'hello' ? undefined : keys.issue([spec.product]),
        keysDb: join(work, 'keys.db'),
        tool,
        workDir: work,
        warmupS,
        durationS,
      })
      profiles.push(p)
      ctx.log(
        `${label}: profiled ${endpoint}: ${fmt(p.reqPerS)} req/s, ${fmt((p.breakdown.busyMs * 1000) / p.breakdown.requests, 1)} µs CPU per request`,
      )
    }
    return { tool, durationS, paths: paths.length, check: { probes: checked, agreed }, runs, profiles }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

/** How a suite's section names what it loaded. */
export interface HttpRoundsWording {
  /** the endpoint, e.g. `/parcels/at` */
  endpoint: string
  /** what the paths are, e.g. `seeded points that each lie in a published parcel` */
  points: string
  /** what the answer check compared, e.g. ``identical to in-process `createParcelQueries` `` */
  agreement: string
  /** whether issue 7's HTTP targets apply (point in polygon, radius, reverse) */
  targets: boolean
  /** the dataset's scale: the targets are set for `national` */
  scale: string
}

/**
 * The Markdown of a run: a paragraph on how it was loaded, then a table: per worker count, the
 * median req/s of the hello-world floor and of the endpoint over the rounds, each round's, their
 * ratio, and the latency of the round nearest the median.
 */
export function httpRoundsSection(h: HttpRoundsData, w: HttpRoundsWording): string[] {
  const lines = [
    `Over HTTP: \`GET ${w.endpoint}\` on ${h.paths.toLocaleString('en-US')} ${w.points} (every answer a 200), ${h.tool}, ${CONNECTIONS} connections (and 1, ` +
      `on one worker), loopback, ${h.durationS} s per run after a ` +
      `warm-up; ` +
      `hello-world floor with the same number of processes in the same round; median of rounds. Answer check: ${h.check.agreed}/${h.check.probes} ${w.agreement}.`,
    '',
    `| workers | conns | hello req/s | hello p50 ms | ${w.endpoint} req/s | per round | vs hello | p50 ms | p99 ms ` +
      `| errors |`,
    '|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|',
  ]
  const targetRows: TargetRow[] = []
  const conns = (x: HttpRoundRow) => x.result.connections ?? CONNECTIONS
  /** the run nearest the median req/s, and that median */
  const middle = (runs: HttpRoundRow[]) => {
    const m = median(runs.map((x) => x.result.reqPerS))
    return { m, mid: runs.reduce((a, b) => (Math.abs(b.result.reqPerS - m) < Math.abs(a.result.reqPerS - m) ? b : a)) }
  }
  for (const workers of WORKERS) {
    for (const connections of [CONNECTIONS, 1]) {
      const server = h.runs.filter((x) => x.target === 'server' && x.workers === workers && conns(x) === connections)
      if (!server.length) continue
      // records before 2026-11-25's second session have no 1-connection floor
      const hello = h.runs.filter((x) => x.target === 'hello' && x.workers === workers && conns(x) === connections)
      const floor = hello.length ? middle(hello) : null
      const { m: sm, mid } = middle(server)
      const ratio = floor ? sm / floor.m : null
      targetRows.push({
        endpoint: w.endpoint,
        workers,
        connections,
        ratio,
        p50Ms: mid.result.p50Ms,
        p99Ms: mid.result.p99Ms,
        ...(floor ? { helloP50Ms: floor.mid.result.p50Ms } : {}),
      })
      lines.push(
        `| ${workers} | ${connections} | ${floor ? fmt(floor.m) : ''} | ${floor ? fmt(floor.mid.result.p50Ms, 3) : ''} | ${fmt(sm)} | ${server.map((x) => fmt(x.result.reqPerS)).join(', ')} | ${ratio === null ? '' : `${fmt(ratio, 2)}x`} | ${fmt(mid.result.p50Ms, 3)} | ${fmt(mid.result.p99Ms, 3)} | ${server.reduce((s, x) => s + x.result.errors, 0)} |`,
      )
    }
  }
  if (w.targets) {
    lines.push(
      '',
      `Issue 7 targets${w.scale === 'national' ? '' : ' (they apply at national scale; shown for reference)'}:`,
      '',
      ...targetLines(targetRows).map((x) => `- ${x}`),
    )
  }
  if (h.profiles?.length) lines.push('', ...profileTable(h.profiles))
  return lines
}
