/**
 * A load generator for mixed requests (GET and POST bodies) over keep-alive connections, in two
 * modes: closed (every connection sends its next request when the last one is answered: the
 * most the server and this client manage together) and paced (a fixed arrival rate, open loop:
 * request k is due at k / rate seconds whatever the answers before it, so a slow answer delays
 * none of the requests after it and their wait counts in their latency, as wrk2 measures).
 * Answers are counted per time window ({@link Windows}).
 *
 * Why not the bench's other generators: wrk cannot pace (its Lua scripts choose requests, not
 * when they go), and autocannon's `overallRate` caps each connection per wall-clock second, so
 * every connection sends its share in a burst at the start of each second and idles after it:
 * a sawtooth, not a steady rate. The HTTP client is undici (Node's own HTTP/1.1 client project,
 * the one under Node's `fetch`), whose `Pool` keeps the connections alive and queues requests
 * for a free one; the pacing and the windows are ours.
 *
 * @module
 */
import { Pool } from 'undici'
import { percentile } from './stats.js'

/** One request of a mix. `kind` names it in the counts (e.g. `GET /parcels/at`). */
export interface MixRequest {
  kind: string
  method: 'GET' | 'POST'
  path: string
  headers?: Record<string, string>
  /** a JSON body (sent with `Content-Type: application/json`) */
  body?: string
}

/** An answer: its status, or the error that stood in for it (socket error, timeout, backlog). */
export type Outcome = { status: number; bytes: number } | { error: string }

/** A request that has no answer within this time is an error (`timeout`). */
export const TIMEOUT_MS = 10_000

/** What one window of a run counted. Latencies in ms. */
export interface WindowRow {
  /** 0-based */
  index: number
  requests: number
  errors: number
  /** errors by kind and cause: `GET /parcels/at: 503`, `POST /parcels/batch: ECONNRESET` */
  errorCauses: Record<string, number>
  p50Ms: number
  p99Ms: number
  maxMs: number
}

/** Per-kind totals of a run. */
export interface KindRow {
  kind: string
  requests: number
  errors: number
  p50Ms: number
  p99Ms: number
  /** answer bytes, mean over the answered requests */
  meanBytes: number
}

/**
 * The answers of a run, counted by window of `windowMs` (a request belongs to the window it was
 * due in) and by kind. An answer is an error unless `ok(status)`; an `{ error }` outcome always is.
 */
export class Windows {
  private readonly latencies: number[][] = []
  private readonly errors: Record<string, number>[] = []
  private readonly byKind = new Map<string, { latencies: number[]; errors: number; bytes: number; answered: number }>()

  constructor(
    readonly windowMs: number,
    private readonly ok: (status: number) => boolean = (s) => s >= 200 && s < 300,
  ) {}

  /** Counts one answer of a request due `dueMs` after the run started, answered in `latencyMs`. */
  record(dueMs: number, kind: string, outcome: Outcome, latencyMs: number): void {
    const w = Math.max(0, Math.floor(dueMs / this.windowMs))
    while (this.latencies.length <= w) {
      this.latencies.push([])
      this.errors.push({})
    }
    let k = this.byKind.get(kind)
    if (!k) this.byKind.set(kind, (k = { latencies: [], errors: 0, bytes: 0, answered: 0 }))
    const cause = 'error' in outcome ? outcome.error : this.ok(outcome.status) ? null : String(outcome.status)
    if (cause !== null) {
      const key = `${kind}: ${cause}`
      this.errors[w][key] = (this.errors[w][key] ?? 0) + 1
      k.errors++
    }
    if ('status' in outcome) {
      k.bytes += outcome.bytes
      k.answered++
    }
    this.latencies[w].push(latencyMs)
    k.latencies.push(latencyMs)
  }

  /** One row per window, in order; a window with no request due has zero requests. */
  rows(): WindowRow[] {
    return this.latencies.map((l, index) => {
      const sorted = Float64Array.from(l).sort()
      const causes = this.errors[index]
      return {
        index,
        requests: l.length,
        errors: Object.values(causes).reduce((a, b) => a + b, 0),
        errorCauses: { ...causes },
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
      }
    })
  }

  /** One row per kind, by kind name. */
  kinds(): KindRow[] {
    return [...this.byKind]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([kind, k]) => {
        const sorted = Float64Array.from(k.latencies).sort()
        return {
          kind,
          requests: k.latencies.length,
          errors: k.errors,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          meanBytes: k.answered ? k.bytes / k.answered : NaN,
        }
      })
  }
}

