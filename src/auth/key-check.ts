/**
 * Verifying a presented key against what a store keeps of it (its digests and record): the
 * part the SQLite store and the Redis store share, so both answer exactly alike.
 */
import { digestsEqual, hashApiKey } from './api-key.js'
import { johannesburgDate } from './dates.js'
import type { KeyRow } from './key-rows.js'
import { rowToRecord } from './key-rows.js'
import type { ApiKeyRecord, VerifyResult } from './types.js'

/** What a store keeps in process about one key to verify it. */
export interface KeyEntry {
  digest: Buffer
  /** the replaced secret's digest while its overlap lasts, else null */
  prevDigest: Buffer | null
  prevUntil: string | null
  record: ApiKeyRecord
}

export function entryOfRow(row: KeyRow): KeyEntry {
  return { digest: row.digest, prevDigest: row.prev_digest, prevUntil: row.prev_until, record: rowToRecord(row) }
}

/**
 * The verdict on `rawKey` (whose id is `entry`'s, or unknown: null). `seen`: the key is in
 * `verified` already, so its digest matched before and is not computed again. Order: unknown id
 * or wrong secret (one answer for both, so a caller cannot tell a real id from a made-up one by
 * the code), then revoked, suspended, expired.
 */
export function checkKey(
  rawKey: string,
  seen: boolean,
  entry: KeyEntry | null,
  now: Date | number,
  verified: Map<string, string>,
): VerifyResult {
  if (!entry) return { ok: false, code: 'NOT_FOUND' }
  if (!seen) {
    // Why constant time: compare digests with timingSafeEqual so response time says nothing
    // about how much of a guessed key was right.
    const digest = hashApiKey(rawKey)
    if (digestsEqual(digest, entry.digest)) verified.set(rawKey, entry.record.id)
    // the secret a rotation replaced, through its last overlap day (never cached in
    // `verified`, so it stops working on the day after without a restart)
    else if (
      !(
        entry.prevDigest !== null &&
        entry.prevUntil !== null &&
        johannesburgDate(now) <= entry.prevUntil &&
        digestsEqual(digest, entry.prevDigest)
      )
    )
      return { ok: false, code: 'NOT_FOUND' }
  }
  const key = entry.record
  if (key.status === 'revoked') return { ok: false, code: 'REVOKED', key }
  if (key.status === 'suspended') return { ok: false, code: 'SUSPENDED', key }
  // Inclusive term: the key works through the whole of its `expires` day in Johannesburg.
  if (key.expires !== null && johannesburgDate(now) > key.expires) {
    return { ok: false, code: 'EXPIRED', key, expires: key.expires }
  }
  return { ok: true, key }
}
