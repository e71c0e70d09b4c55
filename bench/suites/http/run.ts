/**
 * The http suite's runs. First a check server: every URL set's first {@link CHECKED} paths are
 * fetched once (status, and the in-process answer where the set has one), and the answer of
 * median size among the radius and among the box paths is kept, bytes and `Content-Type`, for
 * the same-bytes floor. Then, per round: the hello-world floor, the same-bytes floor (radius
 * paths, then box paths), then the API server with every endpoint; all with 2 workers, 50
 * connections, a warm-up before each timed run. The API server runs with every feature on: a
 * fresh key per run (the store's highest rate), the access log at info to a file, METRICS_PORT
 * set (its scrape is checked to count the requests), ETags as by default. Last, one profiled
 * 1-worker run each of the floor and the point lookups: the component table, and the collapsed
 * stacks and flame graph under bench/profiles/.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Product } from '../../../src/auth/types.js'
import { foldCpuProfile } from '../../lib/folded.js'
import { flameGraphSvg } from '../../lib/flamegraph.js'
import type { FixedAnswer } from '../../lib/hello.js'
import { type EndpointProfile, profileEndpoint } from '../../lib/http-targets.js'
import { BenchKeys } from '../../lib/keys.js'
import { type LoadResult, loadTool, runLoad } from '../../lib/load.js'
import { readCpuProfile } from '../../lib/profile.js'
import {
  freePort,
  type RssSample,
  type RunningProcess,
  startApiServerWithMetrics,
  startHello,
} from '../../lib/servers.js'
import { fmt } from '../../lib/stats.js'
import type { SuiteContext } from '../../lib/suite.js'
import { buildUrlSets, CHECKED, type Endpoint, type UrlSet } from './urls.js'

export const WORKERS = 2
export const CONNECTIONS = 50
/** Stacks kept in a committed `.folded` file. */
export const FOLDED_TOP = 300
/** The endpoints profiled, after the hello-world floor. */
export const PROFILED: Endpoint[] = ['/plots/reverse', '/parcels/at', '/jurisdiction/at']
/** The endpoints with a same-bytes floor, and the path prefix the floor answers them on. */
export const SAME_BYTES: Partial<Record<Endpoint, string>> = {
  'radius 500 m, limit 100': '/api/v1/plots/',
  'box (/parcels/within)': '/api/v1/parcels/within',
}
/** A key for every product: every service answers. */
export const PRODUCTS: Product[] = ['plots', 'parcels', 'encumbrance', 'jurisdiction']

/** A load: a floor (`hello`, `same bytes: <endpoint>`) or an endpoint. */
export type Load = 'hello' | `same bytes: ${Endpoint}` | Endpoint

export interface HttpData {
  /** 2 from issue #37's suite on; records without it are the plot-only suite before it */
  format: 2
  tool: 'wrk' | 'autocannon'
  rounds: number
  durationS: number
  warmupS: number
  workers: number
  connections: number
  sets: { endpoint: Endpoint; paths: number; checked: number; agreed: number; compared: boolean; medianBytes: number }[]
  /** the same-bytes floor's answers: the endpoint's request whose answer it repeats */
  floors: { endpoint: Endpoint; path: string; bytes: number; contentType: string }[]
  /** requests the API server's metrics counted in round 1 (null: not scraped) */
  metricsCounted: number | null
  runs: { round: number; load: Load; result: LoadResult }[]
  rss: { round: number; processes: RssSample[] }[]
  profiles: EndpointProfile[]
  /** the collapsed stacks of each profile: samples in all and kept, and the files written (when written) */
  flames: { endpoint: string; samples: number; kept: number; files: string[] }[]
  notes: string[]
}

/** The file name of an endpoint's profile: `plots-reverse`, `hello`. */
export const profileSlug = (endpoint: string) =>
  endpoint
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()

/** The requests `/metrics` counted: the sum of the request-duration histogram's `_count` lines. */
export function countedRequests(metricsText: string): number {
  let n = 0
  for (const line of metricsText.split('\n'))
    if (line.startsWith('landdata_http_request_duration_seconds_count')) n += Number(line.split(' ').at(-1)) || 0
  return n
}

