import { describe, expect, it } from 'vitest'
import type { MultiPolygon, Ring } from '../polygon.js'
import { clipToBox, ringBoxes } from './convex-clip.js'
import { K, LAT0, LON0, rectRing, rng, star } from './test-fixtures.js'

describe("clipToBox with the rings' boxes", () => {
  it('cuts exactly as without them, for random stars with holes and random boxes', () => {
    const r = rng(11)
    let holesKept = 0
    for (let trial = 0; trial < 40; trial++) {
      const mp: MultiPolygon = [
        [rectRing(0, 0, 400, 400), ...Array.from({ length: 30 }, () => star(r, 3 + Math.floor(r() * 20), 380, 8))],
        [star(r, 50, 300, 40).map(([x, y]): [number, number] => [x + 500 / K.lon, y])],
      ]
      const boxes = ringBoxes(mp)
      for (let k = 0; k < 20; k++) {
        const [x, y, w, h] = [r() * 700 - 100, r() * 500 - 50, r() * 150, r() * 150]
        const box = [LON0 + x / K.lon, LAT0 + y / K.lat, LON0 + (x + w) / K.lon, LAT0 + (y + h) / K.lat] as const
        const plain = clipToBox(mp, ...box)
        expect(clipToBox(mp, ...box, boxes)).toEqual(plain)
        holesKept += plain.reduce((n, poly) => n + poly.length - 1, 0)
      }
    }
    expect(holesKept).toBeGreaterThan(100)
  })

  it('reads only the rings whose box meets the box', () => {
    const read = new Set<number>()
    const watched = (ring: Ring, k: number): Ring =>
      new Proxy(ring, {
        get(target, p, recv) {
          if (typeof p === 'string' && /^\d+$/.test(p)) read.add(k)
          return Reflect.get(target, p, recv)
        },
      })
    const holes = Array.from({ length: 100 }, (_, k) =>
      rectRing(10 * (k % 10) + 1, 10 * Math.floor(k / 10) + 1, 10 * (k % 10) + 9, 10 * Math.floor(k / 10) + 9),
    )
    const mp: MultiPolygon = [[rectRing(0, 0, 100, 100), ...holes]]
    const boxes = ringBoxes(mp)
    const watchedMp: MultiPolygon = [mp[0].map(watched)]
    // a box around hole 45 (ring 46), reaching no other hole
    const cut = clipToBox(watchedMp, LON0 + 50 / K.lon, LAT0 + 40 / K.lat, LON0 + 60 / K.lon, LAT0 + 50 / K.lat, boxes)
    expect(cut[0]).toHaveLength(2)
    expect([...read].sort((a, b) => a - b)).toEqual([0, 46])
  })
})
