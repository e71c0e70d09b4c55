import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileMapper } from '../../src/data/file-map.js'
import { mappingUnitKiB } from './machine.js'

const dir = mkdtempSync(join(tmpdir(), 'mapping-unit-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.runIf(fileMapper() !== null && process.platform === 'linux')('mappingUnitKiB', () => {
  it('reports the RSS a first read of one byte adds: at least a page, less than the 8 MiB between reads', () => {
    const path = join(dir, 'big.bin')
    writeFileSync(path, Buffer.alloc(40 * 2 ** 20, 1))
    const kib = mappingUnitKiB(path)
    expect(kib).not.toBeNull()
    // one 4 KiB page at the least; no more than the stride between two reads (undivided by the
    // 5 reads it would be 5 units: above 8 MiB wherever the page cache holds 2 MiB folios)
    expect(kib!).toBeGreaterThanOrEqual(4)
    expect(kib!).toBeLessThan(8192)
  })

  it('gives no figure for a file too small for four reads 8 MiB apart', () => {
    const path = join(dir, 'small.bin')
    writeFileSync(path, Buffer.alloc(3 * 2 ** 20, 1))
    expect(mappingUnitKiB(path)).toBeNull()
  })
})
