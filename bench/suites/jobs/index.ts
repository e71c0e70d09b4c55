/**
 * `--only jobs` (issue #41 item 6): bulk jobs on the real server (`node dist/server.js`, 2
 * workers, JOBS_WORKERS and the pacing as by default), over loopback. One run:
 *
 * 1. each operation jobs may run, one job at a time: `--job-rows` seeded rows (100,000; 10,000
 *    with `--quick`) uploaded as CSV, watched until done: rows a second from its start to its
 *    end as the job reports them, and the upload's seconds. A job still running after
 *    {@link capSeconds} is cancelled and its rate taken from the rows it did (marked capped);
 * 2. `/parcels/at` at 50 connections (wrk or autocannon), alone and with a `getParcelAt` job
 *    running, interleaved over the rounds (3; 1 with `--quick`), a warm-up before each;
 * 3. the verdict (plan.ts): the median p99 with a job at most twice the median p99 alone. A
 *    verdict that fails fails the run, as the soak's does.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDataset } from '../../../src/data/open-dataset.js'
import { PARCEL_FILES } from '../../../src/data/parcels-format.js'
import { JOB_OPERATIONS } from '../../../src/jobs/operations.js'
import { BenchKeys } from '../../lib/keys.js'
import { type LoadResult, loadTool, runLoad } from '../../lib/load.js'
import { Random } from '../../lib/prng.js'
import { startApiServer } from '../../lib/servers.js'
import { fmt } from '../../lib/stats.js'
import type { Suite, SuiteContext } from '../../lib/suite.js'
import { CONNECTIONS, PRODUCTS, WORKERS } from '../http/run.js'
import { erfPaths } from '../tiles-http.js'
import {
  jobCsv,
  MAX_P99_RATIO,
  type OnlineRun,
  type OnlineVerdict,
  onlineJobRows,
  onlineVerdict,
  type RowSource,
} from './plan.js'

/** The operation of the job under the online load: the same lookup as the load. */
const ONLINE_OPERATION = 'getParcelAt'
/** The most rows one upload may hold (JOBS_MAX_ROWS by default). */
const MAX_ROWS = 1_000_000
/** Distinct points and LPIs rows are drawn from. */
const SOURCE_SIZE = 20_000

/** Seconds an operation's job may run before it is cancelled (the suite is bounded in time). */
export const capSeconds = (quick: boolean) => (quick ? 30 : 120)

export interface JobRun {
  operation: string
  rows: number
  status: string
  rowsDone: number
  rowsFailed: number
  /** seconds the upload took (read, checked, written, queued) */
  submitS: number
  /** seconds from the job's start to its end (or to the cap) */
  runS: number
  rowsPerS: number
  capped: boolean
}

export interface JobsData {
  tool: 'wrk' | 'autocannon'
  workers: number
  rowsPerJob: number
  capS: number
  durationS: number
  jobs: JobRun[]
  online: OnlineRun[]
  verdict: OnlineVerdict | null
}

interface JobView {
  id: string
  status: string
  rows: number
  rows_done: number
  rows_failed: number
  started_at: string | null
  finished_at: string | null
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Published erven's label points and published parcels' LPIs, seeded. */
function rowSource(dir: string, seed: number): RowSource {
  const db = openDataset(dir).sqlite(PARCEL_FILES.sqlite)
  const erven = db
    .prepare("SELECT label_lon, label_lat FROM parcel WHERE parcel_type = 'ERF' AND hidden = 0")
    .raw()
    .all() as [number, number][]
  const lpis = db.prepare('SELECT DISTINCT lpi FROM parcel WHERE hidden = 0').pluck().all() as string[]
  const rnd = new Random(seed >>> 0, 'bench/jobs/source')
  const draw = <T>(xs: T[]) => Array.from({ length: Math.min(SOURCE_SIZE, xs.length) }, () => rnd.pick(xs))
  return { points: draw(erven), lpis: draw(lpis) }
}

/** The API of one server and key, as a client of bulk jobs uses it. */
class JobsClient {
  constructor(
    private readonly port: number,
    private readonly key: () => string,
  ) {}

