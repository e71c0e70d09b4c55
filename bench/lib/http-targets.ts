/**
 * What every HTTP section reports beyond req/s: issue 7's targets for the endpoints they apply
 * to (point in polygon, radius and reverse), each met or missed by how much, and "what limits
 * it": one more load run per endpoint on a process started with `node --cpu-prof`, summed by
 * component (bench/lib/profile.ts) next to the hello-world floor's own profile.
 *
 * @module
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { runLoad } from './load.js'
import { summariseCpuProfile, type CpuBreakdown } from './profile.js'
import { startApiServer, startHello } from './servers.js'
import { fmt } from './stats.js'
import type { SuiteContext } from './suite.js'

/**
 * Issue 7 targets (national scale): ratio to the same-run hello-world with 2 workers, p99 at 50 connections, p50 on one
 * connection.
 */
export const TARGET_RATIO_2W = 0.6
export const TARGET_P99_MS = 6
export const TARGET_1CONN_P50_MS = 0.1

/** One aggregated load row as the target check reads it. */
export interface TargetRow {
  /** how the line names the endpoint, e.g. `reverse` or `/parcels/at` */
  endpoint: string
  workers: number
  connections: number
  /** req/s relative to the hello-world with the same process count and connections (null when not measured) */
  ratio: number | null
  p50Ms: number
  p99Ms: number
  /** the same-run hello-world's p50 with the same connections and processes, when measured */
  helloP50Ms?: number
}

/** One line per target a row can be held to: met, or missed by how much. */
export function targetLines(rows: TargetRow[]): string[] {
  const t: string[] = []
  for (const row of rows) {
    if (row.workers === 2 && row.connections === 50 && row.ratio !== null) {
      t.push(
        `${row.endpoint}, 2 workers: ${fmt(row.ratio, 2)}x hello (target ≥ ${TARGET_RATIO_2W}x) → ${row.ratio >= TARGET_RATIO_2W ? 'met' : `missed by ${fmt(TARGET_RATIO_2W - row.ratio, 2)}x`}`,
      )
    }
    if (row.connections === 50)
      t.push(
        `${row.endpoint}, ${row.workers} worker(s): p99 ${fmt(row.p99Ms, 2)} ms (target ≤ ${TARGET_P99_MS} ms) → ${row.p99Ms <= TARGET_P99_MS ? 'met' : `missed by ${fmt(row.p99Ms - TARGET_P99_MS, 2)} ms`}`,
      )
    if (row.connections === 1)
      t.push(
        `${row.endpoint}, 1 connection: p50 ${fmt(row.p50Ms * 1000)} µs (target ≤ ${TARGET_1CONN_P50_MS * 1000} µs) → ${row.p50Ms <= TARGET_1CONN_P50_MS ? 'met' : `missed by ${fmt((row.p50Ms - TARGET_1CONN_P50_MS) * 1000)} µs`}` +
          (row.helloP50Ms === undefined
            ? ''
            : `; the hello-world on 1 connection: p50 ${fmt(row.helloP50Ms * 1000)} µs`),
      )
  }
  return t
}

/** A profiled load run: the process, its req/s, and its CPU per request by component. */
export interface EndpointProfile {
  /** the column's name: `hello` for the floor, else the endpoint */
  endpoint: string
  reqPerS: number
  breakdown: CpuBreakdown
}

export interface ProfileRunOptions {
  /** `hello` profiles the floor (no key); anything else the API server, with `key` */
  endpoint: string
  paths: string[]
  key?: string
  keysDb: string
  tool: 'wrk' | 'autocannon'
  workDir: string
  warmupS: number
  durationS: number
  /** further server environment, e.g. `{ METRICS_PORT: '127.0.0.1:9464' }` (not for the floor) */
  env?: Record<string, string>
  /** called with the directory of the written `.cpuprofile`, before it is summed (and removed with workDir) */
  onProfile?: (dir: string) => void
}

/** One worker, 50 connections, warm-up then the timed run, on a process writing a CPU profile at exit. */
export async function profileEndpoint(ctx: SuiteContext, o: ProfileRunOptions): Promise<EndpointProfile> {
  const dir = join(o.workDir, `profile-${o.endpoint.replace(/[^A-Za-z0-9]+/g, '_')}`)
  mkdirSync(dir)
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`]
  const hello = o.endpoint === 'hello'
  const p = hello
    ? await startHello(1, o.workDir, nodeArgs)
    : await startApiServer({
        datasetDir: ctx.dataset.dir,
        keysDb: o.keysDb,
        workers: 1,
        workDir: o.workDir,
        nodeArgs,
        env: o.env,
      })
  const load = {
    port: p.port,
    paths: o.paths,
    headers: (o.key ? { 'X-API-KEY': o.key } : {}) as Record<string, string>,
    connections: 50,
    workDir: o.workDir,
  }
  let requests = 0
  let reqPerS = 0
  try {
    requests += (await runLoad(o.tool, { ...load, durationS: o.warmupS })).requests
    const main = await runLoad(o.tool, { ...load, durationS: o.durationS })
    requests += main.requests
    reqPerS = main.reqPerS
  } finally {
    // the profile is written when the process exits
    await p.stop()
  }
  o.onProfile?.(dir)
  return { endpoint: o.endpoint, reqPerS, breakdown: summariseCpuProfile(dir, requests) }
}

/** The "what limits it" table: CPU per request by component, the floor next to the endpoints, largest rows first. */
export function profileTable(profiles: EndpointProfile[]): string[] {
  const names = [...new Set(profiles.flatMap((p) => p.breakdown.rows.map((r) => r.component)))]
  const usOf = (p: EndpointProfile, name: string) =>
    p.breakdown.rows.find((r) => r.component === name)?.usPerRequest ?? 0
  const total = (p: EndpointProfile) => p.breakdown.rows.reduce((s, r) => s + r.usPerRequest, 0)
  const api = profiles.filter((p) => p.endpoint !== 'hello')
  names.sort((a, b) => api.reduce((s, p) => s + usOf(p, b), 0) - api.reduce((s, p) => s + usOf(p, a), 0))
  const label = (e: string) => (e === 'hello' ? 'hello-world' : e)
  return [
    'What limits it: CPU per request by component, from `node --cpu-prof` on one more run per endpoint (1 worker, ' +
      '50 connections; start-up and idle time left out; each sample goes to the innermost frame a component ' +
      'claims). ' +
      'The floor spends nearly all of its time in the same socket writes and HTTP plumbing, so the ratio to it is ' +
      'set by the rows below that the floor does not have.',
    '',
    `| component | ${profiles.map((p) => `${label(p.endpoint)} µs`).join(' | ')} |`,
    `|---|${profiles.map(() => '--:').join('|')}|`,
    ...names.map((n) => `| ${n} | ${profiles.map((p) => fmt(usOf(p, n), 1)).join(' | ')} |`),
    `| **total CPU per request** | ${profiles.map((p) => `**${fmt(total(p), 1)}**`).join(' | ')} |`,
    `| req/s in the profiled run | ${profiles.map((p) => fmt(p.reqPerS)).join(' | ')} |`,
  ]
}
