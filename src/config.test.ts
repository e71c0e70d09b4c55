import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'

describe('loadConfig', () => {
  it('defaults SQLITE_MMAP_MB to as much as SQLite maps, and takes 0 (no mapping)', () => {
    expect(loadConfig({}).SQLITE_MMAP_MB).toBe(2048)
    expect(loadConfig({ SQLITE_MMAP_MB: '0' }).SQLITE_MMAP_MB).toBe(0)
    expect(loadConfig({ SQLITE_MMAP_MB: '' }).SQLITE_MMAP_MB).toBe(2048)
  })

  it('maps the index files unless INDEX_MMAP is 0', () => {
    expect(loadConfig({}).INDEX_MMAP).toBe(true)
    expect(loadConfig({ INDEX_MMAP: '1' }).INDEX_MMAP).toBe(true)
    expect(loadConfig({ INDEX_MMAP: '0' }).INDEX_MMAP).toBe(false)
    expect(() => loadConfig({ INDEX_MMAP: 'yes' })).toThrow(/invalid configuration: INDEX_MMAP: /)
  })

  it('stops the start on a bad value, naming every bad setting', () => {
    expect(() => loadConfig({ SQLITE_MMAP_MB: '4096' })).toThrow(/invalid configuration: SQLITE_MMAP_MB: /)
    expect(() => loadConfig({ SQLITE_MMAP_MB: 'lots', WORKERS: '0' })).toThrow(
      /WORKERS: .*; SQLITE_MMAP_MB: |SQLITE_MMAP_MB: .*; WORKERS: /,
    )
    expect(() => loadConfig({ SQLITE_MMAP_MB: '-1' })).toThrow(/SQLITE_MMAP_MB/)
  })
})