  private url(path: string) {
    return `http://127.0.0.1:${this.port}/api/v1${path}`
  }

  /** Uploads a job (each with a fresh key: one key's daily allowance holds a million rows). */
  async submit(operation: string, csv: string): Promise<{ id: string; key: string; seconds: number }> {
    const key = this.key()
    const t0 = performance.now()
    const res = await fetch(this.url(`/jobs?operation=${operation}`), {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'text/csv' },
      body: csv,
    })
    const body = (await res.json()) as { id?: string; message?: string }
    if (res.status !== 202 || !body.id)
      throw new Error(`jobs: ${operation} upload answered ${res.status}: ${body.message}`)
    return { id: body.id, key, seconds: (performance.now() - t0) / 1000 }
  }

  async view(id: string, key: string): Promise<JobView> {
    const res = await fetch(this.url(`/jobs/${id}`), { headers: { 'X-API-KEY': key } })
    if (!res.ok) throw new Error(`jobs: GET /jobs/${id} answered ${res.status}`)
    return (await res.json()) as JobView
  }

  /** Polls the job until `done(view)` or `timeoutS`; the last view. */
  async until(id: string, key: string, done: (j: JobView) => boolean, timeoutS: number): Promise<JobView> {
    const end = performance.now() + timeoutS * 1000
    for (;;) {
      const j = await this.view(id, key)
      if (done(j) || performance.now() > end) return j
      await sleep(100)
    }
  }

  /** Cancels the job and waits for its runner to stop (it stops at its next checkpoint, within a second). */
  async cancel(id: string, key: string): Promise<JobView> {
    await fetch(this.url(`/jobs/${id}`), { method: 'DELETE', headers: { 'X-API-KEY': key } })
    await sleep(1500)
    return this.view(id, key)
  }
}

const FINISHED = new Set(['done', 'failed', 'cancelled', 'expired'])

/** Seconds between two of a job's ISO times. */
const between = (a: string | null, b: string | null) => (a && b ? (Date.parse(b) - Date.parse(a)) / 1000 : NaN)

/** One job of `operation`, alone on the server, to its end or the cap. */
async function timeJob(ctx: SuiteContext, client: JobsClient, operation: string, source: RowSource, rows: number) {
  const capS = capSeconds(ctx.opts.quick)
  const csv = jobCsv(operation, rows, source, ctx.opts.seed, operation)
  const { id, key, seconds } = await client.submit(operation, csv)
  await client.until(id, key, (j) => j.started_at !== null || FINISHED.has(j.status), 60)
  let j = await client.until(id, key, (v) => FINISHED.has(v.status), capS)
  const capped = !FINISHED.has(j.status)
  if (capped) {
    // rated on the rows done by the cap, from its start to now; then cancelled
    j = { ...j, finished_at: new Date().toISOString() }
    await client.cancel(id, key)
  }
  const runS = between(j.started_at, j.finished_at)
  const run: JobRun = {
    operation,
    rows,
    status: capped ? 'capped' : j.status,
    rowsDone: j.rows_done,
    rowsFailed: j.rows_failed,
    submitS: seconds,
    runS,
    rowsPerS: j.rows_done / runS,
    capped,
  }
  ctx.log(
    `jobs: ${operation}: ${run.rowsDone}/${rows} rows (${run.rowsFailed} failed) in ${fmt(runS, 2)} s: ` +
      `${fmt(run.rowsPerS)} rows/s; upload ${fmt(seconds, 2)} s${capped ? ' (capped)' : ''}`,
  )
  if (j.status === 'failed') ctx.fail(`jobs: the ${operation} job failed`)
  return run
}

