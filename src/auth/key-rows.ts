/**
 * The key store's table as SQLite holds it: the row, the schema (and the columns added in place
 * to stores made before them), and the row as the frozen `ApiKeyRecord` the rest of the code
 * reads. Only SHA-256 digests of keys are stored, never a key.
 */
import { DEFAULT_RATE_PER_MINUTE } from './key-options.js'
import type { ApiKeyRecord, Country, KeyStatus, Product } from './types.js'

export interface KeyRow {
  id: string
  digest: Buffer
  products: string
  countries: string
  cities: string
  expires: string | null
  rate_per_minute: number
  status: KeyStatus
  created_at: string
  /** the digest of the secret a rotation replaced, valid through `prev_until` (see rotate) */
  prev_digest: Buffer | null
  prev_until: string | null
}

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_key (
  id              TEXT PRIMARY KEY,
  digest          BLOB NOT NULL CHECK (length(digest) = 32),
  products        TEXT NOT NULL,
  countries       TEXT NOT NULL,
  cities          TEXT NOT NULL DEFAULT '{}',
  expires         TEXT NULL,
  rate_per_minute INTEGER NOT NULL DEFAULT ${DEFAULT_RATE_PER_MINUTE},
  status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'revoked')),
  created_at      TEXT NOT NULL,
  prev_digest     BLOB NULL,
  prev_until      TEXT NULL
)`

/** Columns added after the first stores were made: added in place when missing. */
export const ADDED_COLUMNS: [string, string][] = [
  ['prev_digest', 'BLOB NULL'],
  ['prev_until', 'TEXT NULL'],
]

export function rowToRecord(row: KeyRow): ApiKeyRecord {
  const cities = JSON.parse(row.cities) as Partial<Record<Country, string[]>>
  for (const towns of Object.values(cities)) Object.freeze(towns)
  // Frozen: records are shared with the cache, so a caller must not be able to edit them.
  return Object.freeze({
    id: row.id,
    products: Object.freeze(JSON.parse(row.products)) as Product[],
    countries: Object.freeze(JSON.parse(row.countries)) as Country[],
    cities: Object.freeze(cities),
    expires: row.expires,
    ratePerMinute: row.rate_per_minute,
    status: row.status,
    createdAt: row.created_at,
  })
}
