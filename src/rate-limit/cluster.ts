import cluster, { type Worker } from 'node:cluster'
import { MemoryRateLimiter } from './memory.js'
import type { RateLimitResult, RateLimiter } from './types.js'

/*
 * Why the primary holds the counters: with WORKERS > 1 every worker answers requests for every
 * key, and the spec's allowance is per key across all products, so a per-process counter would
 * let N workers grant N times the limit. The primary owns one MemoryRateLimiter; workers ask it
 * over the cluster IPC channel (one small message each way, tens of microseconds). The
 * alternative, a shared SQLite counter, serialises on file locks whose busy handler sleeps in
 * whole milliseconds. A multi-machine deployment replaces this with a Redis-backed RateLimiter.
 * If the primary does not answer within a second the request fails closed (429 is not sent;
 * the error surfaces as a 500) rather than silently granting unlimited requests.
 */

interface LimitRequest {
  t: 'rl?'
  id: number
  key: string
  limit: number
  now: number
}
interface LimitReply {
  t: 'rl!'
  id: number
  r: RateLimitResult
}

/** Runs in the primary: answers every worker's counting requests from one store. */
export function serveRateLimitsFromPrimary(): MemoryRateLimiter {
  const store = new MemoryRateLimiter()
  const attach = (w: Worker) =>
    w.on('message', (m: LimitRequest) => {
      if (m && m.t === 'rl?') w.send({ t: 'rl!', id: m.id, r: store.count(m.key, m.limit, m.now) } satisfies LimitReply)
    })
  for (const w of Object.values(cluster.workers ?? {})) if (w) attach(w)
  cluster.on('fork', attach)
  return store
}

/** Runs in a worker: forwards each count to the primary. */
export class ClusterRateLimiter implements RateLimiter {
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (r: RateLimitResult) => void; timer: NodeJS.Timeout }>()
  private readonly onMessage = (m: LimitReply) => {
    if (!m || m.t !== 'rl!') return
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    clearTimeout(p.timer)
    p.resolve(m.r)
  }

  constructor(private readonly timeoutMs = 1000) {
    if (!process.send) throw new Error('ClusterRateLimiter needs an IPC channel to the primary')
    process.on('message', this.onMessage)
  }

  limit(keyId: string, limit: number, now: number): Promise<RateLimitResult> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error('rate-limit store (cluster primary) did not answer'))
      }, this.timeoutMs)
      this.pending.set(id, { resolve, timer })
      process.send!({ t: 'rl?', id, key: keyId, limit, now } satisfies LimitRequest)
    })
  }

  close(): void {
    process.off('message', this.onMessage)
  }
}