/** One timed `/parcels/at` run, with a job of {@link ONLINE_OPERATION} running through it or not. */
async function timeOnline(
  ctx: SuiteContext,
  client: JobsClient,
  load: (durationS: number) => Promise<LoadResult>,
  withJob: { rows: number; source: RowSource; round: number } | null,
): Promise<Omit<OnlineRun, 'round'>> {
  const warmupS = ctx.opts.quick ? 0.5 : 2
  if (!withJob) {
    await load(warmupS)
    return { load: 'alone', result: await load(ctx.opts.durationS) }
  }
  const csv = jobCsv(ONLINE_OPERATION, withJob.rows, withJob.source, ctx.opts.seed, `online/${withJob.round}`)
  const { id, key } = await client.submit(ONLINE_OPERATION, csv)
  await client.until(id, key, (j) => j.rows_done > 0 || FINISHED.has(j.status), 60)
  await load(warmupS)
  const before = await client.view(id, key)
  const t0 = performance.now()
  const result = await load(ctx.opts.durationS)
  const after = await client.view(id, key)
  const seconds = (performance.now() - t0) / 1000
  const runningAtEnd = after.status === 'running' || after.status === 'queued'
  if (!FINISHED.has(after.status)) await client.cancel(id, key)
  const job = { operation: ONLINE_OPERATION, rowsPerS: (after.rows_done - before.rows_done) / seconds, runningAtEnd }
  return { load: 'with a job', result, job }
}

