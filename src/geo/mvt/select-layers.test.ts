import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { describe, expect, it } from 'vitest'
import { tileBBox } from '../tiles.js'
import { encodeTile, type TileLayer } from './encode.js'
import { selectLayers, tileLayers } from './select-layers.js'

const b = tileBBox(14, 9372, 9283)
const square = (k: number): [number, number][][][] => {
  const w = b.minX + ((b.maxX - b.minX) * k) / 10
  const s = b.minY + ((b.maxY - b.minY) * k) / 10
  const d = (b.maxX - b.minX) / 20
  return [
    [
      [
        [w, s],
        [w + d, s],
        [w + d, s + d],
        [w, s + d],
        [w, s],
      ],
    ],
  ]
}
const layer = (name: string, n: number): TileLayer => ({
  name,
  features: Array.from({ length: n }, (_, k) => ({
    id: k + 1,
    geometry: square(k),
    properties: { name: `${name} ${k}`, k, even: k % 2 === 0 },
  })),
})
const a = layer('alpha', 3)
const bee = layer('beta', 2)
const c = layer('gamma', 4)
const all = encodeTile([a, bee, c], 14, 9372, 9283)

describe('selectLayers', () => {
  it('lists the layers of a tile by name, in order', () => {
    expect(tileLayers(all).map((l) => l.name)).toEqual(['alpha', 'beta', 'gamma'])
  })

  it('gives the bytes encodeTile makes of the layers asked for, in the order asked', () => {
    for (const pick of [[c, a], [bee], [a, c], [c, bee, a]]) {
      const names = pick.map((l) => l.name)
      const got = selectLayers(all, names)
      expect(Buffer.from(got).equals(Buffer.from(encodeTile(pick, 14, 9372, 9283))), names.join()).toBe(true)
      expect(Object.keys(new VectorTile(new PbfReader(got)).layers)).toEqual(names)
    }
  })

  it('leaves out names the tile lacks; none left: no bytes; all in order: the tile itself', () => {
    const got = selectLayers(all, ['delta', 'beta'])
    expect(Buffer.from(got).equals(Buffer.from(encodeTile([bee], 14, 9372, 9283)))).toBe(true)
    expect(selectLayers(all, ['delta']).byteLength).toBe(0)
    expect(selectLayers(all, ['alpha', 'beta', 'gamma'])).toBe(all)
    expect(selectLayers(new Uint8Array(0), ['alpha']).byteLength).toBe(0)
  })
})
