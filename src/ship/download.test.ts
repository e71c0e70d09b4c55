import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync, zstdCompressSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { backoffMs, fetchToPart, IntegrityError, placeVerified, resumeOffset } from './download.js'
import { NotFoundError, type Source, TransientError } from './source.js'

const FAST = { retries: 3, baseMs: 1, maxMs: 4 }
const BYTES = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7) % 251))
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const tmp = () => mkdtempSync(join(tmpdir(), 'ship-download-'))

/** A source of `bytes` whose answers run as `answer` says (offsets asked are recorded). */
function fakeSource(
  bytes: Buffer,
  answer: (call: number, offset: number) => { start?: number; upTo?: number; fail?: Error },
): Source & { offsets: number[] } {
  const offsets: number[] = []
  return {
    where: 'fake',
    offsets,
    text: async () => '',
    async open(_rel, offset) {
      offsets.push(offset)
      const a = answer(offsets.length, offset)
      if (a.fail) throw a.fail
      const start = a.start ?? offset
      const end = a.upTo ?? bytes.length
      async function* body() {
        for (let i = start; i < end; i += 1000) yield bytes.subarray(i, Math.min(end, i + 1000))
        if (end < bytes.length) throw new TransientError('dropped')
      }
      return { start, body: body() }
    },
  }
}

describe('back-off and resume', () => {
  it('doubles the wait from baseMs up to maxMs', () => {
    const p = { retries: 10, baseMs: 500, maxMs: 30_000 }
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffMs(n, p))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ])
  })

  it('resumes at the end of a partial file, from 0 when it is longer than the object', () => {
    expect(resumeOffset(0, 100)).toBe(0)
    expect(resumeOffset(40, 100)).toBe(40)
    expect(resumeOffset(100, 100)).toBe(100)
    expect(resumeOffset(140, 100)).toBe(0)
  })
})

describe('fetchToPart', () => {
  it('a connection that drops every 3,000 bytes: resumed from where each stopped, the bytes whole', async () => {
    const part = join(tmp(), 'p')
    const src = fakeSource(BYTES, (_n, offset) => ({ upTo: Math.min(BYTES.length, offset + 3000) }))
    const retries: string[] = []
    await fetchToPart(src, 'o', part, BYTES.length, FAST, { retry: (e) => retries.push(e.message) })
    expect(src.offsets).toEqual([0, 3000, 6000, 9000])
    expect(readFileSync(part).equals(BYTES)).toBe(true)
    expect(retries).toHaveLength(3)
  })

  it('resumes a partial file left by an earlier run, and returns where it resumed', async () => {
    const part = join(tmp(), 'p')
    writeFileSync(part, BYTES.subarray(0, 4321))
    const src = fakeSource(BYTES, () => ({}))
    expect(await fetchToPart(src, 'o', part, BYTES.length, FAST)).toBe(4321)
    expect(src.offsets).toEqual([4321])
    expect(readFileSync(part).equals(BYTES)).toBe(true)
  })

  it('a server that ignores the range: the partial file is started again', async () => {
    const part = join(tmp(), 'p')
    writeFileSync(part, Buffer.alloc(500, 0xee))
    const src = fakeSource(BYTES, () => ({ start: 0 }))
    await fetchToPart(src, 'o', part, BYTES.length, FAST)
    expect(readFileSync(part).equals(BYTES)).toBe(true)
  })

  it('retries transient failures with back-off, then gives up saying so; never retries a 404', async () => {
    const part = join(tmp(), 'p')
    const down = fakeSource(BYTES, () => ({ fail: new TransientError('http://x/o: HTTP 503') }))
    await expect(fetchToPart(down, 'o', part, BYTES.length, FAST)).rejects.toThrow(
      'http://x/o: HTTP 503 (gave up after 3 retries)',
    )
    expect(down.offsets).toHaveLength(4)
    const missing = fakeSource(BYTES, () => ({ fail: new NotFoundError('http://x/o: HTTP 404') }))
    await expect(fetchToPart(missing, 'o', part, BYTES.length, FAST)).rejects.toBeInstanceOf(NotFoundError)
    expect(missing.offsets).toHaveLength(1)
  })

  it('refuses more bytes than were published', async () => {
    const part = join(tmp(), 'p')
    const src = fakeSource(BYTES, () => ({}))
    await expect(fetchToPart(src, 'o', part, 5000, FAST)).rejects.toBeInstanceOf(IntegrityError)
  })
})

describe('placeVerified', () => {
  const ref = { sha256: sha(BYTES), size: BYTES.length }

  it('moves checked bytes into place, uncompressing gzip and zstd', async () => {
    const dir = tmp()
    for (const [compression, stored] of [
      ['none', BYTES],
      ['gzip', gzipSync(BYTES)],
      ['zstd', zstdCompressSync(BYTES)],
    ] as const) {
      const part = join(dir, `part-${compression}`)
      writeFileSync(part, stored)
      const dest = join(dir, `out-${compression}`)
      await placeVerified(part, { ...ref, compression, stored_size: stored.length }, dest, 'x')
      expect(readFileSync(dest).equals(BYTES), compression).toBe(true)
      expect(existsSync(part)).toBe(false)
    }
  })

  it('a flipped byte or a wrong size: refused, the partial file removed, nothing in place', async () => {
    const dir = tmp()
    const flipped = Buffer.from(BYTES)
    flipped[5000] ^= 1
    for (const [name, bytes, why] of [
      ['flipped', flipped, /x: sha256 differs from the published digest/],
      ['short', BYTES.subarray(1), /x: 9999 bytes, published as 10000/],
      ['bad-gzip', Buffer.from('not gzip'), /x: does not uncompress/],
    ] as const) {
      const part = join(dir, name)
      writeFileSync(part, bytes)
      const compression = name === 'bad-gzip' ? 'gzip' : 'none'
      await expect(
        placeVerified(part, { ...ref, compression, stored_size: bytes.length }, join(dir, `out-${name}`), 'x'),
      ).rejects.toThrow(why)
      expect(existsSync(part), name).toBe(false)
      expect(existsSync(join(dir, `out-${name}`)), name).toBe(false)
    }
  })
})
