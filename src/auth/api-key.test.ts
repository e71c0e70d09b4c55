import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { digestsEqual, generateApiKey, hashApiKey, parseApiKey, randomBase62 } from './api-key.js'

const FORMAT = /^ldk_[0-9A-Za-z]{8}_[0-9A-Za-z]{32}$/

describe('generateApiKey', () => {
  it('produces ldk_<8 base62 id>_<32 base62 secret> and returns the id', () => {
    const { key, id } = generateApiKey()
    expect(key).toMatch(FORMAT)
    expect(key.length).toBe(45)
    expect(key.split('_')[1]).toBe(id)
    expect(parseApiKey(key)).toEqual({ id, secret: key.slice(13) })
  })

  it('carries at least 128 bits of secret entropy and never repeats', () => {
    expect(32 * Math.log2(62)).toBeGreaterThanOrEqual(128)
    const keys = new Set<string>()
    const ids = new Set<string>()
    for (let i = 0; i < 2000; i++) {
      const { key, id } = generateApiKey()
      keys.add(key)
      ids.add(id)
    }
    expect(keys.size).toBe(2000)
    expect(ids.size).toBe(2000)
  })

  it('uses every base62 character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>()
    const n = 5000
    for (let i = 0; i < n; i++) {
      for (const ch of generateApiKey().key.slice(13)) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    }
    expect(counts.size).toBe(62)
    const expected = (n * 32) / 62 // ≈ 2580, σ ≈ 50; modulo bias would put 8 chars ~21% high
    for (const c of counts.values()) {
      expect(Math.abs(c - expected) / expected).toBeLessThan(0.1)
    }
  })
})

describe('randomBase62', () => {
  it('rejects bytes >= 248 instead of folding them with modulo', () => {
    const feed = Buffer.from([255, 248, 0, 61, 62, 247, 250, 9])
    let pos = 0
    const source = (n: number) => {
      const out = Buffer.alloc(n, 255) // everything past the feed is rejected too
      feed.copy(out, 0, pos, Math.min(feed.length, pos + n))
      pos += n
      return out
    }
    // 255 and 248 skipped; 0->'0', 61->'z', 62->'0', 247->'z'; 250 skipped; 9->'9'
    expect(randomBase62(5, source)).toBe('0z0z9')
  })
})

describe('parseApiKey', () => {
  const { key } = generateApiKey()
  const id = key.slice(4, 12)
  const secret = key.slice(13)

  it.each([
    ['empty', ''],
    ['wrong prefix', `ldx_${id}_${secret}`],
    ['upper-case prefix', `LDK_${id}_${secret}`],
    ['no prefix', `${id}_${secret}`],
    ['short id', `ldk_${id.slice(1)}_${secret}`],
    ['long id', `ldk_${id}a_${secret}`],
    ['short secret', `ldk_${id}_${secret.slice(1)}`],
    ['long secret', `${key}a`],
    ['dash in secret', `ldk_${id}_${secret.slice(1)}-`],
    ['underscore in secret', `ldk_${id}_${secret.slice(1)}_`],
    ['non-ASCII letter', `ldk_${id}_${secret.slice(1)}é`],
    ['leading space', ` ${key}`],
    ['trailing newline', `${key}\n`],
    ['Bearer form', `Bearer ${key}`],
    ['extra segment', `${key}_x`],
    ['dash separators', key.replace(/_/g, '-')],
  ])('rejects %s', (_name, raw) => {
    expect(parseApiKey(raw)).toBeNull()
  })

  it('rejects non-strings', () => {
    expect(parseApiKey(undefined)).toBeNull()
    expect(parseApiKey(42)).toBeNull()
    expect(parseApiKey({ toString: () => key })).toBeNull()
  })

  it('accepts the key itself', () => {
    expect(parseApiKey(key)).toEqual({ id, secret })
  })
})

describe('hashApiKey / digestsEqual', () => {
  it('is SHA-256 of the whole string (NIST test vector)', () => {
    expect(hashApiKey('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })

  it('covers the prefix and id, not just the secret', () => {
    const { key } = generateApiKey()
    const digest = hashApiKey(key)
    expect(digest.length).toBe(32)
    expect(digest.equals(createHash('sha256').update(key.slice(13)).digest())).toBe(false)
  })

  it('compares digests exactly', () => {
    const { key } = generateApiKey()
    const a = hashApiKey(key)
    expect(digestsEqual(a, hashApiKey(key))).toBe(true)
    const flipped = Buffer.from(a)
    flipped[31] ^= 1
    expect(digestsEqual(a, flipped)).toBe(false)
    const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')
    expect(digestsEqual(a, hashApiKey(tampered))).toBe(false)
  })

  it('returns false instead of throwing on different lengths', () => {
    const a = hashApiKey('x')
    expect(digestsEqual(a, a.subarray(0, 16))).toBe(false)
    expect(digestsEqual(a, Buffer.alloc(0))).toBe(false)
  })
})
