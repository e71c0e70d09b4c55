/**
 * Ours over HTTP next to PostGIS: the HTTP numbers of earlier runs (results.json), and ours over
 * HTTP and PostGIS taking turns on the same probes in this run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Client } from 'pg'
import { BenchKeys } from '../../lib/keys.js'
import { findWrk, runLoad } from '../../lib/load.js'
import { startApiServer } from '../../lib/servers.js'
import { runPgbench, type Cluster } from '../../lib/postgis.js'
import type { EndpointProfile } from '../../lib/http-targets.js'
import { loadResults } from '../../lib/report.js'
import { fmt, median } from '../../lib/stats.js'
import type { SuiteContext, SuiteRecord } from '../../lib/suite.js'
import { RADIUS_LIMIT, RADIUS_M } from '../plots.js'
import { measurePg, PGBENCH_SECONDS, writePgbenchScript } from './measure.js'
import {
  CONNECTIONS,
  HTTP_ENDPOINT,
  type Answer,
  type HttpOp,
  type PostgisData,
  type Probes,
  type SameRunHttp,
  type SameRunOp,
} from './model.js'
import { ask, type PgOp } from './queries.js'

// ---------------------------------------------------------------- HTTP numbers of earlier runs

/**
 * Our 2-worker HTTP req/s next to PostGIS: from this run's http / parcels suites when they ran
 * before this one, else from their last record in results.json, at the same dataset scale only.
 */
export function httpFromResults(ctx: SuiteContext): PostgisData['http'] {
  const out: NonNullable<PostgisData['http']> = []
  try {
    const suites: Record<string, SuiteRecord | undefined> = {}
    try {
      for (const r of Object.values(loadResults(resolve('bench', 'results.json')).suites))
        if (r.dataset.scale === ctx.dataset.scale) suites[r.name] = r
    } catch {
      // no results.json: this run's records only
    }
    for (const r of ctx.earlier) if (r.dataset.scale === ctx.dataset.scale) suites[r.name] = r
    type Run = {
      /** the http suite from issue #37 on (format 2): the load's name, every run 2 workers at 50 connections */
      load?: string
      target: string
      workers: number
      endpoint?: string
      logLevel?: string
      result: { reqPerS: number; connections?: number }
    }
    const cpuOf = (profiles: EndpointProfile[] | undefined, endpoint: string) => {
      const b = profiles?.find((p) => p.endpoint === endpoint)?.breakdown
      if (!b?.requests) return undefined
      const answerUs = b.rows
        .filter((r) => /^(service code|answer serialisation)/.test(r.component))
        .reduce((sum, r) => sum + r.usPerRequest, 0)
      return { totalUs: (b.busyMs * 1000) / b.requests, answerUs }
    }
    const http = suites.http
    if (http) {
      const data = http.data as { format?: number; runs?: Run[]; profiles?: EndpointProfile[] }
      const current = data.format === 2
      const runs = (data.runs ?? []).filter(
        (r) =>
          current ||
          (r.target === 'server' &&
            r.workers === 2 &&
            (r.logLevel ?? 'info') === 'info' &&
            (r.result.connections ?? 50) === 50),
      )
      // the loads' names: the suite's before issue #37, and from it on
      for (const [op, endpoint] of [
        ['nearest', current ? '/plots/reverse' : 'reverse'],
        ['radius', current ? 'radius 500 m, limit 100' : 'radius'],
      ] as const) {
        const v = runs.filter((r) => (current ? r.load : r.endpoint) === endpoint).map((r) => r.result.reqPerS)
        if (v.length)
          out.push({
            op,
            endpoint: HTTP_ENDPOINT[op],
            reqPerS: median(v),
            ranAt: http.ranAt,
            cpu: cpuOf(data.profiles, endpoint),
          })
      }
    }
    const parcels = suites.parcels
    const ph = (parcels?.data as { http?: { runs?: Run[]; profiles?: EndpointProfile[] } | null } | undefined)?.http
    const v = (ph?.runs ?? [])
      .filter((r) => r.target === 'server' && r.workers === 2 && (r.result.connections ?? 50) === 50)
      .map((r) => r.result.reqPerS)
    if (parcels && v.length)
      out.push({
        op: 'at',
        endpoint: HTTP_ENDPOINT.at,
        reqPerS: median(v),
        ranAt: parcels.ranAt,
        cpu: cpuOf(ph?.profiles, HTTP_ENDPOINT.at),
      })
  } catch {
    // no results.json, or one of another shape: in-process numbers only
  }
  return out
}

