/**
 * The API key store (SQLite), with the verification cache on the request path; the terms a key
 * is issued with, and their checks, are in key-options.ts.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { performance } from 'node:perf_hooks'
import type Database from 'better-sqlite3'
import { generateApiKey, hashApiKey, parseApiKey } from './api-key.js'
import { checkKey, entryOfRow, type KeyEntry } from './key-check.js'
import { addDays, johannesburgDate } from './dates.js'
import {
  changedGrants,
  checkOverlapDays,
  type GrantChanges,
  normaliseExpires,
  normaliseIssue,
  normaliseRate,
  type IssueKeyOptions,
} from './key-options.js'
import {
  type KeyRow,
  type KeyStatements,
  inodeOf,
  openKeyDatabase,
  prepareKeyStatements,
  rowToRecord,
} from './key-rows.js'
import type { ApiKeyRecord, KeyVerifier, VerifyResult } from './types.js'
import { KeyNotFoundError, KeyStateError } from './key-errors.js'

export { KeyNotFoundError, KeyStateError }

/** Tuning for {@link SqliteKeyStore}; the defaults suit production. */
export interface SqliteKeyStoreOptions {
  /** Minimum interval between checks for changes committed by other processes, ms. Default 250. */
  recheckMs?: number
  /** Monotonic clock in ms, injectable for tests. Default `performance.now`. */
  clock?: () => number
}

/**
 * API keys in a SQLite file, shared between the server (which verifies) and the `keys` CLI
 * (which issues and changes keys from another process). Only the SHA-256 digest of each key is
 * stored, never the key itself.
 */
export class SqliteKeyStore implements KeyVerifier {
  private db: Database.Database
  private readonly recheckMs: number
  private readonly clock: () => number
  private stmt: KeyStatements
  /** The file's inode when opened: another file moved into its place (a restore) is reopened. */
  private inode: number | null
  /** The day each key was last marked used by this process: one write per key and day at most. */
  private readonly markedUsed = new Map<string, string>()
  /**
   * Verification cache, id -> digest + record. Bounded by the number of issued keys (keys are
   * issued by hand), and only ids that exist are cached, so unknown ids cannot grow it.
   */
  private readonly cache = new Map<string, KeyEntry>()
  /**
   * Presented keys whose digest matched, key -> id: a repeat request skips the SHA-256 (~10 µs
   * with node:crypto's object set-up, a twentieth of a small request). Why a Map and not `===`
   * against a stored key: a Map lookup hashes the whole string and compares characters only on
   * a full hash match, so its time says nothing about how much of a guessed secret is right.
   * Only keys that verified enter it, so it is bounded by the issued keys; it is emptied with
   * the cache.
   */
  private readonly verified = new Map<string, string>()
  private dataVersion: number
  private lastCheck: number
  /** the file was deleted from its path while open (see noticeMissing) */
  private missing = false

  /** Opens (creating file, parent directory and table if missing) the key store at `path`. */
  constructor(
    private readonly path: string,
    options: SqliteKeyStoreOptions = {},
  ) {
    this.db = openKeyDatabase(path)
    this.inode = inodeOf(path)
    this.recheckMs = options.recheckMs ?? 250
    this.clock = options.clock ?? (() => performance.now())
    this.stmt = prepareKeyStatements(this.db)
    this.dataVersion = this.stmt.dataVersion.get() as number
    this.lastCheck = this.clock()
  }

  /**
   * Checks a presented key. Order: missing, malformed, unknown id or wrong secret (one answer
   * for both, so a caller cannot tell a real id from a made-up one by the code), then revoked,
   * suspended, expired. Never throws for any input except after {@link close}.
   */
  verify(rawKey: string | undefined, now: Date | number): VerifyResult {
    if (rawKey === undefined || rawKey === '') return { ok: false, code: 'MISSING' }
    // a key seen before skips the parse and the digest (see `verified`)
    let id = this.verified.get(rawKey)
    const seen = id !== undefined
    if (id === undefined) {
      const parsed = parseApiKey(rawKey)
      if (!parsed) return { ok: false, code: 'MALFORMED' }
      id = parsed.id
    }
    const entry = this.lookup(id)
    // the file was deleted while open: no key is checked against what is left of it, as none
    // is at start without a store (503 until the file is back: `keys restore` or `keys init`)
    if (this.missing) return { ok: false, code: 'UNAVAILABLE', reason: `the key store ${this.path} is missing` }
    const r = checkKey(rawKey, seen, entry, now, this.verified)
    if (r.ok) this.markUsed(r.key.id, now)
    return r
  }

