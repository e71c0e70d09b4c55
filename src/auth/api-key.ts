import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Readable, greppable prefix of every key (like GitHub's `ghp_` or Stripe's `sk_live_`). */
export const KEY_PREFIX = 'ldk'
/** Length of the public lookup id, in base62 characters. */
export const KEY_ID_LENGTH = 8
/** Length of the secret, in base62 characters: 32 × log2(62) ≈ 190 bits of entropy. */
export const KEY_SECRET_LENGTH = 32

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
// 248 = 4 × 62: bytes at or above it are discarded so every character is equally likely.
const REJECT_FROM = 256 - (256 % BASE62.length)
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}_([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{${KEY_SECRET_LENGTH}})$`)

/**
 * `length` uniformly random base62 characters. Uses rejection sampling (bytes >= 248 are
 * dropped) rather than `byte % 62`, which would make the first eight characters ~25% likelier.
 * `source` is injectable for tests; it defaults to `crypto.randomBytes`.
 */
export function randomBase62(length: number, source: (n: number) => Buffer = randomBytes): string {
  let out = ''
  while (out.length < length) {
    // Ask for a little more than needed: ~3% of bytes are rejected.
    const bytes = source(Math.ceil((length - out.length) * 1.1) + 2)
    for (const b of bytes) {
      if (b >= REJECT_FROM) continue
      out += BASE62[b % BASE62.length]
      if (out.length === length) break
    }
  }
  return out
}

/**
 * A new key `ldk_<id>_<secret>` and its public id; `id` given: a new secret for that id (a
 * rotation). The key is shown once and never stored.
 */
export function generateApiKey(id = randomBase62(KEY_ID_LENGTH)): { key: string; id: string } {
  const secret = randomBase62(KEY_SECRET_LENGTH)
  return { key: `${KEY_PREFIX}_${id}_${secret}`, id }
}

/**
 * Splits a presented key into id and secret. Strict: exact prefix, lengths and charset, no
 * surrounding whitespace; anything else (including non-strings) is null, i.e. MALFORMED.
 */
export function parseApiKey(raw: unknown): { id: string; secret: string } | null {
  if (typeof raw !== 'string' || raw.length !== KEY_PREFIX.length + KEY_ID_LENGTH + KEY_SECRET_LENGTH + 2) return null
  const m = KEY_PATTERN.exec(raw)
  return m ? { id: m[1], secret: m[2] } : null
}

/**
 * SHA-256 of the whole key string (prefix and id included). A fast hash is enough because the
 * key carries ~190 random bits: there is nothing to brute-force, so no slow KDF is needed.
 */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest()
}

/**
 * Constant-time digest comparison. Why: an early-exit `===` leaks how many leading bytes
 * matched through timing. `timingSafeEqual` throws on different lengths, so callers compare
 * fixed-length digests; a length mismatch (never expected) is simply "not equal".
 */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  if (a.length !== b.length) return false
  return timingSafeEqual(a, b)
}
