import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { brotliOneShot, brotliReused, gzipOneShot, gzipReused } from './compressors.js'

/** Seeded JSON-like text of about `n` bytes (compressible, not trivially). */
function body(n: number, seed: number): Buffer {
  let x = seed
  const parts: string[] = []
  let len = 0
  while (len < n) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    const s = `{"id":${x % 100000},"lat":-${(x % 3000) / 100},"name":"plot ${x % 977}"},`
    parts.push(s)
    len += s.length
  }
  return Buffer.from(parts.join('').slice(0, n))
}

describe('reused compressors', () => {
  // the largest body is over the reused handle's 256 KiB output buffer when stored, to take the multi-chunk path
  const bodies = [body(300, 1), body(20_000, 2), body(600_000, 3), body(0, 4), body(1_500, 5)]

  it('give bodies that decompress to the input, call after call on one handle', () => {
    const gz = gzipReused(1)
    const br = brotliReused(1)
    for (const b of bodies) {
      expect(gunzipSync(gz(b)).equals(b)).toBe(true)
      expect(brotliDecompressSync(br(b)).equals(b)).toBe(true)
    }
    const stored = gzipReused(0)
    for (const b of bodies) expect(gunzipSync(stored(b)).equals(b)).toBe(true)
  })

  it('give the one-shot bytes at the same level', () => {
    const gz = gzipReused(1)
    const br = brotliReused(4)
    for (const b of bodies) {
      expect(gz(b).equals(gzipOneShot(1)(b))).toBe(true)
      expect(br(b).equals(brotliOneShot(4)(b))).toBe(true)
    }
  })

  it('compress harder at a higher level', () => {
    const b = bodies[1]
    expect(brotliOneShot(4)(b).length).toBeLessThan(brotliOneShot(1)(b).length)
    expect(gzipOneShot(1)(b).length).toBeLessThan(gzipOneShot(0)(b).length)
  })
})