/** The index of the median of `sizes` (the lower middle one of an even count). */
export function medianIndex(sizes: number[]): number {
  const order = sizes.map((s, i) => [s, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  return order[Math.floor((order.length - 1) / 2)][1]
}

interface Fetched {
  status: number
  /** the body, decoded */
  bytes: Uint8Array
  /** its size on the wire (Content-Length; a stored tile is sent gzip-compressed) */
  wireBytes: number
  contentType: string
}

async function get(port: number, path: string, headers: Record<string, string>): Promise<Fetched> {
  // identity unless the set asks otherwise: node's fetch would ask gzip and decode it
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'Accept-Encoding': 'identity', ...headers } })
  const bytes = new Uint8Array(await res.arrayBuffer())
  return {
    status: res.status,
    bytes,
    wireBytes: Number(res.headers.get('content-length') ?? bytes.length),
    contentType: res.headers.get('content-type') ?? '',
  }
}

/** The check run: every set's first paths, and the same-bytes floor's answers. */
async function check(ctx: SuiteContext, port: number, key: string, sets: UrlSet[]) {
  const checks: HttpData['sets'] = []
  const floors: HttpData['floors'] = []
  const answers: FixedAnswer[] = []
  for (const set of sets) {
    const headers = { 'X-API-KEY': key, ...set.headers }
    const n = Math.min(CHECKED, set.paths.length)
    const sizes: number[] = []
    let agreed = 0
    for (let k = 0; k < n; k++) {
      const r = await get(port, set.paths[k], headers)
      sizes.push(r.wireBytes)
      let ok = set.statuses.includes(r.status)
      let got = ''
      if (ok && set.expected && set.answer) {
        got = set.answer(JSON.parse(Buffer.from(r.bytes).toString('utf8')))
        ok = got === set.expected[k]
      }
      if (ok) agreed++
      else
        ctx.fail(
          `http: ${set.endpoint} ${set.paths[k]} answered ${r.status} ${(got || Buffer.from(r.bytes.subarray(0, 200)).toString()).slice(0, 200)}` +
            (set.expected ? `, in process ${set.expected[k]?.slice(0, 200)}` : ''),
        )
    }
    const mid = medianIndex(sizes)
    checks.push({
      endpoint: set.endpoint,
      paths: set.paths.length,
      checked: n,
      agreed,
      compared: !!set.expected,
      medianBytes: sizes[mid],
    })
    const prefix = SAME_BYTES[set.endpoint]
    if (prefix) {
      const r = await get(port, set.paths[mid], headers)
      floors.push({ endpoint: set.endpoint, path: set.paths[mid], bytes: r.bytes.length, contentType: r.contentType })
      answers.push({ prefix, contentType: r.contentType, body: Buffer.from(r.bytes).toString('base64') })
    }
  }
  return { checks, floors, answers }
}

