import { describe, expect, it } from 'vitest'
import { Random } from '../../build-index/synth/random.js'
import { bboxOf, type MultiPolygon, type Ring } from '../geo/polygon.js'
import { linesAsPolygons } from './encumbrance-format.js'
import { containsPointEncoded, decodeGeometry, distanceToLinesEncodedM, encodeGeometry } from './geometry-blob.js'
import { PREFILTER_MARGIN_DEG, PREFILTER_STRIDE, createPrefilter } from './parcels-prefilter.js'
import { describeLines, describeParcel } from './parcels-prefilter-writer.js'
import { round } from '../geo/round.js'

const round7 = (v: number) => round(v, 7)

/** A closed ring through the points, on the 1e-7 grid (as stored), counter-clockwise or not. */
const ring = (pts: [number, number][], ccw = true): Ring => {
  const r = pts.map(([x, y]) => [round7(x), round7(y)] as [number, number])
  const area2 = r.reduce((s, [x, y], i) => s + x * r[(i + 1) % r.length][1] - r[(i + 1) % r.length][0] * y, 0)
  if (area2 > 0 !== ccw) r.reverse()
  return [...r, r[0]]
}
/** A w x h rectangle centred at (cx, cy), turned by `deg` degrees. */
const rect = (cx: number, cy: number, w: number, h: number, deg: number, ccw = true): Ring => {
  const a = (deg * Math.PI) / 180
  const c = Math.cos(a)
  const s = Math.sin(a)
  return ring(
    [
      [-w / 2, -h / 2],
      [w / 2, -h / 2],
      [w / 2, h / 2],
      [-w / 2, h / 2],
    ].map(([x, y]) => [cx + x * c - y * s, cy + x * s + y * c] as [number, number]),
    ccw,
  )
}

/**
 * Shapes, and the share of points in their box the prefilter must decide (one inner box cannot cover an L or a disc).
 */
const SHAPES: Record<string, MultiPolygon> = {
  // an erf, turned
  'rotated rectangle': [[rect(28.1, -26.2, 0.0003, 0.0002, 33)]],
  'axis-aligned rectangle': [[rect(28.1, -26.2, 0.0003, 0.0002, 0)]],
  // a street ring around a block: the block is its hole
  'street ring': [[rect(26.71, -30.69, 0.0021, 0.0008, 37), rect(26.71, -30.69, 0.0019, 0.0006, 37, false)]],
  'L shape': [
    [
      ring([
        [18.0, -33.0],
        [18.002, -33.0],
        [18.002, -32.999],
        [18.001, -32.999],
        [18.001, -32.998],
        [18.0, -32.998],
      ]),
    ],
  ],
  triangle: [
    [
      ring([
        [22.0, -29.0],
        [22.003, -29.0005],
        [22.001, -28.998],
      ]),
    ],
  ],
  // two parcels, the second in the first one's hole (an island)
  'island in a hole': [
    [rect(25.0, -27.0, 0.004, 0.004, 10), rect(25.0, -27.0, 0.002, 0.002, 10, false)],
    [rect(25.0, -27.0, 0.0008, 0.0008, 50)],
  ],
  // a farm with many vertices
  'many-sided farm': [
    [
      ring(
        Array.from(
          { length: 60 },
          (_, i) =>
            [
              24.0 + 0.05 * Math.cos((i / 60) * 2 * Math.PI) * (1 + 0.2 * Math.sin(i)),
              -28.0 + 0.03 * Math.sin((i / 60) * 2 * Math.PI),
            ] as [number, number],
        ),
      ),
    ],
  ],
}

const DECIDED: Record<string, number> = {
  'rotated rectangle': 0.95,
  'axis-aligned rectangle': 0.95,
  'street ring': 0.8,
  'L shape': 0.45,
  triangle: 0.5,
  'island in a hole': 0.25,
  'many-sided farm': 0.25,
}

function described(mp: MultiPolygon) {
  const blob = encodeGeometry(mp)
  const b = bboxOf(decodeGeometry(blob))
  const bytes = new Uint8Array(PREFILTER_STRIDE * 2)
  // the second slot, to check offsets are honoured
  describeParcel(blob, b.minX, b.minY, b.maxX, b.maxY, bytes, PREFILTER_STRIDE)
  const test = createPrefilter(bytes)
  return { blob, b, bytes, answer: (x: number, y: number) => test(1, x, y, b.minX, b.minY, b.maxX, b.maxY) }
}

