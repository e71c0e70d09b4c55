/**
 * The rate limiter of several instances (REDIS_URL): every count is one atomic Lua script in
 * Redis, so a key's allowance is exact across any number of machines and workers
 * (docs/production.md "Several instances with Redis").
 *
 * The window: fixed, WINDOW_MS long, aligned to Redis's own clock (`TIME` in the script:
 * floor(now / 60000) * 60000), so instances whose clocks differ a little still count into one
 * counter, `rl:{<keyId>}:<windowStart>` (the braces are a Redis Cluster hash tag). The script
 * answers the count and the milliseconds left in the window; the reset is that many ms from the
 * request's own clock, so the `RateLimit` header never depends on the instance's clock being
 * right. The counter expires a second after its window ends.
 *
 * Batched like the cluster primary's counts (src/rate-limit/cluster.ts): the counts asked during
 * one turn of the event loop go to Redis as one pipeline (one write, one round trip), sent once
 * that turn's I/O callbacks have run (setImmediate). Each worker talks to Redis itself.
 *
 * Failure: a batch that fails, or does not answer within REDIS_TIMEOUT_MS (one timer per batch),
 * fails each of its counts: a RateLimitStoreError (503 RateLimitUnavailable, the default) or,
 * with RATE_LIMIT_ON_STORE_ERROR=open, `null` (served, not counted; logged once per outage and
 * counted in `landdata_rate_limit_uncounted_total`).
 */
import type { ChainableCommander } from 'ioredis'
import { type RedisLink, withTimeout } from '../redis/connection.js'
import { type Ask, TurnBatch, type Waiter } from './turn-batch.js'
import { RateLimitStoreError, type RateLimitResult, type RateLimiter, WINDOW_MS } from './types.js'

/** KEYS[1] = `rl:{<keyId>}`, ARGV[1] = the window in ms; returns {count, ms left in the window}. */
export const COUNT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local w = tonumber(ARGV[1])
local start = now - (now % w)
local key = KEYS[1] .. ':' .. start
local n = redis.call('INCR', key)
if n == 1 then redis.call('PEXPIREAT', key, start + w + 1000) end
return {n, start + w - now}
`

/** The Redis key prefix of a key id's counters (the window start follows, in the script). */
export function counterKey(keyId: string): string {
  return `rl:{${keyId}}`
}

type Counting = ChainableCommander & { rlcount(key: string, windowMs: number): Counting }

export interface RedisRateLimiterOptions {
  /** RATE_LIMIT_ON_STORE_ERROR=open: serve without counting while Redis is unavailable */
  failOpen?: boolean
  /** told how many requests were served uncounted (the metrics) */
  onUncounted?: (n: number) => void
  log?: { warn(o: object, msg: string): void }
}

export class RedisRateLimiter implements RateLimiter {
  private readonly batch = new TurnBatch((asks, waiting) => this.send(asks, waiting))
  /** the open-mode warning was logged for the current outage */
  private warned = false

  constructor(
    private readonly link: RedisLink,
    private readonly options: RedisRateLimiterOptions = {},
  ) {
    link.client.defineCommand('rlcount', { numberOfKeys: 1, lua: COUNT_SCRIPT })
  }

  limit(keyId: string, limit: number, now: number): Promise<RateLimitResult | null> {
    return this.batch.ask(keyId, limit, now)
  }

  /** One turn's counts as one pipeline (TurnBatch). */
  private send(q: Ask[], waiting: Waiter[]): void {
    // disconnected: fail at once (ioredis would refuse the pipeline anyway: no offline queue)
    const down = this.link.client.status === 'ready' ? null : this.link.reason()
    if (down !== null) {
      this.fail(waiting, down)
      return
    }
    const pipeline = this.link.client.pipeline() as Counting
    for (let k = 0; k < q.length; k++) pipeline.rlcount(counterKey(q[k][0]), WINDOW_MS)
    withTimeout(pipeline.exec(), this.link.timeoutMs, 'counting').then(
      (replies) => {
        if (replies === null) {
          this.fail(waiting, 'redis: the pipeline was discarded')
          return
        }
        let failed: Waiter[] | null = null
        let why = ''
        for (let k = 0; k < waiting.length; k++) {
          const [err, reply] = replies[k] ?? [new Error('no reply')]
          if (err) {
            ;(failed ??= []).push(waiting[k])
            why = `redis: ${err.message}`
            continue
          }
          const [n, leftMs] = reply as [number, number]
          const [, limit, now] = q[k]
          const allowed = n <= limit
          waiting[k].resolve({ allowed, limit, remaining: allowed ? limit - n : 0, resetAt: now + leftMs })
        }
        if (failed) this.fail(failed, why)
        else {
          this.warned = false
          this.link.succeeded()
        }
      },
      (err: Error) => {
        this.link.failed(err)
        this.fail(waiting, err.message.startsWith('redis') ? err.message : `redis: ${err.message}`)
      },
    )
  }

  private fail(waiting: Waiter[], reason: string): void {
    if (this.options.failOpen) {
      if (!this.warned) {
        this.warned = true
        this.options.log?.warn(
          { reason },
          'rate limits are not counted while redis is unavailable (RATE_LIMIT_ON_STORE_ERROR=open)',
        )
      }
      this.options.onUncounted?.(waiting.length)
      for (const w of waiting) w.resolve(null)
      return
    }
    const err = new RateLimitStoreError(reason)
    for (const w of waiting) w.reject(err)
  }

  close(): void {
    // the link is closed by its owner (src/server.ts), which shares it with the key store
  }
}