// ---------------------------------------------------------------- ours over HTTP, taking turns with PostGIS

/**
 * The GET path of `op` at (lon, lat). Coordinates are written as JavaScript prints them, the
 * shortest text that parses back to the same double, so the server answers the very probe
 * PostGIS was asked (the API reads exponents too).
 */
export function httpPath(op: HttpOp, lon: number, lat: number): string {
  const base = `/api/v1${HTTP_ENDPOINT[op]}?latitude=${lat}&longitude=${lon}`
  return op === 'radius' ? `${base}&radius=${RADIUS_M}&limit=${RADIUS_LIMIT}` : base
}

/**
 * The probes an op is loaded with over HTTP: every probe for the plot endpoints (an empty answer
 * is a 200), only those with a parcel for `/parcels/at` (no parcel is a 404 that also looks for
 * the nearest one, which PostGIS's statement does not; wrk would count it as an error).
 */
export function httpProbeIndices(op: HttpOp, answers: Answer[]): number[] {
  const out: number[] = []
  for (let k = 0; k < answers.length; k++) if (op !== 'at' || answers[k].ids.length > 0) out.push(k)
  return out
}
const SAME_RUN = { workers: 2, connections: 50, checked: 25 }

/** Median over the turns: ours req/s, PostGIS q/s, and their ratio. */
export function sameRunRatio(o: SameRunOp): { ours: number; pg: number; ratio: number } {
  const ours = median(o.turns.map((t) => t.oursReqPerS))
  const pg = median(o.turns.map((t) => t.pgQps))
  return { ours, pg, ratio: ours / pg }
}

/**
 * Issue 7's throughput target as it reads: ours over HTTP with 2 workers against PostGIS with 8
 * connections and no HTTP, on the same probes, in the same run. Our server (2 workers, loaded by
 * wrk with 50 connections) and PostGIS (pgbench with 8 connections, or the `pg` clients) take
 * turns per op and round, so both meet the same minute of the VM; the other side is idle
 * meanwhile. Before the turns, the first answers over HTTP are compared with ours in process,
 * which agreed with PostGIS's.
 */
