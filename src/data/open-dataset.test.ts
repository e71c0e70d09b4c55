import { describe, expect, it } from 'vitest'
import { DatasetHandle, type OpenDataset } from './open-dataset.js'

/** A dataset that only counts its closes. */
function fake(dir: string): OpenDataset & { closed: number } {
  const ds = { dir, closed: 0, close: () => void ds.closed++ }
  return ds as unknown as OpenDataset & { closed: number }
}

describe('DatasetHandle', () => {
  it('keeps a swapped-out dataset open until the last request holding it releases it', () => {
    const a = fake('/builds/a')
    const b = fake('/builds/b')
    const handle = new DatasetHandle(a, (ds) => ({ dir: ds.dir }))
    const held = handle.acquire()
    expect(held.build).toBe('a')
    const prev = handle.swap(b, undefined, 'b')
    expect(prev).toBe(held)
    expect(handle.current().build).toBe('b')
    expect(handle.services).toEqual({ dir: '/builds/b' })
    // the request that started on A still reads A, whose files stay open
    expect(held.services).toEqual({ dir: '/builds/a' })
    expect(a.closed).toBe(0)
    handle.release(held)
    expect(a.closed).toBe(1)
  })

  it('closes a swapped-out dataset at once when no request holds it, and only once', () => {
    const a = fake('/builds/a')
    const b = fake('/builds/b')
    const handle = new DatasetHandle(a, () => null)
    handle.release(handle.acquire())
    handle.swap(b)
    expect(a.closed).toBe(1)
    expect(b.closed).toBe(0)
    const s = handle.acquire()
    handle.release(s)
    expect(b.closed).toBe(0)
  })
})
