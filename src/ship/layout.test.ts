import { describe, expect, it } from 'vitest'
import { buildDigest } from '../data/manifest.js'
import {
  badBuildName,
  buildPath,
  defaultBuildName,
  objectPath,
  parseLatest,
  parsePublishedBuild,
  type PublishedBuild,
} from './layout.js'

const SHA_A = 'a'.repeat(64)
const SHA_B = 'b'.repeat(64)

function build(over: Partial<PublishedBuild> = {}): PublishedBuild {
  const files = [{ path: 'plots/x.u32', sha256: SHA_A, size: 10, compression: 'gzip' as const, stored_size: 7 }]
  return {
    format: 'landdata-published-build',
    format_version: 1,
    build_digest: buildDigest(files),
    name: 'build-x',
    manifest: { sha256: SHA_B, size: 100, compression: 'none', stored_size: 100 },
    files,
    ...over,
  }
}

describe('published layout', () => {
  it('names objects by digest and compression, builds by build digest', () => {
    expect(objectPath({ sha256: SHA_A, compression: 'none' })).toBe(`objects/${SHA_A}`)
    expect(objectPath({ sha256: SHA_A, compression: 'gzip' })).toBe(`objects/${SHA_A}.gz`)
    expect(objectPath({ sha256: SHA_A, compression: 'zstd' })).toBe(`objects/${SHA_A}.zst`)
    expect(buildPath(SHA_B)).toBe(`builds/${SHA_B}.json`)
    expect(defaultBuildName(SHA_B)).toBe('build-bbbbbbbbbbbb')
  })

  it('reads a build description whose files give its digest', () => {
    const b = build()
    expect(parsePublishedBuild(JSON.stringify(b), 'here', b.build_digest)).toEqual(b)
  })

  it('refuses a description whose files do not give its digest, or another build than asked', () => {
    const b = build()
    const edited = { ...b, files: [{ ...b.files[0], size: 11 }] }
    expect(() => parsePublishedBuild(JSON.stringify(edited), 'here')).toThrow(/do not give its build_digest/)
    expect(() => parsePublishedBuild(JSON.stringify(b), 'here', SHA_A)).toThrow(
      `describes build ${b.build_digest}, not ${SHA_A}`,
    )
  })

  it('refuses a path that leaves the dataset, a bad digest, and what is not JSON', () => {
    const b = build()
    const escaping = { ...b, files: [{ ...b.files[0], path: '../etc/x' }] }
    expect(() => parsePublishedBuild(JSON.stringify(escaping), 'here')).toThrow(/files.0.path: path must stay inside/)
    expect(() => parsePublishedBuild(JSON.stringify({ ...b, build_digest: 'xyz' }), 'here')).toThrow(/build_digest/)
    expect(() => parsePublishedBuild('<html>', 'here')).toThrow(/^here is not JSON/)
  })

  it('a build name is one plain path segment', () => {
    expect(badBuildName('2026-12-04')).toBeNull()
    expect(badBuildName('build-3b388bc3abda')).toBeNull()
    for (const bad of ['../x', 'a/b', '.hidden', '-x', '', 'a b'])
      expect(badBuildName(bad), bad).toMatch(/is not a build name/)
  })

  it('reads latest.json', () => {
    expect(parseLatest(JSON.stringify({ build_digest: SHA_A }), 'l')).toEqual({ build_digest: SHA_A })
    expect(() => parseLatest('{}', 'l')).toThrow(/^l does not name a build/)
  })
})
