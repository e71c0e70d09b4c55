import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ApiKeyRecord } from '../auth/types.js'
import { LazyJobStore } from './lazy-store.js'

describe('LazyJobStore', () => {
  it('writes nothing until a job is made: reads answer empty, no lease is taken', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'lazy-jobs-')), 'jobs')
    const store = new LazyJobStore(dir)
    expect([store.get('x'), store.list('k'), store.unfinished('k'), store.next([])]).toEqual([null, [], 0, null])
    expect(store.lease('me:1:x', 0, 1000, () => true)).toBe(false)
    expect(existsSync(dir)).toBe(false)
    const key = { id: 'k' } as ApiKeyRecord
    store.create({ id: 'j', keyId: 'k', key, operation: 'op', format: 'csv', columns: ['a'], rows: 1, createdAt: 1 })
    expect(existsSync(join(dir, 'jobs.db'))).toBe(true)
    expect(store.list('k').map((j) => j.id)).toEqual(['j'])
    expect(store.lease('me:1:x', 0, 1000, () => true)).toBe(true)
    store.close()
    // a store there already is opened by the next process
    const again = new LazyJobStore(dir)
    expect(again.get('j')?.rows).toBe(1)
    again.close()
  })
})
