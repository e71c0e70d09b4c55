/**
 * Per-call timing of a batch operation (one call handles a whole request body): a few untimed
 * warm-up calls, then every batch once, timed; ops/s is batches over the wall time of that timed
 * pass (there is no separate untimed pass, a batch being long enough for the timer not to count).
 * Also the batch bodies drawn from a probe set, and the timing of a batch route's whole handler.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createApp } from '../../src/app.js'
import { SqliteKeyStore } from '../../src/auth/key-store.js'
import type { Product } from '../../src/auth/types.js'
import { DatasetHandle, type OpenDataset } from '../../src/data/open-dataset.js'
import { MemoryRateLimiter } from '../../src/rate-limit/memory.js'
import { buildServices, type Services } from '../../src/services.js'
import { BenchKeys } from './keys.js'
import type { OpRow } from './measure.js'
import { Samples } from './stats.js'
import type { SuiteContext } from './suite.js'

/**
 * Times `fn(b)` (which returns its result count) for `b` in `0..batches-1`, after `warmups`
 * untimed calls on the first batches. The row has no near/random split.
 */
export async function measureBatches(
  op: string,
  variant: string,
  batches: number,
  warmups: number,
  fn: (b: number) => Promise<number> | number,
): Promise<OpRow> {
  for (let b = 0; b < Math.min(batches, warmups); b++) await fn(b) // warm-up
  const all = new Samples(batches)
  let results = 0
  const t0 = performance.now()
  for (let b = 0; b < batches; b++) {
    const s = performance.now()
    results += await fn(b)
    all.push(performance.now() - s)
  }
  const opsPerS = batches / ((performance.now() - t0) / 1000)
  return { op, variant, all: all.summary(), near: null, random: null, opsPerS, meanResults: results / batches }
}

/** One point of a batch body, as the batch routes take it. */
export interface BatchPoint {
  latitude: number
  longitude: number
}

/** `count` bodies of `size` points each, taken in turn from `probes` (wrapping around). */
export function batchBodies(
  probes: { lon: Float64Array; lat: Float64Array; length: number },
  count: number,
  size: number,
): BatchPoint[][] {
  return Array.from({ length: count }, (_, b) => {
    const pts: BatchPoint[] = []
    for (let i = 0; i < size; i++) {
      const k = (b * size + i) % probes.length
      pts.push({ latitude: probes.lat[k], longitude: probes.lon[k] })
    }
    return pts
  })
}

/** What differs between the suites that time a batch route's whole handler. */
export interface BatchHandlerSpec {
  /** the suite: a failure reads `<name>: batch answered <status>: …` */
  name: string
  /** the product the request's API key is issued for */
  product: Product
  /** the route, e.g. `/api/v1/parcels/batch` */
  path: string
  /** the row's `op` */
  op: string
  bodies: BatchPoint[][]
  /** untimed calls before the timed ones */
  warmups: number
  /** The number of points found, read from the end of the answer (its last 256 bytes as text; timed with the call). */
  found(tail: string): number
}

const decoder = new TextDecoder()

/**
 * Runs `fn` with the whole app in process (the dataset's services, a throwaway key store with
 * one key for `product` (one or several), an in-memory rate limiter, no access log), as the bench's "whole
 * handler" rows measure it, and the services it answers from (what those rows compare
 * with); the key store is removed afterwards.
 */
export async function withInProcessApp<T>(
  ds: OpenDataset,
  name: string,
  product: Product | Product[],
  fn: (app: ReturnType<typeof createApp>, key: string, services: Services) => Promise<T>,
): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), `landdata-bench-${name}-app-`))
  const keys = new BenchKeys(join(work, 'keys.db'))
  try {
    const key = keys.issue(Array.isArray(product) ? product : [product])
    const store = new SqliteKeyStore(keys.path)
    const data = new DatasetHandle(ds, buildServices)
    const app = createApp({ log: pino({ level: 'silent' }), keys: store, limiter: new MemoryRateLimiter(), data })
    try {
      return await fn(app, key, data.services)
    } finally {
      store.close()
    }
  } finally {
    keys.close()
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * Times a batch route's whole handler without a socket: each body is POSTed through the app
 * (`app.request`: JSON parse, validation of every point, key check, rate limit, lookups, the
 * JSON answer's bytes read from the Response) over a temporary key store. Variant `whole handler
 * (app.request, no socket)`. The answer is read as bytes, as a server sends it; decoding it to a
 * string (and parsing it) is the client's cost, and until 2026-11-26 the decoding was timed too
 * (about 12 ms of a 5000-point jurisdiction answer).
 */
export async function measureBatchHandler(ctx: SuiteContext, ds: OpenDataset, spec: BatchHandlerSpec): Promise<OpRow> {
  return withInProcessApp(ds, spec.name, spec.product, async (app, key) => {
    const texts = spec.bodies.map((pts) => JSON.stringify({ points: pts }))
    return measureBatches(spec.op, 'whole handler (app.request, no socket)', texts.length, spec.warmups, async (b) => {
      const res = await app.request(spec.path, {
        method: 'POST',
        headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
        body: texts[b],
      })
      // the body as the server sends it: bytes
      const bytes = new Uint8Array(await res.arrayBuffer())
      if (res.status !== 200) {
        ctx.fail(`${spec.name}: batch answered ${res.status}: ${decoder.decode(bytes.subarray(0, 200))}`)
        return NaN
      }
      return spec.found(decoder.decode(bytes.subarray(Math.max(0, bytes.length - 256))))
    })
  })
}