  /**
   * Records the day a key was used, written once per key and day by this process (a failed
   * write, on a read-only store, is not the request's problem: it is skipped).
   */
  private markUsed(id: string, now: Date | number): void {
    const day = johannesburgDate(now)
    if (this.markedUsed.get(id) === day) return
    this.markedUsed.set(id, day)
    try {
      this.stmt.markUsed.run(day, id, day)
    } catch {
      // read-only file or busy beyond the timeout: the count of use is informational
    }
  }

  /**
   * Issues a new key. The returned `key` is the only time the secret exists outside the caller:
   * show it once; the store keeps only its SHA-256 digest.
   */
  issue(opts: IssueKeyOptions): { key: string; record: ApiKeyRecord } {
    const {
      products,
      countries,
      cities,
      expires,
      ratePerMinute: rate,
      tileRatePerMinute,
      bulkRowsPerDay,
      name,
    } = normaliseIssue(opts)
    const createdAt = new Date().toISOString()
    // 62^8 ids make a collision vanishingly rare; retry rather than fail if one happens.
    for (let attempt = 0; ; attempt++) {
      const { key, id } = generateApiKey()
      try {
        this.stmt.insert.run({
          id,
          digest: hashApiKey(key),
          products: JSON.stringify(products),
          countries: JSON.stringify(countries),
          cities: JSON.stringify(cities),
          expires,
          rate_per_minute: rate,
          tile_rate_per_minute: tileRatePerMinute,
          bulk_rows_per_day: bulkRowsPerDay,
          status: 'active',
          created_at: createdAt,
          name,
        })
      } catch (err) {
        if (attempt < 5 && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') continue
        throw err
      }
      return { key, record: this.mustGet(id) }
    }
  }

  /** All keys, oldest first. Reads the database, not the cache, so it is always current. */
  list(): ApiKeyRecord[] {
    return this.stmt.list.all().map(rowToRecord)
  }

  /** Every key's row as stored (digests included), oldest first: what `keys migrate` copies. */
  rows(): KeyRow[] {
    return this.stmt.list.all()
  }

  /** The key with this id, read from the database, or null. */
  get(id: string): ApiKeyRecord | null {
    const row = this.stmt.get.get(id)
    return row ? rowToRecord(row) : null
  }

  /** Number of keys of any status. */
  count(): number {
    return this.stmt.count.get() as number
  }

  /** Suspends a key (reversible with {@link unsuspend}). Throws KeyStateError for a revoked key. */
  suspend(id: string): ApiKeyRecord {
    return this.change(id, (current) => {
      if (current.status === 'revoked')
        throw new KeyStateError(id, `API key '${id}' is revoked; it cannot be suspended`)
      this.stmt.setStatus.run('suspended', id)
    })
  }

  /** Reinstates a suspended key. Throws KeyStateError for a revoked key: a revoked key cannot come back. */
  unsuspend(id: string): ApiKeyRecord {
    return this.change(id, (current) => {
      if (current.status === 'revoked') {
        throw new KeyStateError(id, `API key '${id}' is revoked; a revoked key cannot be reinstated (issue a new one)`)
      }
      this.stmt.setStatus.run('active', id)
    })
  }

  /** Revokes a key for good. Idempotent. */
  revoke(id: string): ApiKeyRecord {
    return this.change(id, () => {
      this.stmt.setStatus.run('revoked', id)
    })
  }

  /** Sets or clears (null) the key's last valid day. */
  redate(id: string, expires: string | null): ApiKeyRecord {
    const value = normaliseExpires(expires)
    return this.change(id, () => {
      this.stmt.setExpires.run(value, id)
    })
  }

  /** Sets the key's per-minute allowance (integer 1..1,000,000). */
  setRate(id: string, n: number): ApiKeyRecord {
    const value = normaliseRate(n)
    return this.change(id, () => {
      this.stmt.setRate.run(value, id)
    })
  }

  /**
   * Changes what an existing key grants (products, countries, towns, rate) or its name, the key string
   * unchanged, as a customer adding a product expects. Towns of a country the key no longer
   * covers are dropped; what is not given stays as it was.
   */
  update(id: string, changes: GrantChanges): ApiKeyRecord {
    return this.change(id, (current) => {
      const g = changedGrants(current, changes)
      this.stmt.setGrants.run(
        JSON.stringify(g.products),
        JSON.stringify(g.countries),
        JSON.stringify(g.cities),
        g.ratePerMinute,
        g.tileRatePerMinute,
        g.bulkRowsPerDay,
        g.name,
        id,
      )
    })
  }

  /**
   * A new secret for a key, its id and grants unchanged; the old secret keeps working through
   * `overlapDays` more days (0: it stops at once), so a client can switch without an outage.
   * Returns the new key, shown once. A revoked key cannot be rotated.
   */
  rotate(id: string, overlapDays: number, today: string): { key: string; record: ApiKeyRecord } {
    checkOverlapDays(overlapDays)
    const { key } = generateApiKey(id)
    const record = this.change(id, (current) => {
      if (current.status === 'revoked') throw new KeyStateError(id, `API key '${id}' is revoked; it cannot be rotated`)
      const old = this.stmt.get.get(id)!.digest
      const until = overlapDays > 0 ? addDays(today, overlapDays) : null
      this.stmt.setSecret.run(hashApiKey(key), until ? old : null, until, id)
    })
    return { key, record }
  }

  /** Deletes a key and its record for good (revoke keeps the record). Throws KeyNotFoundError. */
  delete(id: string): void {
    this.change(
      id,
      () => {
        this.stmt.remove.run(id)
      },
      false,
    )
  }

  /**
   * A consistent copy of the store at `file` (SQLite's online backup), safe while the server
   * runs and the CLI writes: the copy is one committed state of the file.
   */
  async backup(file: string): Promise<void> {
    mkdirSync(dirname(file), { recursive: true })
    await this.db.backup(file)
  }

  /** Closes the database. Idempotent; the store is unusable afterwards. */
  close(): void {
    this.cache.clear()
    this.verified.clear()
    if (this.db.open) this.db.close()
  }

  /**
   * Cached lookup for the hot path. Why this invalidation: another process (the `keys` CLI)
   * changes keys while the server runs, and a suspension must bite within 2 s without a
   * restart. `PRAGMA data_version` changes whenever another connection commits to the file,
   * so when it moves the whole cache is dropped. Reading it costs ~2 µs (measured with
   * better-sqlite3 12, about the same as the indexed SELECT it saves), so it is read at most
   * every `recheckMs` (250 ms): a verify is then a Map lookup plus a SHA-256, and other
   * processes' changes show within 250 ms. This connection's own writes don't move
   * data_version; {@link change} evicts those entries itself.
   */
  private lookup(id: string): KeyEntry | null {
    const t = this.clock()
    if (t - this.lastCheck >= this.recheckMs) {
      this.lastCheck = t
      // a store restored from a backup is a new file at the same path: read it, not the old one
      const inode = inodeOf(this.path)
      if (inode === null && this.inode !== null) this.noticeMissing()
      else if (inode !== null && inode !== this.inode) this.reopen(inode)
      const v = this.stmt.dataVersion.get() as number
      if (v !== this.dataVersion) {
        this.dataVersion = v
        this.cache.clear()
        this.verified.clear()
      }
    }
    let entry = this.cache.get(id)
    if (!entry) {
      const row = this.stmt.get.get(id)
      if (!row) return null
      entry = entryOfRow(row)
      this.cache.set(id, entry)
    }
    return entry
  }

  /**
   * Reads the file now at the path. Copying or moving a file over a store in WAL mode while it is
   * open is unsafe (a connection may still read the old write-ahead log with it), so this also
   * warns once: `keys restore FILE` copies a backup in through SQLite's backup API instead, which
   * every open connection sees at once.
   */
  /**
   * The file is gone from its path (deleted, or moved away): every verification answers
   * UNAVAILABLE until a file is there again, and the first notice is logged. The old file, still
   * open, would keep serving keys that can no longer be suspended.
   */
  private noticeMissing(): void {
    if (this.missing) return
    this.missing = true
    this.cache.clear()
    this.verified.clear()
    process.emitWarning(
      `the key store ${this.path} was deleted while open: no API key is accepted until it is back ` +
        '(`npm run keys -- restore FILE`, or `keys init` for an empty one)',
    )
  }

  private reopen(inode: number): void {
    process.emitWarning(
      `the key store ${this.path} was replaced while open; reopened. Use \`npm run keys -- restore FILE\` to ` +
        'restore a backup safely',
    )
    this.missing = false
    this.db.close()
    const db = openKeyDatabase(this.path)
    this.db = db
    this.inode = inode
    this.stmt = prepareKeyStatements(db)
    this.dataVersion = this.stmt.dataVersion.get() as number
    this.cache.clear()
    this.verified.clear()
    this.markedUsed.clear()
  }

  private mustGet(id: string): ApiKeyRecord {
    const r = this.get(id)
    if (!r) throw new KeyNotFoundError(id)
    return r
  }

  /** Read-check-write in one IMMEDIATE transaction, so a concurrent CLI cannot slip in between. */
  private change(id: string, apply: (current: ApiKeyRecord) => void, reread = true): ApiKeyRecord {
    const run = this.db.transaction(() => {
      const current = this.mustGet(id)
      apply(current)
      return reread ? this.mustGet(id) : current
    })
    try {
      return run.immediate()
    } finally {
      this.cache.delete(id)
      for (const [raw, keyId] of this.verified) if (keyId === id) this.verified.delete(raw)
    }
  }
}
