/**
 * The API key store in Redis, as the keys CLI changes it (REDIS_URL): the same commands and
 * answers as the SQLite store (key-store.ts), asynchronous. Every change is read-check-write under
 * WATCH/MULTI, so two CLIs cannot slip in between, bumps `apikeys:version` in the same
 * transaction and then publishes `<version>:<id>` on `apikeys:changed`, which every server reads
 * (redis-key-verifier.ts). The layout is in redis-key-rows.ts.
 */
import type { Redis } from 'ioredis'
import { generateApiKey, hashApiKey } from './api-key.js'
import { addDays } from './dates.js'
import { KeyNotFoundError, KeyStateError } from './key-errors.js'
import {
  changedGrants,
  checkOverlapDays,
  type GrantChanges,
  type IssueKeyOptions,
  normaliseExpires,
  normaliseIssue,
  normaliseRate,
} from './key-options.js'
import { type KeyRow, rowToRecord } from './key-rows.js'
import { hashToRow, KEY_IDS, KEYS_CHANNEL, KEYS_VERSION, recordKey, rowToHash, USED_DAYS } from './redis-key-rows.js'
import type { ApiKeyRecord } from './types.js'

/** Transactions retried when another client changed the key between the read and the write. */
const MAX_ATTEMPTS = 10

export class RedisKeyStore {
  /** `client`: a connection of its own (WATCH belongs to the connection), connected. */
  constructor(private readonly client: Redis) {}