async function run(ctx: SuiteContext): Promise<JobsData> {
  const { quick } = ctx.opts
  const rows = ctx.opts.jobRows
  const tool = loadTool(ctx.opts)
  const source = rowSource(ctx.dataset.dir, ctx.opts.seed)
  const ds = openDataset(ctx.dataset.dir)
  const { at } = erfPaths(ds, quick ? 200 : 2_000, ctx.opts.seed)
  const work = mkdtempSync(join(tmpdir(), 'landdata-bench-jobs-'))
  const keys = new BenchKeys(join(work, 'keys.db'))
  const jobs: JobRun[] = []
  const online: OnlineRun[] = []
  try {
    const server = await startApiServer({
      datasetDir: ctx.dataset.dir,
      keysDb: keys.path,
      workers: WORKERS,
      workDir: work,
      env: { JOBS_DIR: join(work, 'jobs') },
    })
    try {
      const client = new JobsClient(server.port, () => keys.issue(PRODUCTS))
      for (const operation of JOB_OPERATIONS) jobs.push(await timeJob(ctx, client, operation, source, rows))

      const alone = jobs.find((j) => j.operation === ONLINE_OPERATION)?.rowsPerS ?? null
      const jobRows = onlineJobRows(alone, ctx.opts.durationS + 2, Math.min(rows, 10_000), MAX_ROWS)
      const headers = { 'X-API-KEY': keys.issue(PRODUCTS) }
      const load = (durationS: number) =>
        runLoad(tool, { port: server.port, paths: at, headers, connections: CONNECTIONS, durationS, workDir: work })
      for (let round = 1; round <= (quick ? 1 : 3); round++) {
        for (const withJob of [null, { rows: jobRows, source, round }]) {
          const r = { round, ...(await timeOnline(ctx, client, load, withJob)) }
          online.push(r)
          ctx.log(
            `jobs: /parcels/at round ${round} ${r.load}: ${fmt(r.result.reqPerS)} req/s, p50 ` +
              `${fmt(r.result.p50Ms, 2)} ms, p99 ${fmt(r.result.p99Ms, 2)} ms, errors ${r.result.errors}` +
              (r.job
                ? `; the job ${fmt(r.job.rowsPerS)} rows/s${r.job.runningAtEnd ? '' : ', ended before the run'}`
                : ''),
          )
          if (r.result.errors > 0) ctx.fail(`jobs: /parcels/at ${r.load} had ${r.result.errors} errors`)
        }
      }
    } finally {
      await server.stop()
    }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
  const verdict = onlineVerdict(online)
  if (verdict && !verdict.pass)
    ctx.fail(
      `jobs: a job running more than doubled the online p99 (${fmt(verdict.p99Alone, 2)} ms alone, ` +
        `${fmt(verdict.p99WithJob, 2)} ms with a job: ${fmt(verdict.ratio, 2)}x > ${MAX_P99_RATIO}x)`,
    )
  return {
    tool,
    workers: WORKERS,
    rowsPerJob: rows,
    capS: capSeconds(quick),
    durationS: ctx.opts.durationS,
    jobs,
    online,
    verdict,
  }
}

function render(r: { data: JobsData }): string {
  const d = r.data
  const out = [
    `The real server with ${d.workers} workers and the bulk job settings as by default (one job at a time, its rows ` +
      'answered on one worker thread paced to half a core: JOBS_THREADS 1, JOBS_CPU_SHARE 0.5); loopback. Each operation: one job of ' +
      `${d.rowsPerJob.toLocaleString('en-US')} seeded rows (published erven's label points, or published ` +
      `parcels' LPIs), uploaded as CSV and run alone; rows a second from its start to its end as the job reports ` +
      `them. A job still running after ${d.capS} s is cancelled and rated on the rows it did (capped).`,
    '',
    '| operation | rows | done | failed | upload s | run s | rows/s |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...d.jobs.map(
      (j) =>
        `| \`${j.operation}\` | ${j.rows.toLocaleString('en-US')} | ${j.rowsDone.toLocaleString('en-US')}` +
        `${j.capped ? ' (capped)' : ''} | ${j.rowsFailed.toLocaleString('en-US')} | ${fmt(j.submitS, 2)} | ` +
        `${fmt(j.runS, 2)} | ${fmt(j.rowsPerS)} |`,
    ),
    '',
    `\`/parcels/at\` at erf points, ${CONNECTIONS} connections (${d.tool}, ${d.durationS} s a run after a warm-up), ` +
      `alone and with a \`${ONLINE_OPERATION}\` job running, interleaved over the rounds:`,
    '',
    '| round | load | req/s | p50 ms | p99 ms | errors | the job, rows/s |',
    '|--:|---|--:|--:|--:|--:|--:|',
    ...d.online.map(
      (o) =>
        `| ${o.round} | ${o.load} | ${fmt(o.result.reqPerS)} | ${fmt(o.result.p50Ms, 2)} | ${fmt(o.result.p99Ms, 2)} | ` +
        `${o.result.errors} | ${o.job ? `${fmt(o.job.rowsPerS)}${o.job.runningAtEnd ? '' : ' (ended early)'}` : ''} |`,
    ),
    '',
  ]
  const v = d.verdict
  if (v)
    out.push(
      `**Verdict: ${v.pass ? 'PASS' : 'FAIL'}.** Issue #41: a job must not more than double the online p99. ` +
        `Median p99 ${fmt(v.p99Alone, 2)} ms alone, ${fmt(v.p99WithJob, 2)} ms with a job ` +
        `(${fmt(v.ratio, 2)}x, at most ${MAX_P99_RATIO}x); p50 ${fmt(v.p50Alone, 2)} → ${fmt(v.p50WithJob, 2)} ms; ` +
        `${fmt(v.reqPerSAlone)} → ${fmt(v.reqPerSWithJob)} req/s.`,
    )
  return out.join('\n')
}

export const jobsSuite: Suite<JobsData> = {
  name: 'jobs',
  title: 'Bulk jobs: rows a second per operation, and online p99 with a job running',
  summary:
    'a job of --job-rows seeded rows per bulk-job operation (rows/s), then /parcels/at p50/p99 and req/s at 50 ' +
    'connections with 2 workers, alone and with a job running: a verdict (at most 2x the p99)',
  run,
  render,
}