describe('parcel prefilter', () => {
  for (const [name, mp] of Object.entries(SHAPES)) {
    it(`${name}: never contradicts containsPointEncoded, and decides most points`, () => {
      const { blob, b, answer } = described(mp)
      const rnd = new Random(4, `prefilter/${name}`)
      let decided = 0
      const N = 4000
      for (let k = 0; k < N; k++) {
        const x = rnd.range(b.minX, b.maxX)
        const y = rnd.range(b.minY, b.maxY)
        const r = answer(x, y)
        if (r !== 0) {
          decided++
          expect(r > 0, `${x}, ${y}`).toBe(containsPointEncoded(blob, x, y))
        }
      }
      expect(decided / N).toBeGreaterThan(DECIDED[name])
    })

    it(`${name}: leaves points on and near the boundary undecided`, () => {
      const { blob, b, answer } = described(mp)
      const rnd = new Random(5, `prefilter-edge/${name}`)
      const probes: [number, number][] = [
        [b.minX, b.minY],
        [b.maxX, b.maxY],
        [b.minX, b.maxY],
        [b.maxX, b.minY],
      ]
      for (const poly of decodeGeometry(blob))
        for (const r of poly)
          for (let i = 0; i + 1 < r.length; i++) {
            const [ax, ay] = r[i]
            const [bx, by] = r[i + 1]
            probes.push([ax, ay])
            for (let k = 0; k < 20; k++) {
              const t = rnd.float()
              // on the edge, and off it by less than the margin either way
              const off = (rnd.float() - 0.5) * 1.8 * PREFILTER_MARGIN_DEG
              const len = Math.hypot(bx - ax, by - ay)
              probes.push([ax + t * (bx - ax), ay + t * (by - ay)])
              probes.push([ax + t * (bx - ax) - (off * (by - ay)) / len, ay + t * (by - ay) + (off * (bx - ax)) / len])
            }
          }
      for (const [x, y] of probes) {
        if (x < b.minX || x > b.maxX || y < b.minY || y > b.maxY) continue
        const r = answer(x, y)
        if (r !== 0) expect(r > 0, `${x}, ${y}`).toBe(containsPointEncoded(blob, x, y))
      }
    })
  }

  it('settles a street ring’s block and an erf’s neighbours’ corners as outside, its middle as inside', () => {
    const street = described(SHAPES['street ring'])
    expect(street.answer(26.71, -30.69)).toBe(-1) // in the block
    const erf = described(SHAPES['rotated rectangle'])
    expect(erf.answer(28.1, -26.2)).toBe(1)
    expect(erf.answer(erf.b.minX + 1e-6, erf.b.minY + 1e-6)).toBe(-1) // a corner of the box outside the turned erf
  })

  it('describes a degenerate box as "no information"', () => {
    const bytes = new Uint8Array(PREFILTER_STRIDE)
    const blob = encodeGeometry(SHAPES['axis-aligned rectangle'])
    describeParcel(blob, 28.1, -26.2, 28.1, -26.1, bytes, 0)
    expect([...bytes]).toEqual([0, 0, 0, 255, 0, 255, 255, 0, 255, 0])
    expect(createPrefilter(bytes)(0, 28.1, -26.15, 28.1, -26.2, 28.1, -26.1)).toBe(0)
  })
})

describe('line prefilter (encumbrance lines, describeLines)', () => {
  // an L (its closing edge, were it a ring, would cut the corner), a zigzag, two lines; on the 1e-7 grid
  const LINES: Record<string, [number, number][][]> = {
    L: [
      [
        [18.0, -33.0],
        [18.002, -33.0],
        [18.002, -32.998],
      ],
    ],
    zigzag: [
      Array.from(
        { length: 9 },
        (_, i) => [round7(24 + i * 0.0005), round7(-28 + (i % 2) * 0.0004)] as [number, number],
      ),
    ],
    'two lines': [
      [
        [26.0, -30.0],
        [26.003, -29.999],
      ],
      [
        [26.0, -29.997],
        [26.001, -29.9985],
      ],
    ],
  }
  // one inner box covers little of a zigzag's box or of two lines' box
  const LINE_DECIDED: Record<string, number> = { L: 0.5, zigzag: 0.05, 'two lines': 0.15 }
  for (const [name, lines] of Object.entries(LINES)) {
    it(`${name}: a decided point is off every segment (never inside), and many points are decided`, () => {
      const blob = encodeGeometry(linesAsPolygons(lines))
      const b = bboxOf(decodeGeometry(blob))
      const bytes = new Uint8Array(PREFILTER_STRIDE)
      describeLines(blob, b.minX, b.minY, b.maxX, b.maxY, bytes, 0)
      const answer = (x: number, y: number) => createPrefilter(bytes)(0, x, y, b.minX, b.minY, b.maxX, b.maxY)
      const rnd = new Random(6, `prefilter-lines/${name}`)
      let decided = 0
      const N = 4000
      for (let k = 0; k < N; k++) {
        const x = rnd.range(b.minX, b.maxX)
        const y = rnd.range(b.minY, b.maxY)
        const r = answer(x, y)
        expect(r, `${x}, ${y}`).toBeLessThanOrEqual(0)
        if (r < 0) {
          decided++
          expect(distanceToLinesEncodedM(blob, x, y), `${x}, ${y}`).toBeGreaterThan(0.1)
        }
      }
      expect(decided / N).toBeGreaterThan(LINE_DECIDED[name])
      // on the line (vertices, points along segments) and within the margin of it: undecided
      for (const l of decodeGeometry(blob).map((p) => p[0]))
        for (let i = 0; i + 1 < l.length; i++)
          for (let k = 0; k <= 20; k++) {
            const t = k / 20
            const off = (rnd.float() - 0.5) * 1.8 * PREFILTER_MARGIN_DEG
            const x = l[i][0] + t * (l[i + 1][0] - l[i][0])
            const y = l[i][1] + t * (l[i + 1][1] - l[i][1])
            for (const [px, py] of [
              [x, y],
              [x + off, y - off],
            ])
              if (px >= b.minX && px <= b.maxX && py >= b.minY && py <= b.maxY) expect(answer(px, py)).toBe(0)
          }
    })
  }

  it('the L: the corner a closing edge would cut off is decided off the line', () => {
    const blob = encodeGeometry(linesAsPolygons(LINES.L))
    const bytes = new Uint8Array(PREFILTER_STRIDE)
    describeLines(blob, 18.0, -33.0, 18.002, -32.998, bytes, 0)
    // inside the triangle the L would close: describeParcel alone would call it inside
    expect(containsPointEncoded(blob, 18.0015, -32.9995)).toBe(true)
    expect(createPrefilter(bytes)(0, 18.0015, -32.9995, 18.0, -33.0, 18.002, -32.998)).toBe(-1)
  })
})
