/**
 * The store the keys CLI works on: the SQLite file at KEYS_DB, or with REDIS_URL the Redis that
 * the instances share (redis-key-store.ts); and `migrate`, which copies the one into the other.
 */
import { existsSync } from 'node:fs'
import { RedisLink } from '../redis/connection.js'
import { redactRedisUrl } from '../redis/url.js'
import type { GrantChanges, IssueKeyOptions } from './key-options.js'
import { SqliteKeyStore } from './key-store.js'
import { RedisKeyStore } from './redis-key-store.js'
import type { ApiKeyRecord } from './types.js'

type MaybePromise<T> = T | Promise<T>

/** What the CLI's commands need of a store: SqliteKeyStore answers at once, RedisKeyStore with promises. */
export interface KeyAdmin {
  issue(opts: IssueKeyOptions): MaybePromise<{ key: string; record: ApiKeyRecord }>
  list(): MaybePromise<ApiKeyRecord[]>
  get(id: string): MaybePromise<ApiKeyRecord | null>
  count(): MaybePromise<number>
  suspend(id: string): MaybePromise<ApiKeyRecord>
  unsuspend(id: string): MaybePromise<ApiKeyRecord>
  revoke(id: string): MaybePromise<ApiKeyRecord>
  redate(id: string, expires: string | null): MaybePromise<ApiKeyRecord>
  setRate(id: string, n: number): MaybePromise<ApiKeyRecord>
  update(id: string, changes: GrantChanges): MaybePromise<ApiKeyRecord>
  rotate(id: string, overlapDays: number, today: string): MaybePromise<{ key: string; record: ApiKeyRecord }>
  delete(id: string): MaybePromise<void>
  close(): void
}

/** ms the CLI waits for Redis (each command, and the connection) before it gives up, exit 1. */
const CLI_TIMEOUT_MS = 5000

/** Connects to Redis for the CLI, or throws naming why it cannot (exit 1). */
export async function openRedisKeyStore(url: string): Promise<RedisKeyStore> {
  const link = new RedisLink(url, { timeoutMs: CLI_TIMEOUT_MS, name: `landdata-keys-${process.pid}` })
  // a refused connection is an answer: no waiting for the reconnects
  const refused = new Promise<false>((resolve) => link.client.once('error', () => resolve(false)))
  if (!(await Promise.race([link.ready(CLI_TIMEOUT_MS), refused]))) {
    const reason = link.reason() ?? 'redis: not ready'
    link.close()
    throw new Error(`cannot reach the key store at ${redactRedisUrl(url)}: ${reason}`)
  }
  return new RedisKeyStore(link.client)
}

/**
 * Copies every key of the embedded store at `from` into Redis (digests only, as stored); keys
 * already in Redis are left as they are, so running it again changes nothing.
 */
export async function migrateKeys(
  from: string,
  into: RedisKeyStore,
): Promise<{ total: number; added: number; present: number }> {
  if (!existsSync(from)) throw new Error(`${from} does not exist`)
  const source = new SqliteKeyStore(from)
  try {
    const rows = source.rows()
    const { added, present } = await into.importRows(rows)
    return { total: rows.length, added, present }
  } finally {
    source.close()
  }
}