export interface PacedTarget {
  port: number
  /** sent with every request (the API key) */
  headers: Record<string, string>
  /** the next request of the mix */
  next: () => MixRequest
  connections: number
}

function pool(t: PacedTarget): Pool {
  return new Pool(`http://127.0.0.1:${t.port}`, {
    connections: t.connections,
    keepAliveTimeout: 60_000,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  })
}

/** Sends one request and reads its whole answer. */
async function send(p: Pool, t: PacedTarget, r: MixRequest): Promise<Outcome> {
  try {
    const res = await p.request({
      method: r.method,
      path: r.path,
      headers: { ...t.headers, ...r.headers, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: r.body,
    })
    const bytes = (await res.body.arrayBuffer()).byteLength
    return { status: res.statusCode, bytes }
  } catch (err) {
    const e = err as { code?: string; name?: string }
    return {
      error:
        e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT'
          ? 'timeout'
          : (e.code ?? e.name ?? 'error'),
    }
  }
}

/**
 * Closed loop for `durationS`: each of `t.connections` senders sends its next request as soon as
 * the last is answered. Returns the answers per second and the counts (one window).
 */
export async function runClosed(t: PacedTarget, durationS: number): Promise<{ reqPerS: number; row: WindowRow }> {
  const p = pool(t)
  const windows = new Windows(Number.MAX_SAFE_INTEGER)
  const t0 = performance.now()
  const end = t0 + durationS * 1000
  let answered = 0
  try {
    await Promise.all(
      Array.from({ length: t.connections }, async () => {
        while (performance.now() < end) {
          const r = t.next()
          const s = performance.now()
          windows.record(0, r.kind, await send(p, t, r), performance.now() - s)
          answered++
        }
      }),
    )
  } finally {
    await p.close()
  }
  return { reqPerS: answered / ((performance.now() - t0) / 1000), row: windows.rows()[0] }
}

export interface PacedRun {
  /** requests per second asked */
  rate: number
  durationS: number
  windowS: number
  /** the most requests waiting for an answer at once */
  mostInFlight: number
  windows: Windows
}

/**
 * Paced (open loop) for `durationS`: request k is due `k / rate` s after the start and is sent
 * then (within the timer's millisecond); its latency runs from when it was due to its last byte.
 * More than `maxInFlight` requests unanswered at once means the server has stopped keeping up:
 * a request due then is not sent and counts as an error (`backlog`). `onStart` gets the start
 * time (`performance.now()`), for samplers that keep the same clock.
 */
export async function runPaced(
  t: PacedTarget,
  o: { rate: number; durationS: number; windowS: number; maxInFlight: number; onStart?: (t0: number) => void },
): Promise<PacedRun> {
  const p = pool(t)
  const windows = new Windows(o.windowS * 1000)
  const total = Math.floor(o.rate * o.durationS)
  let issued = 0
  let inFlight = 0
  let most = 0
  const t0 = performance.now()
  o.onStart?.(t0)
  try {
    await new Promise<void>((done) => {
      const settle = () => {
        if (issued >= total && inFlight === 0) done()
      }
      const tick = () => {
        const due = Math.min(total, Math.floor(((performance.now() - t0) * o.rate) / 1000))
        for (; issued < due; issued++) {
          const dueMs = (issued * 1000) / o.rate
          const r = t.next()
          if (inFlight >= o.maxInFlight) {
            windows.record(dueMs, r.kind, { error: 'backlog' }, 0)
            continue
          }
          inFlight++
          most = Math.max(most, inFlight)
          send(p, t, r).then((outcome) => {
            windows.record(dueMs, r.kind, outcome, performance.now() - t0 - dueMs)
            inFlight--
            settle()
          })
        }
        if (issued < total) setTimeout(tick, 1)
        else settle()
      }
      tick()
    })
  } finally {
    await p.close()
  }
  return { rate: o.rate, durationS: o.durationS, windowS: o.windowS, mostInFlight: most, windows }
}

/** Sends each request once, `concurrency` at a time; the outcomes in request order. */
export async function sendEach(
  t: Omit<PacedTarget, 'next' | 'connections'>,
  requests: MixRequest[],
  concurrency: number,
): Promise<Outcome[]> {
  const target = { ...t, next: () => requests[0], connections: concurrency }
  const p = pool(target)
  const out: Outcome[] = new Array(requests.length)
  let k = 0
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (k < requests.length) {
          const i = k++
          out[i] = await send(p, target, requests[i])
        }
      }),
    )
  } finally {
    await p.close()
  }
  return out
}
