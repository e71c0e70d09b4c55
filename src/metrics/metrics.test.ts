import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { Manifest } from '../data/manifest.js'
import { createMetrics } from './metrics.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const settle = () => new Promise((r) => setTimeout(r, 100))

describe('landdata_heap_after_major_gc_bytes', () => {
  it('follows the live heap after each major collection, not the garbage between them', async () => {
    const registry = new Registry()
    createMetrics('build-1', { domains: {} } as unknown as Manifest, registry)
    const read = async () => {
      const text = await registry.getSingleMetricAsString('landdata_heap_after_major_gc_bytes')
      return Number(/^landdata_heap_after_major_gc_bytes (\S+)$/m.exec(text)?.[1])
    }
    let kept: { i: number }[] | null = Array.from({ length: 1_000_000 }, (_, i) => ({ i }))
    gc()
    await settle()
    const high = await read()
    // about 16 MB of live objects: above a heap of tens of MB, so well clear of the noise
    expect(kept.length).toBe(1_000_000)
    kept = null
    // garbage made after a collection is not counted until the next one
    Array.from({ length: 1_000_000 }, (_, i) => ({ i })).length
    await settle()
    expect(await read()).toBe(high)
    gc()
    await settle()
    const low = await read()
    expect(high - low).toBeGreaterThan(15e6)
    expect(low).toBeGreaterThan(0)
  })
})
