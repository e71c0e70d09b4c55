/**
 * The counts asked during one turn of the event loop, sent together: the remote rate limiters
 * (the cluster primary's, cluster.ts; Redis's, redis.ts) queue each count here and get the whole
 * batch once that turn's I/O callbacks have run (setImmediate), so a burst of requests costs one
 * message or one pipeline, not one each. The order of the asks is kept: answer k is ask k's.
 */
import type { RateLimitResult } from './types.js'

/** One count asked: key id, limit, the request's clock (epoch ms). */
export type Ask = [key: string, limit: number, now: number]

/** How a count's promise is settled (`R`: what the limiter answers, RateLimitResult or also null). */
export interface Waiter<R = RateLimitResult | null> {
  resolve: (r: R) => void
  reject: (e: Error) => void
}

export class TurnBatch<R = RateLimitResult | null> {
  private asks: Ask[] = []
  private waiting: Waiter<R>[] = []

  /** `send` gets each turn's asks and their waiters, in the order asked, and settles every one. */
  constructor(private readonly send: (asks: Ask[], waiting: Waiter<R>[]) => void) {}

  /** Queues one count; the first of a turn schedules the batch. */
  ask(keyId: string, limit: number, now: number): Promise<R> {
    return new Promise((resolve, reject) => {
      if (this.asks.length === 0) setImmediate(this.flush)
      this.asks.push([keyId, limit, now])
      this.waiting.push({ resolve, reject })
    })
  }

  private readonly flush = () => {
    const asks = this.asks
    const waiting = this.waiting
    if (!asks.length) return
    this.asks = []
    this.waiting = []
    this.send(asks, waiting)
  }
}
