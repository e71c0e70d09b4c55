/**
 * REDIS_URL set: the rate limiter and the key verifier of this process, both on one Redis
 * connection (plus a subscriber for key changes), chosen in place of the in-process ones by
 * src/server.ts (docs/production.md "Several instances with Redis").
 */
import { RedisKeyVerifier } from '../auth/redis-key-verifier.js'
import type { KeyVerifier } from '../auth/types.js'
import { RedisRateLimiter } from '../rate-limit/redis.js'
import type { RateLimiter } from '../rate-limit/types.js'
import { type LinkLog, RedisLink } from './connection.js'
import { redactRedisUrl } from './url.js'

export interface SharedState {
  keys: KeyVerifier
  limiter: RateLimiter
  /** why Redis cannot be used now (for `/readyz`), or null */
  reason(): string | null
  close(): void
}

export interface SharedStateOptions {
  url: string
  timeoutMs: number
  /** RATE_LIMIT_ON_STORE_ERROR=open */
  failOpen: boolean
  log: LinkLog
  /** told of requests served uncounted (the metrics) */
  onUncounted?: (n: number) => void
  /** ms the start waits for Redis before serving anyway (answering 503 until it comes) */
  connectWaitMs?: number
}

export async function openSharedState(o: SharedStateOptions): Promise<SharedState> {
  const link = new RedisLink(o.url, { timeoutMs: o.timeoutMs, name: `landdata-${process.pid}`, log: o.log })
  const limiter = new RedisRateLimiter(link, { failOpen: o.failOpen, onUncounted: o.onUncounted, log: o.log })
  const keys = new RedisKeyVerifier(link, link.duplicate(`landdata-${process.pid}-keys`), { log: o.log })
  if (await link.ready(o.connectWaitMs ?? 2000)) {
    await keys.poll()
    o.log.info({ redis: redactRedisUrl(o.url) }, 'redis: rate limits and API keys shared')
  }
  return {
    keys,
    limiter,
    reason: () => link.reason(),
    close() {
      keys.close()
      link.close()
    },
  }
}
