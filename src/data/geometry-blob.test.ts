import { describe, expect, it } from 'vitest'
import { Random } from '../../build-index/synth/random.js'
import { distanceToLinesM } from '../geo/lines.js'
import { containsPoint, distanceToPointM, intersectsBox, type MultiPolygon } from '../geo/polygon.js'
import { linesAsPolygons, polygonsAsLines } from './encumbrance-format.js'
import {
  containsPointEncoded,
  decodeGeometry,
  distanceToLinesEncodedM,
  distanceToPointEncodedM,
  encodeGeometry,
  intersectsBoxEncoded,
} from './geometry-blob.js'

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

describe('intersectsBoxEncoded', () => {
  // a shell with a hole, and a thin second polygon
  const mp: MultiPolygon = [
    [box(17.001, -34.909, 17.004, -34.906), box(17.002, -34.908, 17.003, -34.907)],
    [box(17.006, -34.909, 17.0061, -34.906)],
  ]
  const blob = encodeGeometry(mp)
  const decoded = decodeGeometry(blob)
  const b = (minX: number, minY: number, maxX: number, maxY: number) => ({ minX, minY, maxX, maxY })

  it('answers as intersectsBox on the decoded geometry in each of its three ways, and misses', () => {
    const cases: [ReturnType<typeof b>, boolean, string][] = [
      [b(17.0005, -34.9095, 17.0015, -34.9085), true, 'a shell vertex in the box'],
      [b(17.0012, -34.9085, 17.0014, -34.9083), true, 'the box inside the shell: its corners are in the polygon'],
      [b(17.0022, -34.9078, 17.0028, -34.9072), false, 'the box inside the hole'],
      [b(17.0018, -34.9078, 17.0028, -34.9072), true, 'the box across the hole edge: an edge crossing'],
      [b(17.0059, -34.908, 17.0062, -34.9075), true, 'across the thin polygon, no vertex nor corner inside'],
      [b(17.0045, -34.908, 17.0055, -34.907), false, 'between the polygons'],
      [b(17.004, -34.905, 17.005, -34.904), false, 'beyond the shell'],
      [b(17.004, -34.906, 17.005, -34.905), true, 'touching the shell at its corner (closed sets)'],
    ]
    for (const [box, want, what] of cases) {
      expect(intersectsBox(decoded, box), what).toBe(want)
      expect(intersectsBoxEncoded(blob, box), what).toBe(want)
    }
  })

  it('agrees with intersectsBox on random boxes, from an unaligned copy too', () => {
    const rnd = new Random(11, 'box')
    const unaligned = new Uint8Array(blob.length + 1).subarray(1)
    unaligned.set(blob)
    let hits = 0
    for (let k = 0; k < 5000; k++) {
      const x = rnd.range(17.0, 17.007)
      const y = rnd.range(-34.91, -34.905)
      const box = b(x, y, x + rnd.range(0, 0.002), y + rnd.range(0, 0.002))
      const want = intersectsBox(decoded, box)
      if (want) hits++
      expect(intersectsBoxEncoded(blob, box)).toBe(want)
      expect(intersectsBoxEncoded(unaligned, box)).toBe(want)
    }
    // both answers are common, so the agreement says something
    expect(hits).toBeGreaterThan(1000)
    expect(hits).toBeLessThan(4000)
  })
})

describe('distances on an encoded geometry', () => {
  const unalignedCopy = (blob: Buffer) => {
    const u = new Uint8Array(blob.length + 1).subarray(1)
    u.set(blob)
    return u
  }

  it('distanceToPointEncodedM: the number distanceToPointM gives on the decoded polygons, to the bit', () => {
    const rnd = new Random(37, 'blob-distance')
    for (let n = 0; n < 40; n++) {
      // a star with a hole and a second part, off the 1e-7 grid (the blob rounds it)
      const cx = rnd.range(16, 33)
      const cy = rnd.range(-35, -22)
      const star = (r: number, k: number, cw: boolean): [number, number][] => {
        const ring: [number, number][] = []
        for (let i = 0; i < k; i++) {
          const a = ((cw ? -i : i) / k) * 2 * Math.PI
          const rr = r * rnd.range(0.5, 1)
          ring.push([cx + rr * Math.cos(a), cy + rr * Math.sin(a)])
        }
        ring.push(ring[0])
        return ring
      }
      const mp: MultiPolygon = [[star(0.01, rnd.int(3, 40), false), star(0.002, 5, true)], [star(0.003, 6, false)]]
      mp[1][0] = mp[1][0].map(([x, y]) => [x + 0.03, y])
      const blob = encodeGeometry(mp)
      const decoded = decodeGeometry(blob)
      for (let k = 0; k < 200; k++) {
        const x = cx + rnd.range(-0.03, 0.05)
        const y = cy + rnd.range(-0.03, 0.03)
        const want = distanceToPointM(decoded, x, y)
        expect(distanceToPointEncodedM(blob, x, y)).toBe(want)
        expect(distanceToPointEncodedM(unalignedCopy(blob), x, y)).toBe(want)
      }
      // on a vertex and in the hole
      expect(distanceToPointEncodedM(blob, decoded[0][0][1][0], decoded[0][0][1][1])).toBe(0)
      expect(distanceToPointEncodedM(blob, cx, cy)).toBe(distanceToPointM(decoded, cx, cy))
      expect(distanceToPointEncodedM(blob, cx, cy)).toBeGreaterThan(0)
    }
  })

  it('distanceToLinesEncodedM: the number distanceToLinesM gives on the decoded lines, to the bit', () => {
    const rnd = new Random(37, 'blob-lines')
    for (let n = 0; n < 40; n++) {
      const lines: [number, number][][] = []
      for (let l = rnd.int(1, 3); l > 0; l--) {
        let x = rnd.range(18, 18.01)
        let y = rnd.range(-34, -33.99)
        const line: [number, number][] = [[x, y]]
        for (let i = rnd.int(1, 8); i > 0; i--)
          line.push([(x += rnd.range(-0.002, 0.002)), (y += rnd.range(-0.002, 0.002))])
        lines.push(line)
      }
      const blob = encodeGeometry(linesAsPolygons(lines))
      const decoded = polygonsAsLines(decodeGeometry(blob))
      for (let k = 0; k < 200; k++) {
        const x = rnd.range(17.995, 18.015)
        const y = rnd.range(-34.005, -33.985)
        const want = distanceToLinesM(decoded, x, y)
        expect(distanceToLinesEncodedM(blob, x, y)).toBe(want)
        expect(distanceToLinesEncodedM(unalignedCopy(blob), x, y)).toBe(want)
      }
      // on a vertex: 0; an open line is no area (its first and last positions are not joined)
      expect(distanceToLinesEncodedM(blob, decoded[0][0][0], decoded[0][0][1])).toBe(0)
    }
    const open = encodeGeometry(
      linesAsPolygons([
        [
          [18, -34],
          [18.001, -34],
          [18.001, -33.999],
        ],
      ]),
    )
    expect(distanceToLinesEncodedM(open, 18.0005, -33.9995)).toBeGreaterThan(40)
  })
})
