import cluster, { type Worker } from 'node:cluster'
import { MemoryRateLimiter } from './memory.js'
import { type Ask, TurnBatch, type Waiter } from './turn-batch.js'
import { RateLimitStoreError, type RateLimitResult, type RateLimiter } from './types.js'

/*
 * Why the primary holds the counters: with WORKERS > 1 every worker answers requests for every
 * key, and the spec's allowance is per key across all products, so a per-process counter would
 * let N workers grant N times the limit. The primary owns one MemoryRateLimiter; workers ask it
 * over the cluster IPC channel. The alternative, a shared SQLite counter, serialises on file
 * locks whose busy handler sleeps in whole milliseconds. A multi-machine deployment replaces this
 * with a Redis-backed RateLimiter.
 *
 * Batched: the counts a worker asks for while it handles one batch of socket events (one turn of
 * the event loop; under load, several requests) go to the primary as one message, sent once
 * that turn's I/O callbacks have run (setImmediate), and come back as one message in the same
 * order. Each count is still counted by the primary one at a time, in the order the worker asked,
 * so the answers are exactly those of one message per request; a message each way costs both
 * processes a serialisation, a pipe write and a read, so one per turn instead of one per request
 * leaves that CPU to the requests.
 *
 * If the primary does not answer within a second the requests of that batch fail closed with 503
 * `RateLimitUnavailable` (as an unreachable Redis does) rather than silently granting unlimited
 * requests.
 */

/** One count answered: allowed (1 or 0), limit, remaining, resetAt. */
type Counted = [allowed: 0 | 1, limit: number, remaining: number, resetAt: number]

export interface LimitBatch {
  t: 'rl*'
  /** the worker's batch number, echoed in the reply */
  b: number
  q: Ask[]
}
export interface LimitReplies {
  t: 'rl#'
  b: number
  /** one per ask, in the order asked */
  r: Counted[]
}

/** The primary's answer to one batch: each ask counted in order. */
export function answerLimitBatch(store: MemoryRateLimiter, m: LimitBatch): LimitReplies {
  const r: Counted[] = new Array(m.q.length)
  for (let k = 0; k < m.q.length; k++) {
    const [key, limit, now] = m.q[k]
    const x = store.count(key, limit, now)
    r[k] = [x.allowed ? 1 : 0, x.limit, x.remaining, x.resetAt]
  }
  return { t: 'rl#', b: m.b, r }
}

/** Runs in the primary: answers every worker's counting requests from one store. */
export function serveRateLimitsFromPrimary(): MemoryRateLimiter {
  const store = new MemoryRateLimiter()
  const attach = (w: Worker) =>
    w.on('message', (m: LimitBatch) => {
      if (m && m.t === 'rl*' && Array.isArray(m.q)) w.send(answerLimitBatch(store, m))
    })
  for (const w of Object.values(cluster.workers ?? {})) if (w) attach(w)
  cluster.on('fork', attach)
  return store
}

/** The worker's side of the IPC channel (the process's own, by default; a fake in tests). */
export interface LimitChannel {
  send(m: LimitBatch): void
  listen(onMessage: (m: unknown) => void): () => void
}

function processChannel(): LimitChannel {
  if (!process.send) throw new Error('ClusterRateLimiter needs an IPC channel to the primary')
  return {
    send: (m) => void process.send!(m),
    listen(onMessage) {
      process.on('message', onMessage)
      return () => void process.off('message', onMessage)
    },
  }
}

/** Runs in a worker: forwards the counts to the primary, one message per turn of the event loop. */
export class ClusterRateLimiter implements RateLimiter {
  private nextBatch = 1
  private readonly batch = new TurnBatch<RateLimitResult>((asks, waiting) => this.send(asks, waiting))
  private readonly sent = new Map<number, { waiting: Waiter<RateLimitResult>[]; timer: NodeJS.Timeout }>()
  private readonly unlisten: () => void

  constructor(
    private readonly timeoutMs = 1000,
    private readonly channel: LimitChannel = processChannel(),
  ) {
    this.unlisten = channel.listen((m) => this.onMessage(m as LimitReplies))
  }

  limit(keyId: string, limit: number, now: number): Promise<RateLimitResult> {
    return this.batch.ask(keyId, limit, now)
  }

  /** One turn's counts as one message to the primary (TurnBatch). */
  private send(q: Ask[], waiting: Waiter<RateLimitResult>[]): void {
    const b = this.nextBatch++
    // the end waits for setImmediate: a worker busy for longer than the timeout runs its due
    // timers before it reads the IPC channel, where the answer may be waiting already
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!this.sent.delete(b)) return
          const err = new RateLimitStoreError('rate-limit store (cluster primary) did not answer')
          for (const w of waiting) w.reject(err)
        }),
      this.timeoutMs,
    )
    this.sent.set(b, { waiting, timer })
    this.channel.send({ t: 'rl*', b, q })
  }

  private onMessage(m: LimitReplies): void {
    if (m?.t !== 'rl#') return
    const batch = this.sent.get(m.b)
    if (!batch) return
    this.sent.delete(m.b)
    clearTimeout(batch.timer)
    for (let k = 0; k < batch.waiting.length; k++) {
      const c = m.r[k]
      if (c) batch.waiting[k].resolve({ allowed: c[0] === 1, limit: c[1], remaining: c[2], resetAt: c[3] })
      else batch.waiting[k].reject(new Error('rate-limit store (cluster primary) answered fewer counts than asked'))
    }
  }

  close(): void {
    this.unlisten()
  }
}
