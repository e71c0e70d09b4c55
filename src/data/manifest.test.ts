import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { buildDigest } from './manifest.js'

const FILES = [
  { path: 'a/x.u32', sha256: '1'.repeat(64), size: 4 },
  { path: 'a/x.u32.b', sha256: '2'.repeat(64), size: 0 },
  { path: 'b.sqlite', sha256: 'ab'.repeat(32), size: 4096 },
]

describe('buildDigest', () => {
  it('is the SHA-256 of the sorted path, sha256 and size lines, pinned (datasets carry it)', () => {
    const lines = ['a/x.u32\t' + '1'.repeat(64) + '\t4\n', 'a/x.u32.b\t' + '2'.repeat(64) + '\t0\n']
    lines.push('b.sqlite\t' + 'ab'.repeat(32) + '\t4096\n')
    expect(buildDigest(FILES)).toBe(createHash('sha256').update(lines.join('')).digest('hex'))
    expect(buildDigest(FILES)).toBe('ccdb56ae3078ea4c808aae4544ff825d5e5127ecd517d0782ceb12f7be8b5358')
  })

  it('does not depend on the order the files are listed in, nor on their other fields', () => {
    const shuffled = [FILES[2], FILES[0], FILES[1]].map((f) => ({ ...f, kind: 'u32' as const }))
    expect(buildDigest(shuffled)).toBe(buildDigest(FILES))
  })

  it("changes with any file's path, sha256 or size, and with a file added or removed", () => {
    const base = buildDigest(FILES)
    const changed = [
      FILES.map((f, i) => (i === 1 ? { ...f, path: 'a/x.u32.c' } : f)),
      FILES.map((f, i) => (i === 2 ? { ...f, sha256: 'ac' + f.sha256.slice(2) } : f)),
      FILES.map((f, i) => (i === 0 ? { ...f, size: 5 } : f)),
      FILES.slice(1),
      [...FILES, { path: 'c.u8', sha256: '3'.repeat(64), size: 1 }],
    ]
    const digests = changed.map(buildDigest)
    for (const d of digests) expect(d).not.toBe(base)
    expect(new Set(digests).size).toBe(digests.length)
  })
})
