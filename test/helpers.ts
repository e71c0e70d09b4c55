import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { inject } from 'vitest'
import { createApp, type AppDeps, type RunnerSettings } from '../src/app.js'
import type { JobsDeps } from '../src/jobs/routes.js'
import type { JobRunner } from '../src/jobs/runner.js'
import { RowThreads } from '../src/jobs/thread-rows.js'
import { SqliteJobStore } from '../src/jobs/sqlite-store.js'
import type { RouteSpec } from '../src/http/openapi.js'
import type { RequestSchemas } from '../src/http/validate.js'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import type { Country, Product } from '../src/auth/types.js'
import { DatasetHandle, openDataset, type OpenDataset } from '../src/data/open-dataset.js'
import { MemoryRateLimiter } from '../src/rate-limit/memory.js'
import { buildServices, type Services } from '../src/services.js'

export const ALL_PRODUCTS: Product[] = ['plots', 'parcels', 'encumbrance', 'jurisdiction']
export const BOTH: Country[] = ['BOTSWANA', 'SOUTH_AFRICA']
/**
 * A route a test adds to the app (`makeTestApp({ routes })`): tagged `Test`, its operationId made
 * of the method and the path (`get /boom`: `getBoom`), no response documented.
 */
export function testRoute<S extends RequestSchemas>(
  method: 'get' | 'post',
  path: string,
  summary: string,
  request: S = {} as S,
): RouteSpec<S> {
  const operationId = method + path.replace(/\/(\w)/g, (_m, c: string) => c.toUpperCase())
  const tags = [{ name: 'Test', description: 'Routes a test adds.' }]
  return { method, path, operationId, tags, summary, request, responses: {} }
}

/**
 * The real app over the test dataset, a fresh key store and an in-memory limiter; `loaded`: a
 * dataset and the services already built on it (as the server's loadServices does).
 */
export function makeTestApp(
  opts: {
    datasetDir?: string
    clock?: () => number
    keyRecheckMs?: number
    loaded?: { dataset: OpenDataset; services: Services }
    routes?: AppDeps['routes']
    readiness?: AppDeps['readiness']
    corsOrigins?: AppDeps['corsOrigins']
    tileRatePerMinute?: AppDeps['tileRatePerMinute']
    rateLimitHeaders?: AppDeps['rateLimitHeaders']
    /**
     * bulk job settings over the defaults (a fresh JOBS_DIR; the runner not started; the rows
     * answered on one worker thread working flat out, as the server answers them; `threads:
     * null`: on the test's thread, by this app)
     */
    jobs?: Partial<Omit<JobsDeps, 'store'>> & { runner?: RunnerSettings; threads?: RowThreads | null }
  } = {},
) {
  const keysDb = join(mkdtempSync(join(inject('workDir'), 'keys-')), 'keys.db')
  const jobsDir = opts.jobs?.dir ?? mkdtempSync(join(inject('workDir'), 'jobs-'))
  const jobStore = new SqliteJobStore(join(jobsDir, 'jobs.db'))
  let runner: JobRunner | null = null
  const threads =
    opts.jobs?.threads === undefined ? new RowThreads({ threads: 1, cpuShare: 1 }) : (opts.jobs.threads ?? undefined)
  const keys = new SqliteKeyStore(keysDb, { recheckMs: opts.keyRecheckMs ?? 0 })
  const data = opts.loaded
    ? new DatasetHandle(opts.loaded.dataset, buildServices, opts.loaded.services)
    : new DatasetHandle(openDataset(opts.datasetDir ?? inject('datasetDir')), buildServices)
  const app = createApp({
    log: pino({ level: 'silent' }),
    keys,
    limiter: new MemoryRateLimiter(),
    data,
    clock: opts.clock,
    routes: opts.routes,
    readiness: opts.readiness,
    corsOrigins: opts.corsOrigins,
    tileRatePerMinute: opts.tileRatePerMinute,
    rateLimitHeaders: opts.rateLimitHeaders,
    jobs: {
      store: jobStore,
      dir: jobsDir,
      maxRows: 1_000_000,
      maxBytes: 256 * 2 ** 20,
      maxRunningPerKey: 2,
      rowsPerDay: 10_000_000,
      retentionMs: 7 * 86_400_000,
      ...opts.jobs,
      threads,
      runner: (make) => {
        runner = make({ paced: false, ...opts.jobs?.runner })
      },
    },
  })
  const issue = (o: Partial<Parameters<SqliteKeyStore['issue']>[0]> = {}) =>
    keys.issue({ products: ALL_PRODUCTS, countries: BOTH, ratePerMinute: 100000, tileRatePerMinute: 100000, ...o })
  const get = (path: string, key?: string, headers: Record<string, string> = {}) =>
    app.request(path, { headers: { ...(key ? { 'X-API-KEY': key } : {}), ...headers } })
  return { app, keys, keysDb, data, issue, get, jobStore, jobsDir, runner: runner! as JobRunner, threads }
}

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T
}

export { box } from './fixtures/box.js'
