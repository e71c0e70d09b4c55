import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileMapper } from './file-map.js'

describe('fileMapper (native/mmap.c)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'file-map-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  // the tests' global setup runs scripts/build.mjs, which builds the addon
  const mapper = fileMapper()!

  it('is built and loads', () => {
    expect(mapper).not.toBeNull()
    expect(fileMapper()).toBe(mapper)
  })

  it('maps a whole file as an ArrayBuffer with its bytes', () => {
    const file = join(dir, 'a.bin')
    const want = Buffer.alloc(3 * 4096 + 17)
    for (let i = 0; i < want.length; i++) want[i] = (i * 31) & 255
    writeFileSync(file, want)
    const ab = mapper.map(file)
    expect(ab).toBeInstanceOf(ArrayBuffer)
    expect(ab.byteLength).toBe(want.length)
    expect(Buffer.from(ab).equals(want)).toBe(true)
    // Float64Array / Uint32Array views as Flatbush and KDBush make them
    expect(new Uint32Array(ab, 8, 2)[1]).toBe(want.readUInt32LE(12))
  })

  it('keeps a write to the mapping private: the file is unchanged', () => {
    const file = join(dir, 'b.bin')
    writeFileSync(file, Buffer.from([1, 2, 3, 4]))
    const bytes = new Uint8Array(mapper.map(file))
    bytes[0] = 99
    expect(bytes[0]).toBe(99)
    expect([...readFileSync(file)]).toEqual([1, 2, 3, 4])
    expect(new Uint8Array(mapper.map(file))[0]).toBe(1)
  })

  it('gives an empty buffer for an empty file, and names the file it cannot open', () => {
    const empty = join(dir, 'empty.bin')
    writeFileSync(empty, '')
    expect(mapper.map(empty).byteLength).toBe(0)
    expect(() => mapper.map(join(dir, 'nope.bin'))).toThrow(/cannot open .*nope\.bin: No such file or directory/)
    expect(() => mapper.map(dir)).toThrow(/cannot map .*file-map-/)
    expect(() => (mapper.map as (p: unknown) => ArrayBuffer)(42)).toThrow(/path must be a string/)
  })
})
