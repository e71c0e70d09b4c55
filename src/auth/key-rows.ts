/**
 * The key store's table as SQLite holds it: the row, the schema (and the columns added in place
 * to stores made before them), and the row as the frozen `ApiKeyRecord` the rest of the code
 * reads. Only SHA-256 digests of keys are stored, never a key.
 */
import { mkdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
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
  /** tile requests per minute; null: the server's default */
  tile_rate_per_minute: number | null
  /** bulk job rows a day; null: the server's default */
  bulk_rows_per_day: number | null
  status: KeyStatus
  created_at: string
  /** the digest of the secret a rotation replaced, valid through `prev_until` (see rotate) */
  prev_digest: Buffer | null
  prev_until: string | null
  /** a label for people (the customer, the project); not used to verify */
  name: string | null
  /** the last Johannesburg day a request verified with the key */
  last_used: string | null
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
  prev_until      TEXT NULL,
  name            TEXT NULL,
  last_used       TEXT NULL,
  tile_rate_per_minute INTEGER NULL,
  bulk_rows_per_day INTEGER NULL
)`

/** Columns added after the first stores were made: added in place when missing. */
export const ADDED_COLUMNS: [string, string][] = [
  ['prev_digest', 'BLOB NULL'],
  ['prev_until', 'TEXT NULL'],
  ['name', 'TEXT NULL'],
  ['last_used', 'TEXT NULL'],
  ['tile_rate_per_minute', 'INTEGER NULL'],
  ['bulk_rows_per_day', 'INTEGER NULL'],
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
    tileRatePerMinute: row.tile_rate_per_minute ?? null,
    bulkRowsPerDay: row.bulk_rows_per_day ?? null,
    status: row.status,
    createdAt: row.created_at,
    name: row.name ?? null,
    lastUsed: row.last_used ?? null,
  })
}

/** The statements of the key store, prepared once per connection. */
export function prepareKeyStatements(db: Database.Database) {
  return {
    get: db.prepare<[string], KeyRow>('SELECT * FROM api_key WHERE id = ?'),
    list: db.prepare<[], KeyRow>('SELECT * FROM api_key ORDER BY created_at, id'),
    count: db.prepare<[], number>('SELECT count(*) FROM api_key').pluck(),
    insert: db.prepare<[Omit<KeyRow, 'prev_digest' | 'prev_until' | 'last_used'>]>(
      `INSERT INTO api_key (id, digest, products, countries, cities, expires, rate_per_minute, tile_rate_per_minute,
         bulk_rows_per_day, status, created_at, name)
       VALUES (@id, @digest, @products, @countries, @cities, @expires, @rate_per_minute, @tile_rate_per_minute,
         @bulk_rows_per_day, @status, @created_at, @name)`,
    ),
    setStatus: db.prepare<[KeyStatus, string]>('UPDATE api_key SET status = ? WHERE id = ?'),
    setExpires: db.prepare<[string | null, string]>('UPDATE api_key SET expires = ? WHERE id = ?'),
    setRate: db.prepare<[number, string]>('UPDATE api_key SET rate_per_minute = ? WHERE id = ?'),
    setGrants: db.prepare<[string, string, string, number, number | null, number | null, string | null, string]>(
      'UPDATE api_key SET products = ?, countries = ?, cities = ?, rate_per_minute = ?, tile_rate_per_minute = ?, ' +
        'bulk_rows_per_day = ?, name = ? WHERE id = ?',
    ),
    remove: db.prepare<[string]>('DELETE FROM api_key WHERE id = ?'),
    setSecret: db.prepare<[Buffer, Buffer | null, string | null, string]>(
      'UPDATE api_key SET digest = ?, prev_digest = ?, prev_until = ? WHERE id = ?',
    ),
    // only forward: two workers marking the same key on one day write once between them
    markUsed: db.prepare<[string, string, string]>(
      'UPDATE api_key SET last_used = ? WHERE id = ? AND (last_used IS NULL OR last_used < ?)',
    ),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  }
}

export type KeyStatements = ReturnType<typeof prepareKeyStatements>

/**
 * Opens the key database at `path` (creating file, parent directory and table if missing), with
 * the columns added since the first stores were made.
 */
export function openKeyDatabase(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  try {
    // busy_timeout first: the server and the CLI may open the same file at the same moment.
    db.pragma('busy_timeout = 5000')
    // WAL: the CLI's writes never block the server's reads.
    db.pragma('journal_mode = WAL')
    db.exec(SCHEMA)
    const have = new Set((db.pragma('table_info(api_key)') as { name: string }[]).map((c) => c.name))
    for (const [name, type] of ADDED_COLUMNS)
      if (!have.has(name)) db.exec(`ALTER TABLE api_key ADD COLUMN ${name} ${type}`)
  } catch (err) {
    db.close()
    throw err
  }
  return db
}

/** The file's inode, or null (in memory, or gone). */
export function inodeOf(path: string): number | null {
  if (path === ':memory:') return null
  return statSync(path, { throwIfNoEntry: false })?.ino ?? null
}
