import { describe, expect, it } from 'vitest'
import { Random } from '../../build-index/synth/random.js'
import { containsPoint, type MultiPolygon } from '../geo/polygon.js'
import { containsPointEncoded, decodeGeometry, encodeGeometry } from './geometry-blob.js'

const box = (x0: number, y0: number, x1: number, y1: number): [number, number][] => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
]

describe('containsPointEncoded', () => {
  // two polygons, the first with a hole; coordinates on the 1e-7 grid so the round trip is exact
  const mp: MultiPolygon = [
    [box(17.001, -34.909, 17.004, -34.906), box(17.002, -34.908, 17.003, -34.907)],
    [
      [
        [17.006, -34.905],
        [17.0075, -34.9045],
        [17.007, -34.904],
        [17.0062, -34.9041],
        [17.006, -34.905],
      ],
    ],
  ]
  const blob = encodeGeometry(mp)
  const decoded = decodeGeometry(blob)

  it('answers as containsPoint on the decoded geometry: inside, in the hole, on shell and hole edges, outside', () => {
    const cases: [number, number, boolean][] = [
      [17.0015, -34.9075, true], // in the shell
      [17.0025, -34.9075, false], // in the hole
      [17.002, -34.9075, true], // on the hole's edge (closed set)
      [17.001, -34.9075, true], // on the shell's edge
      [17.0065, -34.9046, true], // in the second polygon
      [17.005, -34.905, false], // between them
    ]
    for (const [x, y, want] of cases) {
      expect(containsPoint(decoded, x, y)).toBe(want)
      expect(containsPointEncoded(blob, x, y)).toBe(want)
    }
  })

  it('decodes to the encoded geometry from an aligned blob and from an unaligned copy', () => {
    expect(decoded).toEqual(mp)
    const unaligned = new Uint8Array(blob.length + 1).subarray(1)
    unaligned.set(blob)
    expect(decodeGeometry(unaligned)).toEqual(mp)
  })

  it('agrees with containsPoint at random points, from an unaligned copy too', () => {
    const rnd = new Random(9, 'pip')
    const unaligned = new Uint8Array(blob.length + 1).subarray(1)
    unaligned.set(blob)
    for (let k = 0; k < 5000; k++) {
      const x = rnd.range(17.0, 17.008)
      const y = rnd.range(-34.91, -34.903)
      const want = containsPoint(decoded, x, y)
      expect(containsPointEncoded(blob, x, y)).toBe(want)
      expect(containsPointEncoded(unaligned, x, y)).toBe(want)
    }
  })
})
