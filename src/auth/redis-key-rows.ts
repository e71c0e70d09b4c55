/**
 * The key store as Redis holds it (REDIS_URL; docs/production.md "Several instances with
 * Redis"): the names of its Redis keys and a key's row as a Redis hash. The hash's fields are the
 * SQLite table's columns (key-rows.ts), so a row reads back through the same `rowToRecord`. Only
 * SHA-256 digests of keys are stored (hex), never a key.
 *
 * - `apikey:<id>`: one hash per key; a NULL column is an absent field;
 * - `apikeys`: the set of ids;
 * - `apikeys:used`: id -> the last Johannesburg day a request verified with the key, kept apart
 *   so that recording a use never invalidates the servers' caches;
 * - `apikeys:version`: incremented by every change;
 * - channel `apikeys:changed`: `<version>:<id>` published after every change.
 */
import type { KeyRow } from './key-rows.js'

export const KEY_IDS = 'apikeys'
export const USED_DAYS = 'apikeys:used'
export const KEYS_VERSION = 'apikeys:version'
export const KEYS_CHANNEL = 'apikeys:changed'

export function recordKey(id: string): string {
  return `apikey:${id}`
}

/** The hash fields of a row (without `last_used`, kept in {@link USED_DAYS}). */
export function rowToHash(row: KeyRow): Record<string, string> {
  const h: Record<string, string> = {
    id: row.id,
    digest: row.digest.toString('hex'),
    products: row.products,
    countries: row.countries,
    cities: row.cities,
    rate_per_minute: String(row.rate_per_minute),
    status: row.status,
    created_at: row.created_at,
  }
  if (row.expires !== null) h.expires = row.expires
  if (row.prev_digest !== null) h.prev_digest = row.prev_digest.toString('hex')
  if (row.prev_until !== null) h.prev_until = row.prev_until
  if (row.name !== null) h.name = row.name
  if (row.tile_rate_per_minute !== null) h.tile_rate_per_minute = String(row.tile_rate_per_minute)
  if (row.bulk_rows_per_day !== null) h.bulk_rows_per_day = String(row.bulk_rows_per_day)
  return h
}

const HEX_DIGEST = /^[0-9a-f]{64}$/

/** The row of a hash read back (HGETALL), or null when there is none (an empty hash) or it is not a key. */
export function hashToRow(h: Record<string, string>, lastUsed: string | null): KeyRow | null {
  if (!h.id || !HEX_DIGEST.test(h.digest ?? '')) return null
  return {
    id: h.id,
    digest: Buffer.from(h.digest, 'hex'),
    products: h.products,
    countries: h.countries,
    cities: h.cities ?? '{}',
    expires: h.expires ?? null,
    rate_per_minute: Number(h.rate_per_minute),
    tile_rate_per_minute: h.tile_rate_per_minute ? Number(h.tile_rate_per_minute) : null,
    bulk_rows_per_day: h.bulk_rows_per_day ? Number(h.bulk_rows_per_day) : null,
    status: h.status as KeyRow['status'],
    created_at: h.created_at,
    prev_digest: h.prev_digest && HEX_DIGEST.test(h.prev_digest) ? Buffer.from(h.prev_digest, 'hex') : null,
    prev_until: h.prev_until ?? null,
    name: h.name ?? null,
    last_used: lastUsed,
  }
}

/** Records a use only forward (two instances marking one key on one day write once between them). */
export const MARK_USED_SCRIPT = `
local day = redis.call('HGET', KEYS[1], ARGV[1])
if (not day) or day < ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
`
