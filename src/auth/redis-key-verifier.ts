/**
 * The server's side of the Redis key store (REDIS_URL): verification stays local and fast. A
 * key's digests and record are read from Redis on its first request and kept in process; a
 * repeat is a Map lookup (no promise, no round trip), as with the SQLite store.
 *
 * Why this invalidation: the keys CLI changes a key on another machine, and every instance must
 * see it within 2 s without a restart. Each change publishes `<version>:<id>` on
 * `apikeys:changed` (redis-key-store.ts): the next version evicts that key only; a gap in the
 * versions clears the whole cache. Pub/sub delivers at most once, so `apikeys:version` is also
 * read every `pollMs` (1 s), and at once when the connection comes back: a missed message still
 * converges within about a second.
 *
 * Redis unavailable: a key already in the cache is still verified from it (a change can only be
 * written to Redis, and is read as soon as this instance reaches Redis again); a key not in the
 * cache cannot be checked, and answers UNAVAILABLE (503 RateLimitUnavailable), never a 401 that
 * might be wrong. Unknown ids are not cached, so made-up keys cannot grow the cache.
 */
import type { Redis } from 'ioredis'
import { type RedisLink, withTimeout } from '../redis/connection.js'
import { parseApiKey } from './api-key.js'
import { johannesburgDate } from './dates.js'
import { checkKey, entryOfRow, type KeyEntry } from './key-check.js'
import { hashToRow, KEYS_CHANNEL, KEYS_VERSION, MARK_USED_SCRIPT, recordKey, USED_DAYS } from './redis-key-rows.js'
import type { KeyVerifier, VerifyResult } from './types.js'

export interface RedisKeyVerifierOptions {
  /** ms between reads of `apikeys:version` (the fallback for a missed message). Default 1000. */
  pollMs?: number
  log?: { warn(o: object, msg: string): void }
}

type Marking = Redis & { markused(key: string, id: string, day: string): Promise<number> }

export class RedisKeyVerifier implements KeyVerifier {
  /** id -> what verifies it; only ids that exist, so bounded by the issued keys */
  private readonly cache = new Map<string, KeyEntry>()
  /** presented keys whose digest matched, key -> id (see SqliteKeyStore's `verified`) */
  private readonly verified = new Map<string, string>()
  private readonly markedUsed = new Map<string, string>()
  /** lookups on their way, by id: a burst on a key not yet cached asks Redis once */
  private readonly pending = new Map<string, Promise<KeyEntry | null>>()
  /** the last `apikeys:version` applied; null before the first read */
  private version: number | null = null
  /** bumped by every eviction: a lookup started before one does not fill the cache */
  private generation = 0
  private readonly poller: NodeJS.Timeout
  private readonly client: Marking

  constructor(
    private readonly link: RedisLink,
    private readonly subscriber: Redis,
    options: RedisKeyVerifierOptions = {},
  ) {
    this.client = link.client as Marking
    this.client.defineCommand('markused', { numberOfKeys: 1, lua: MARK_USED_SCRIPT })
    subscriber.on('message', (_channel: string, message: string) => this.onMessage(message))
    subscriber
      .subscribe(KEYS_CHANNEL)
      .catch((err: Error) => options.log?.warn({ err: err.message }, 'redis: subscribe'))
    this.poller = setInterval(() => void this.poll(), options.pollMs ?? 1000)
    this.poller.unref()
    link.onChange((up) => {
      if (up) void this.poll()
    })
  }

  /** Reads the version now (also the first read, at start): a change since the last read clears the cache. */
  async poll(): Promise<void> {
    if (this.link.client.status !== 'ready') return
    try {
      const v = Number((await withTimeout(this.client.get(KEYS_VERSION), this.link.timeoutMs, 'key version')) ?? 0)
      if (v !== this.version) {
        if (this.version !== null) this.clear()
        this.version = v
      }
    } catch {
      // the link reports the outage; the next poll tries again
    }
  }

  private onMessage(message: string): void {
    const colon = message.indexOf(':')
    const v = Number(message.slice(0, colon))
    const id = message.slice(colon + 1)
    if (this.version !== null && v === this.version + 1) {
      this.version = v
      this.evict(id)
    } else if (this.version === null || v > this.version) {
      this.clear()
      this.version = v
    }
  }

  verify(rawKey: string | undefined, now: Date | number): VerifyResult | Promise<VerifyResult> {
    if (rawKey === undefined || rawKey === '') return { ok: false, code: 'MISSING' }
    let id = this.verified.get(rawKey)
    const seen = id !== undefined
    if (id === undefined) {
      const parsed = parseApiKey(rawKey)
      if (!parsed) return { ok: false, code: 'MALFORMED' }
      id = parsed.id
    }
    const entry = this.cache.get(id)
    if (entry !== undefined) return this.settle(rawKey, seen, entry, now)
    return this.fetch(rawKey, id, now)
  }

  private async fetch(rawKey: string, id: string, now: Date | number): Promise<VerifyResult> {
    const down = this.link.client.status === 'ready' ? null : this.link.reason()
    if (down !== null) return { ok: false, code: 'UNAVAILABLE', reason: down }
    let lookup = this.pending.get(id)
    if (lookup === undefined) {
      lookup = this.lookup(id)
      this.pending.set(id, lookup)
      void lookup.finally(() => this.pending.delete(id)).catch(() => {})
    }
    let entry: KeyEntry | null
    try {
      entry = await lookup
    } catch (err) {
      return { ok: false, code: 'UNAVAILABLE', reason: (err as Error).message }
    }
    return this.settle(rawKey, false, entry, now)
  }

  /** The key's entry read from Redis (kept unless a change came meanwhile), or null when there is no such key. */
  private async lookup(id: string): Promise<KeyEntry | null> {
    const generation = this.generation
    let entry: KeyEntry | null
    try {
      const h = await withTimeout(this.client.hgetall(recordKey(id)), this.link.timeoutMs, 'key lookup')
      const row = hashToRow(h, null)
      entry = row ? entryOfRow(row) : null
      this.link.succeeded()
    } catch (err) {
      this.link.failed(err as Error)
      throw err
    }
    // a change published while the lookup was on its way may predate its answer: not kept
    if (entry && generation === this.generation) this.cache.set(id, entry)
    return entry
  }

  private settle(rawKey: string, seen: boolean, entry: KeyEntry | null, now: Date | number): VerifyResult {
    const r = checkKey(rawKey, seen, entry, now, this.verified)
    if (r.ok) this.markUsed(r.key.id, now)
    return r
  }

  /** The day a key was used, written once per key and day by this process, never waited for. */
  private markUsed(id: string, now: Date | number): void {
    const day = johannesburgDate(now)
    if (this.markedUsed.get(id) === day) return
    this.markedUsed.set(id, day)
    this.client.markused(USED_DAYS, id, day).catch(() => this.markedUsed.delete(id))
  }

  private evict(id: string): void {
    this.generation++
    this.cache.delete(id)
    for (const [raw, keyId] of this.verified) if (keyId === id) this.verified.delete(raw)
  }

  private clear(): void {
    this.generation++
    this.cache.clear()
    this.verified.clear()
  }

  close(): void {
    clearInterval(this.poller)
    this.subscriber.disconnect()
    this.clear()
  }
}