export async function runHttpSuite(ctx: SuiteContext): Promise<HttpData> {
  const quick = ctx.opts.quick
  const tool = loadTool(ctx.opts)
  if (ctx.opts.tool === 'auto' && tool !== 'wrk')
    ctx.log('http: wrk not installed; using autocannon (it shares the 2 cores with the server: 2 workers understate)')
  const rounds = quick ? 1 : 3
  const durationS = ctx.opts.durationS
  const warmupS = quick ? 0.5 : 2
  const { sets, notes } = buildUrlSets(ctx.dataset.dir, quick ? 200 : 2_000, ctx.opts.seed)
  for (const n of notes) ctx.log(`http: ${n}`)
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-http-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const runs: HttpData['runs'] = []
  const rss: HttpData['rss'] = []
  const api = () =>
    startApiServerWithMetrics({ datasetDir: ctx.dataset.dir, keysDb: keys.path, workers: WORKERS, workDir: work })
  const load = async (
    p: RunningProcess,
    round: number,
    what: Load,
    paths: string[],
    headers: Record<string, string>,
  ) => {
    const o = { port: p.port, paths, headers, connections: CONNECTIONS, workDir: work }
    await runLoad(tool, { ...o, durationS: warmupS })
    const result = await runLoad(tool, { ...o, durationS })
    runs.push({ round, load: what, result })
    ctx.log(
      `http: round ${round} ${what}: ${fmt(result.reqPerS)} req/s, p50 ${fmt(result.p50Ms, 2)} ms, p99 ${fmt(result.p99Ms, 2)} ms, errors ${result.errors}`,
    )
    if (result.errors > 0) ctx.fail(`http: ${what} had ${result.errors} errors (${result.non2xx} non-2xx)`)
  }
  try {
    const first = await api()
    let checked: Awaited<ReturnType<typeof check>>
    try {
      checked = await check(ctx, first.p.port, keys.issue(PRODUCTS), sets)
    } finally {
      await first.p.stop()
    }
    const answersFile = join(work, 'same-bytes.json')
    writeFileSync(answersFile, JSON.stringify(checked.answers))
    let metricsCounted: number | null = null
    for (let round = 1; round <= rounds; round++) {
      const hello = await startHello(WORKERS, work)
      try {
        await load(hello, round, 'hello', sets[0].paths, {})
      } finally {
        await hello.stop()
      }
      if (checked.floors.length) {
        const same = await startHello(WORKERS, work, [], answersFile)
        try {
          for (const f of checked.floors)
            await load(same, round, `same bytes: ${f.endpoint}`, sets.find((s) => s.endpoint === f.endpoint)!.paths, {})
        } finally {
          await same.stop()
        }
      }
      const { p, metricsPort } = await api()
      try {
        for (const set of sets)
          await load(p, round, set.endpoint, set.paths, { 'X-API-KEY': keys.issue(PRODUCTS), ...set.headers })
        rss.push({ round, processes: p.rss() })
        if (round === 1) {
          const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
          metricsCounted = countedRequests(text)
          if (!(metricsCounted > 0)) ctx.fail('http: the metrics (METRICS_PORT) counted no request')
        }
      } finally {
        await p.stop()
      }
    }
    const { profiles, flames } = await profileRuns(ctx, sets, keys, work, tool, warmupS, durationS)
    return {
      format: 2,
      tool,
      rounds,
      durationS,
      warmupS,
      workers: WORKERS,
      connections: CONNECTIONS,
      sets: checked.checks,
      floors: checked.floors,
      metricsCounted,
      runs,
      rss,
      profiles,
      flames,
      notes,
    }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

/** One profiled 1-worker run each of the floor and {@link PROFILED}; their stacks folded, and written unless `--no-write`. */
async function profileRuns(
  ctx: SuiteContext,
  sets: UrlSet[],
  keys: BenchKeys,
  work: string,
  tool: 'wrk' | 'autocannon',
  warmupS: number,
  durationS: number,
) {
  const profiles: EndpointProfile[] = []
  const flames: HttpData['flames'] = []
  const outDir = resolve('bench', 'profiles')
  for (const endpoint of ['hello', ...PROFILED]) {
    const set = endpoint === 'hello' ? sets[0] : sets.find((s) => s.endpoint === endpoint)
    if (!set) continue
    let folded = { lines: [] as string[], samples: 0, kept: 0 }
    const p = await profileEndpoint(ctx, {
      endpoint,
      paths: set.paths,
      key: endpoint === 'hello' ? undefined : keys.issue(PRODUCTS),
      keysDb: keys.path,
      tool,
      workDir: work,
      warmupS,
      durationS,
      env: { METRICS_PORT: `127.0.0.1:${await freePort()}` },
      onProfile: (dir) => {
        folded = foldCpuProfile(readCpuProfile(dir), FOLDED_TOP)
      },
    })
    profiles.push(p)
    const files: string[] = []
    if (ctx.opts.write) {
      mkdirSync(outDir, { recursive: true })
      const base = join(outDir, profileSlug(endpoint))
      writeFileSync(`${base}.folded`, `${folded.lines.join('\n')}\n`)
      writeFileSync(
        `${base}.svg`,
        flameGraphSvg(folded.lines, {
          title: `${endpoint === 'hello' ? 'Hono hello-world floor' : `GET ${endpoint}`}: CPU flame graph`,
          subtitle:
            `${ctx.dataset.scale} dataset, 1 worker, ${CONNECTIONS} connections, ${tool}, Node ${ctx.machine.node}, ` +
            `${new Date().toISOString().slice(0, 10)}; ${folded.kept} of ${folded.samples} request samples (the ${FOLDED_TOP} heaviest stacks)`,
        }),
      )
      files.push(`${base}.folded`, `${base}.svg`)
    }
    flames.push({
      endpoint,
      samples: folded.samples,
      kept: folded.kept,
      files: files.map((f) => f.slice(resolve('.').length + 1)),
    })
    ctx.log(
      `http: profiled ${endpoint}: ${fmt(p.reqPerS)} req/s, ${fmt((p.breakdown.busyMs * 1000) / p.breakdown.requests, 1)} µs CPU per request`,
    )
  }
  return { profiles, flames }
}
