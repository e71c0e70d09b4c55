import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileMapper } from '../../src/data/file-map.js'
import { fileRss, mappingUnitKiB } from './servers.js'

const dir = mkdtempSync(join(tmpdir(), 'file-rss-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.runIf(fileMapper() !== null && process.platform === 'linux')('fileRss', () => {
  it("sums a process's mapped pages per file: a file read whole counts its size, one never read is absent", () => {
    const read = join(dir, 'read.bin')
    const unread = join(dir, 'unread.bin')
    writeFileSync(read, Buffer.alloc(4 * 2 ** 20, 7))
    writeFileSync(unread, Buffer.alloc(4 * 2 ** 20, 7))
    const a = new Uint8Array(fileMapper()!.map(read))
    const b = new Uint8Array(fileMapper()!.map(unread))
    let sum = 0
    for (let k = 0; k < a.length; k += 4096) sum += a[k]
    const rss = fileRss(process.pid)
    expect(sum).toBe(7 * 1024)
    expect(rss.get(read)).toBe(4 * 2 ** 20)
    expect(rss.has(unread)).toBe(false)
    expect(b.length).toBe(4 * 2 ** 20)
    // the node binary is mapped too
    expect(rss.get(realpathSync(process.execPath)) ?? 0).toBeGreaterThan(0)
  })

  it('is empty for a process that does not exist', () => {
    expect(fileRss(2 ** 22 + 12345).size).toBe(0)
  })
})

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
