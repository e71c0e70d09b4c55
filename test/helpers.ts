import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { inject } from 'vitest'
import { createApp, type AppDeps } from '../src/app.js'
import { SqliteKeyStore } from '../src/auth/key-store.js'
import type { Country, Product } from '../src/auth/types.js'
import { DatasetHandle, openDataset, type OpenDataset } from '../src/data/open-dataset.js'
import { MemoryRateLimiter } from '../src/rate-limit/memory.js'
import { buildServices, type Services } from '../src/services.js'

export const ALL_PRODUCTS: Product[] = ['plots', 'parcels', 'encumbrance', 'jurisdiction']
export const BOTH: Country[] = ['BOTSWANA', 'SOUTH_AFRICA']

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
  } = {},
) {
  const keysDb = join(mkdtempSync(join(inject('workDir'), 'keys-')), 'keys.db')
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
  })
  const issue = (o: Partial<Parameters<SqliteKeyStore['issue']>[0]> = {}) =>
    keys.issue({ products: ALL_PRODUCTS, countries: BOTH, ratePerMinute: 100000, tileRatePerMinute: 100000, ...o })
  const get = (path: string, key?: string, headers: Record<string, string> = {}) =>
    app.request(path, { headers: { ...(key ? { 'X-API-KEY': key } : {}), ...headers } })
  return { app, keys, keysDb, data, issue, get }
}

export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T
}

export { box } from './fixtures/box.js'
