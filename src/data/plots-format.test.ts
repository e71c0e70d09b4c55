import { describe, expect, it } from 'vitest'
import { decodeStrings, encodeStrings } from './plots-format.js'

describe('strings table', () => {
  it('gives back every string in order, non-ASCII and empty ones included', () => {
    const items = ['12', '12/3', '', 'Plot 7 Mogoditshane', 'Ngwaketse ša', '1'.repeat(300)]
    const enc = new TextEncoder()
    const bytes = new Uint8Array(1024)
    const offsets = new Uint32Array(items.length + 1)
    items.forEach((s, i) => {
      offsets[i + 1] = offsets[i] + enc.encodeInto(s, bytes.subarray(offsets[i])).written
    })
    const file = encodeStrings(bytes, offsets, items.length)
    // a copy at offset 0, as OpenDataset.arrayBuffer hands it over
    const table = decodeStrings(file.slice().buffer)
    expect(table.count).toBe(items.length)
    expect(items.map((_, i) => table.get(i))).toEqual(items)
  })
})