  /** Issues a new key; the returned `key` is the only time the secret exists outside the caller. */
  async issue(opts: IssueKeyOptions): Promise<{ key: string; record: ApiKeyRecord }> {
    const t = normaliseIssue(opts)
    const createdAt = new Date().toISOString()
    // 62^8 ids make a collision vanishingly rare; retry rather than fail if one happens
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { key, id } = generateApiKey()
      const row: KeyRow = {
        id,
        digest: hashApiKey(key),
        products: JSON.stringify(t.products),
        countries: JSON.stringify(t.countries),
        cities: JSON.stringify(t.cities),
        expires: t.expires,
        rate_per_minute: t.ratePerMinute,
        tile_rate_per_minute: t.tileRatePerMinute,
        bulk_rows_per_day: t.bulkRowsPerDay,
        status: 'active',
        created_at: createdAt,
        prev_digest: null,
        prev_until: null,
        name: t.name,
        last_used: null,
      }
      await this.client.watch(recordKey(id))
      if ((await this.client.exists(recordKey(id))) === 1) {
        await this.client.unwatch()
        continue
      }
      if (await this.commit(id, row)) return { key, record: rowToRecord(row) }
    }
    throw new Error('could not issue a key: the store kept changing under the transaction')
  }

  /** All keys, oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    return (await this.rows()).map(rowToRecord)
  }

  /** Every key's row (digests included), oldest first. */
  async rows(): Promise<KeyRow[]> {
    const ids = await this.client.smembers(KEY_IDS)
    if (ids.length === 0) return []
    const p = this.client.pipeline()
    for (const id of ids) p.hgetall(recordKey(id))
    p.hmget(USED_DAYS, ...ids)
    const replies = (await p.exec()) ?? []
    const used = (replies[ids.length]?.[1] ?? []) as (string | null)[]
    const rows: KeyRow[] = []
    for (let k = 0; k < ids.length; k++) {
      const [err, h] = replies[k] ?? [new Error('no reply')]
      if (err) throw err
      const row = hashToRow(h as Record<string, string>, used[k] ?? null)
      if (row) rows.push(row)
    }
    return rows.sort((a, b) =>
      a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    )
  }

  /** The key with this id, or null. */
  async get(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.row(id)
    return row ? rowToRecord(row) : null
  }

  async count(): Promise<number> {
    return this.client.scard(KEY_IDS)
  }

  suspend(id: string): Promise<ApiKeyRecord> {
    return this.change(id, (row) => {
      if (row.status === 'revoked') throw new KeyStateError(id, `API key '${id}' is revoked; it cannot be suspended`)
      return { ...row, status: 'suspended' }
    })
  }

  unsuspend(id: string): Promise<ApiKeyRecord> {
    return this.change(id, (row) => {
      if (row.status === 'revoked')
        throw new KeyStateError(id, `API key '${id}' is revoked; a revoked key cannot be reinstated (issue a new one)`)
      return { ...row, status: 'active' }
    })
  }

  revoke(id: string): Promise<ApiKeyRecord> {
    return this.change(id, (row) => ({ ...row, status: 'revoked' }))
  }

  redate(id: string, expires: string | null): Promise<ApiKeyRecord> {
    const value = normaliseExpires(expires)
    return this.change(id, (row) => ({ ...row, expires: value }))
  }

  setRate(id: string, n: number): Promise<ApiKeyRecord> {
    const value = normaliseRate(n)
    return this.change(id, (row) => ({ ...row, rate_per_minute: value }))
  }

  update(id: string, changes: GrantChanges): Promise<ApiKeyRecord> {
    return this.change(id, (row) => {
      const g = changedGrants(rowToRecord(row), changes)
      return {
        ...row,
        products: JSON.stringify(g.products),
        countries: JSON.stringify(g.countries),
        cities: JSON.stringify(g.cities),
        rate_per_minute: g.ratePerMinute,
        tile_rate_per_minute: g.tileRatePerMinute,
        bulk_rows_per_day: g.bulkRowsPerDay,
        name: g.name,
      }
    })
  }

  /** A new secret, the old one working `overlapDays` more days (see SqliteKeyStore.rotate). */
  async rotate(id: string, overlapDays: number, today: string): Promise<{ key: string; record: ApiKeyRecord }> {
    checkOverlapDays(overlapDays)
    const { key } = generateApiKey(id)
    const record = await this.change(id, (row) => {
      if (row.status === 'revoked') throw new KeyStateError(id, `API key '${id}' is revoked; it cannot be rotated`)
      const until = overlapDays > 0 ? addDays(today, overlapDays) : null
      return { ...row, digest: hashApiKey(key), prev_digest: until ? row.digest : null, prev_until: until }
    })
    return { key, record }
  }

  async delete(id: string): Promise<void> {
    await this.change(id, () => null)
  }

  /**
   * Copies rows (from an embedded store: `keys migrate`) into Redis, digests as they are. A key
   * already in Redis is left as it is (it may have changed since), so running it again adds
   * nothing. Returns how many were added and how many were there already.
   */
  async importRows(rows: KeyRow[]): Promise<{ added: number; present: number }> {
    let added = 0
    for (const row of rows) {
      for (let attempt = 0; ; attempt++) {
        await this.client.watch(recordKey(row.id))
        if ((await this.client.exists(recordKey(row.id))) === 1) {
          await this.client.unwatch()
          break
        }
        if (await this.commit(row.id, row)) {
          if (row.last_used !== null) await this.client.hset(USED_DAYS, row.id, row.last_used)
          added++
          break
        }
        if (attempt >= MAX_ATTEMPTS) throw new Error(`could not copy key ${row.id}: it kept changing`)
      }
    }
    return { added, present: rows.length - added }
  }

  private async row(id: string): Promise<KeyRow | null> {
    const [h, used] = await Promise.all([this.client.hgetall(recordKey(id)), this.client.hget(USED_DAYS, id)])
    return hashToRow(h, used)
  }

  /** Read-check-write of one key under WATCH; `apply` returns the new row, or null to delete it. */
  private async change(id: string, apply: (row: KeyRow) => KeyRow | null): Promise<ApiKeyRecord> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await this.client.watch(recordKey(id))
      let next: KeyRow | null
      let current: KeyRow | null
      try {
        current = await this.row(id)
        if (!current) throw new KeyNotFoundError(id)
        next = apply(current)
      } catch (err) {
        await this.client.unwatch()
        throw err
      }
      if (await this.commit(id, next)) return rowToRecord(next ?? current)
    }
    throw new Error(`could not change key ${id}: it kept changing under the transaction`)
  }

  /**
   * Writes (or deletes: null) the key in one transaction with the version bump, then publishes
   * the change. False when a watched key changed first (the caller retries).
   */
  private async commit(id: string, row: KeyRow | null): Promise<boolean> {
    const m = this.client.multi().del(recordKey(id))
    if (row) m.hset(recordKey(id), rowToHash(row)).sadd(KEY_IDS, id)
    else m.srem(KEY_IDS, id).hdel(USED_DAYS, id)
    m.incr(KEYS_VERSION)
    const done = await m.exec()
    if (done === null) return false
    const failed = done.find(([err]) => err)
    if (failed) throw failed[0]
    const version = done[done.length - 1][1] as number
    await this.client.publish(KEYS_CHANNEL, `${version}:${id}`)
    return true
  }

  close(): void {
    this.client.disconnect()
  }
}