export async function sameRunHttp(
  ctx: SuiteContext,
  cluster: Cluster,
  pgbench: string | null,
  clients: Client[],
  ops: { o: PgOp; answers: Answer[] }[],
): Promise<SameRunHttp | { skipped: string }> {
  const quick = ctx.opts.quick
  const wrk = findWrk()
  const tool = ctx.opts.tool === 'auto' ? (wrk ? 'wrk' : 'autocannon') : ctx.opts.tool
  if (tool === 'wrk' && !wrk) return { skipped: '--tool wrk: wrk is not installed (apt-get install wrk)' }
  const loaded = ops.flatMap(({ o, answers }) => {
    if (!(o.op in HTTP_ENDPOINT)) return []
    const op = o.op as HttpOp
    const idx = httpProbeIndices(op, answers)
    if (!idx.length) return []
    const p = o.probes as Probes
    const sub: PgOp = { ...o, probes: { length: idx.length }, values: (k) => o.values(idx[k]) }
    return [
      { op, sub, paths: idx.map((k) => httpPath(op, p.lon[k], p.lat[k])), expected: idx.map((k) => answers[k].ids) },
    ]
  })
  if (!loaded.length) return { skipped: 'no probe answers over HTTP with a 200' }
  const pgSeconds = quick ? PGBENCH_SECONDS.quick : PGBENCH_SECONDS.full
  const durationS = ctx.opts.durationS
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-postgis-http-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const result: SameRunHttp = {
    tool,
    workers: SAME_RUN.workers,
    connections: SAME_RUN.connections,
    durationS,
    pgClient: pgbench ? 'pgbench' : 'pg',
    pgConnections: CONNECTIONS,
    pgSeconds,
    ops: [],
  }
  try {
    const key = keys.issue(['plots', 'parcels'])
    const scripts = new Map<HttpOp, string>()
    if (pgbench) {
      for (const { op, sub } of loaded) {
        const script = writePgbenchScript(cluster, `pgbench-http-${op}.sql`, sub)
        if (typeof script !== 'string') return { skipped: `pgbench on ${op}: ${script.error}` }
        scripts.set(op, script)
      }
    }
    const pgTurn = async (op: HttpOp, sub: PgOp): Promise<number> => {
      const script = scripts.get(op)
      if (!script || !pgbench) return (await measurePg(clients, sub.probes, (c, k) => ask(c, sub, k))).qps
      const r = runPgbench(pgbench, cluster, script, {
        clients: CONNECTIONS,
        threads: 1,
        seconds: pgSeconds,
        seed: ctx.opts.seed,
        logDir: cluster.dir,
      })
      if ('error' in r) throw new PgbenchFailed(`pgbench on ${op}: ${r.error}`)
      return r.qps
    }
    const server = await startApiServer({
      datasetDir: ctx.dataset.dir,
      keysDb: join(work, 'keys.db'),
      workers: SAME_RUN.workers,
      workDir: work,
    })
    try {
      for (const { op, paths, expected } of loaded) {
        const checked = Math.min(SAME_RUN.checked, paths.length)
        let agreed = 0
        for (let k = 0; k < checked; k++) {
          const res = await fetch(`http://127.0.0.1:${server.port}${paths[k]}`, { headers: { 'X-API-KEY': key } })
          const body = (await res.json()) as { plots?: { id: number }[]; parcels?: { id: number }[] }
          const ids = (op === 'at' ? body.parcels : body.plots)?.map((x) => x.id) ?? null
          const want = op === 'at' ? [...expected[k]].sort((a, b) => a - b) : expected[k]
          const got = op === 'at' && ids ? [...ids].sort((a, b) => a - b) : ids
          if (res.status === 200 && got && got.length === want.length && got.every((v, j) => v === want[j])) agreed++
          else
            ctx.fail(
              `postgis http: ${paths[k]} answered ${res.status} with ids ${JSON.stringify(ids)?.slice(0, 200)}, in process ${JSON.stringify(want).slice(0, 200)}`,
            )
        }
        result.ops.push({ op, endpoint: HTTP_ENDPOINT[op], probes: paths.length, checked, agreed, turns: [] })
      }
      const rounds = quick ? 1 : 3
      for (let round = 1; round <= rounds; round++) {
        for (const [i, { op, sub, paths }] of loaded.entries()) {
          const pgQps = await pgTurn(op, sub)
          const o = {
            port: server.port,
            paths,
            headers: { 'X-API-KEY': key },
            connections: SAME_RUN.connections,
            workDir: work,
          }
          if (round === 1) await runLoad(tool, { ...o, durationS: quick ? 1 : 2 })
          const r = await runLoad(tool, { ...o, durationS })
          if (r.errors > 0) ctx.fail(`postgis http: ${HTTP_ENDPOINT[op]} had ${r.errors} errors (${r.non2xx} non-2xx)`)
          result.ops[i].turns.push({
            oursReqPerS: r.reqPerS,
            oursP50Ms: r.p50Ms,
            oursP99Ms: r.p99Ms,
            oursErrors: r.errors,
            pgQps,
          })
          ctx.log(
            `postgis http: round ${round} ${HTTP_ENDPOINT[op]}: ours ${fmt(r.reqPerS)} req/s (p99 ${fmt(r.p99Ms, 2)} ms, errors ${r.errors}), PostGIS ${fmt(pgQps)} q/s (${result.pgClient})`,
          )
        }
      }
    } catch (err) {
      // pgbench worked for the per-query passes but not here: say so rather than lose the suite
      if (err instanceof PgbenchFailed) return { skipped: err.message }
      throw err
    } finally {
      await server.stop()
    }
    return result
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

class PgbenchFailed extends Error {}
