/**
 * One connection to the Redis that instances share (REDIS_URL, docs/production.md "Several
 * instances with Redis"): ioredis set up to fail fast rather than queue, and the connection's
 * state in words for `/readyz`. Nothing here knows what is stored; the rate limiter
 * (src/rate-limit/redis.ts) and the key store (src/auth/redis-key-*.ts) use it.
 */
import { Redis, type RedisOptions } from 'ioredis'
import { redactRedisUrl } from './url.js'

/** What the link reports its outages to (pino's logger fits). */
export interface LinkLog {
  warn(o: object, msg: string): void
  info(o: object, msg: string): void
}

export interface RedisLinkOptions {
  /** ms a command may take before it counts as failed (REDIS_TIMEOUT_MS) */
  timeoutMs: number
  /** the connection's name in Redis's CLIENT LIST */
  name: string
  log?: LinkLog
}

/**
 * Why these options: with Redis away, a request must be answered at once (503), not parked.
 * `enableOfflineQueue: false` fails a command sent while disconnected instead of queueing it, so
 * nothing piles up during an outage; `maxRetriesPerRequest: 0` and no resending mean a count in
 * flight when the connection drops is failed, never sent twice. ioredis keeps reconnecting (at
 * most a second apart), so service resumes by itself when Redis is back.
 */
export function redisOptions(name: string, timeoutMs: number): RedisOptions {
  return {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(times * 100, 1000),
    connectTimeout: Math.max(1000, timeoutMs * 4),
    disableClientInfo: true,
  }
}

/** A command that did not answer within the timeout: counts as a failure of the link. */
export class RedisTimeoutError extends Error {}

/**
 * Rejects with RedisTimeoutError when `p` has not settled within `ms`. One timer per call: used
 * for a batch of counts or a key lookup, never per count. Why the timer's end waits for
 * setImmediate: a process busy for longer than `ms` (a burst, a GC) runs its due timers before it
 * reads its sockets, so a reply already received would count as late; the check after the I/O
 * phase blames Redis only for a reply that has really not come.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!settled) reject(new RedisTimeoutError(`redis: ${what}: no answer within ${ms} ms`))
        }),
      ms,
    )
    p.then(
      (v) => {
        settled = true
        clearTimeout(timer)
        resolve(v)
      },
      (err) => {
        settled = true
        clearTimeout(timer)
        reject(err)
      },
    )
  })
}

/** A connection and its health: `reason()` is null while Redis answers, else why not. */
export class RedisLink {
  readonly client: Redis
  readonly timeoutMs: number
  private lastError: string | null = null
  /** a command that timed out or failed on a live connection, until the next one succeeds */
  private slow: string | null = null
  private down = false
  private readonly listeners: ((up: boolean) => void)[] = []

  constructor(
    readonly url: string,
    private readonly options: RedisLinkOptions,
  ) {
    this.timeoutMs = options.timeoutMs
    this.client = new Redis(url, redisOptions(options.name, options.timeoutMs))
    // an 'error' listener is required (else ioredis prints each failed reconnect to stderr)
    this.client.on('error', (err: Error) => {
      this.lastError = err.message
      this.outage()
    })
    this.client.on('close', () => this.outage())
    this.client.on('ready', () => {
      this.lastError = null
      this.slow = null
      if (this.down) {
        this.down = false
        options.log?.info({ redis: redactRedisUrl(url) }, 'redis: available again')
        for (const l of this.listeners) l(true)
      }
    })
  }

  /** Why Redis cannot be used now, or null. */
  reason(): string | null {
    const status = this.client.status
    if (status === 'ready') return this.slow
    if (this.lastError !== null) return `redis: ${this.lastError}`
    return status === 'connecting' || status === 'connect' || status === 'wait'
      ? 'redis: connecting'
      : `redis: ${status}`
  }

  /** A command failed or timed out on a connection that looks alive: Redis is unavailable until one succeeds. */
  failed(err: Error): void {
    if (this.client.status === 'ready')
      this.slow = err.message.startsWith('redis') ? err.message : `redis: ${err.message}`
    this.outage()
  }

  /** A command answered: the link is healthy again if only slowness was wrong. */
  succeeded(): void {
    if (this.slow !== null) {
      this.slow = null
      if (this.client.status === 'ready' && this.down) {
        this.down = false
        this.options.log?.info({ redis: redactRedisUrl(this.url) }, 'redis: available again')
        for (const l of this.listeners) l(true)
      }
    }
  }

  /** Called with false when an outage starts and true when it ends. */
  onChange(listener: (up: boolean) => void): void {
    this.listeners.push(listener)
  }

  /** Resolves true once connected, false when `ms` pass first (the start goes on; `/readyz` says why). */
  async ready(ms: number): Promise<boolean> {
    if (this.client.status === 'ready') return true
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.client.off('ready', onReady)
        resolve(false)
      }, ms)
      const onReady = () => {
        clearTimeout(timer)
        resolve(true)
      }
      this.client.once('ready', onReady)
    })
  }

  /** Another connection to the same Redis (a subscriber cannot send ordinary commands). */
  duplicate(name: string): Redis {
    const sub = new Redis(this.url, { ...redisOptions(name, this.timeoutMs), enableOfflineQueue: true })
    sub.on('error', () => {})
    return sub
  }

  close(): void {
    this.client.disconnect()
  }

  // logged once per outage: the first failure, not every reconnect attempt
  private outage(): void {
    if (this.down) return
    const reason = this.reason()
    if (reason === null) return
    this.down = true
    this.options.log?.warn({ redis: redactRedisUrl(this.url), reason }, 'redis: unavailable')
    for (const l of this.listeners) l(false)
  }
}
