import Flatbush from 'flatbush'
import { describe, expect, it } from 'vitest'
import { tileBBox } from '../tiles.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileFeature, type TileLayer } from './encode.js'
import { cutPyramid, type PyramidFeature, type PyramidLayer } from './pyramid.js'

// a seeded LCG: the same features every run
let seed = 7
const rnd = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
  return seed / 2 ** 32
}

const Z0 = 10
const X0 = 568
const Y0 = 631
const MAX = 14
const top = tileBBox(Z0, X0, Y0)

/** Squares of random sizes (some wider than a z12 tile) over the top tile and a little beyond, and points. */
function makeFeatures(): { layer: number; box: [number, number, number, number]; f: TileFeature }[] {
  const out: { layer: number; box: [number, number, number, number]; f: TileFeature }[] = []
  const w = top.maxX - top.minX
  const h = top.maxY - top.minY
  for (let i = 0; i < 400; i++) {
    const layer = i % 3
    const x = top.minX - 0.05 * w + rnd() * 1.1 * w
    const y = top.minY - 0.05 * h + rnd() * 1.1 * h
    if (layer === 2) {
      out.push({ layer, box: [x, y, x, y], f: { id: i + 1, geometry: [[x, y]], properties: { k: i } } })
      continue
    }
    const d = (layer === 0 ? 0.3 : 0.01) * w * rnd()
    const ring: [number, number][] = [
      [x, y],
      [x + d, y],
      [x + d, y + d],
      [x, y + d],
      [x, y],
    ]
    out.push({ layer, box: [x, y, x + d, y + d], f: { id: i + 1, geometry: [[ring]], properties: { k: i, l: layer } } })
  }
  return out
}

describe('cutPyramid', () => {
  it('makes every tile of the pyramid as encodeTile makes it from a box search, and no empty one', () => {
    const features = makeFeatures()
    const layers: PyramidLayer[] = [
      { name: 'big', minZoom: 10 },
      { name: 'small', minZoom: 12 },
      // points, at most 5 per tile: every other one of those in it
      { name: 'points', minZoom: 13, keep: (fs) => (fs.length > 5 ? fs.filter((_, k) => k % 2 === 0) : fs) },
    ]
    const index = new Flatbush(features.length)
    for (const { box } of features) index.add(...box)
    index.finish()
    const made = new Map<string, Uint8Array>()
    let calls = 0
    const pyramid: PyramidFeature[] = features.map(({ layer, box, f }) => ({
      layer,
      minX: box[0],
      minY: box[1],
      maxX: box[2],
      maxY: box[3],
      feature: () => {
        calls++
        return f
      },
    }))
    cutPyramid(layers, pyramid, Z0, X0, Y0, MAX, (z, x, y, bytes) => {
      const k = `${z}/${x}/${y}`
      expect(made.has(k), k).toBe(false)
      made.set(k, bytes)
    })
    let expected = 0
    for (let z = Z0; z <= MAX; z++) {
      const n = 2 ** (z - Z0)
      for (let x = X0 * n; x < (X0 + 1) * n; x++)
        for (let y = Y0 * n; y < (Y0 + 1) * n; y++) {
          const b = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
          const hits = index.search(b.minX, b.minY, b.maxX, b.maxY).sort((p, q) => p - q)
          const out: TileLayer[] = []
          for (let l = 0; l < layers.length; l++) {
            if (z < layers[l].minZoom) continue
            let fs = hits.filter((i) => features[i].layer === l)
            if (l === 2 && fs.length > 5) fs = fs.filter((_, k) => k % 2 === 0)
            if (fs.length) out.push({ name: layers[l].name, features: fs.map((i) => features[i].f) })
          }
          const want = out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
          const got = made.get(`${z}/${x}/${y}`)
          if (want.byteLength === 0) expect(got, `${z}/${x}/${y}`).toBeUndefined()
          else {
            expected++
            expect(got && Buffer.from(got).equals(Buffer.from(want)), `${z}/${x}/${y}`).toBe(true)
          }
        }
    }
    expect(made.size).toBe(expected)
    // every zoom has tiles, and the big squares reach the top tile
    expect(new Set([...made.keys()].map((k) => k.split('/')[0])).size).toBe(MAX - Z0 + 1)
    expect(calls).toBeGreaterThan(0)
  })

  it('makes nothing when no feature meets the top tile', () => {
    const far: PyramidFeature = {
      layer: 0,
      minX: 0,
      minY: 0,
      maxX: 1,
      maxY: 1,
      feature: () => ({ geometry: [[0.5, 0.5]], properties: {} }),
    }
    let n = 0
    cutPyramid([{ name: 'a', minZoom: 0 }], [far], Z0, X0, Y0, MAX, () => n++)
    expect(n).toBe(0)
  })
})
