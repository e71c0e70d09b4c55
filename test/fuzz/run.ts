/**
 * Running the fuzz: its settings (seed, count, replay path) from the environment that
 * `npm run fuzz` sets, the time bound of each request, and sending one request in process.
 */
import type { Hono } from 'hono'
import { type FuzzRequest, KEY, NARROW_KEY } from './arbitraries.js'
import { bodyText } from './json-text.js'
import type { Answer } from './oracle.js'

/** The in-suite run: a fixed seed and a count that fits the suite's minute on a loaded 2-core machine. */
export const SUITE_SEED = 39
export const SUITE_COUNT = 3000

export interface FuzzSettings {
  seed: number
  count: number
  /** fast-check's path of a failure to replay (with its seed) */
  path?: string
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const int = (name: string, dflt: number) => {
    const v = env[name]
    if (v === undefined || v === '') return dflt
    if (!/^\d+$/.test(v)) throw new Error(`${name} must be a whole number, not ${JSON.stringify(v)}`)
    return Number(v)
  }
  return { seed: int('FUZZ_SEED', SUITE_SEED), count: int('FUZZ_COUNT', SUITE_COUNT), path: env.FUZZ_PATH || undefined }
}

/**
 * The documented worst cases (docs/api.md "Bounded work", national scale on a 2-core machine):
 * the costliest accepted /intersect geometry 2.3 s, every other endpoint's largest request
 * 0.25 s. A request here may take {@link SAFETY} times that: the test dataset is small, but the
 * machine running the suite may be a loaded 2-core CI runner with other test files in parallel.
 */
export const DOCUMENTED_MS = { intersect: 2300, other: 250 }
export const SAFETY = 8

export function boundOf(r: FuzzRequest): number {
  return SAFETY * (r.op.endsWith('/encumbrances/intersect') ? DOCUMENTED_MS.intersect : DOCUMENTED_MS.other)
}

/** Sends `r` to `app` with the real keys in place of their stand-ins; the answer with its body read whole, and its time. */
export async function send(app: Hono<any>, keys: { key: string; narrow: string }, r: FuzzRequest): Promise<Answer> {
  const fill = (s: string) => s.replaceAll(NARROW_KEY, keys.narrow).replaceAll(KEY, keys.key)
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, fill(v)]))
  const body = r.body === undefined ? undefined : bodyText(r.body)
  const t0 = performance.now()
  const res = await app.request(r.url, { method: r.method, headers, body })
  const bytes = new Uint8Array(await res.arrayBuffer())
  return { status: res.status, headers: res.headers, body: bytes, ms: performance.now() - t0 }
}
