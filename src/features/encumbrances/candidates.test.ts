import Flatbush from 'flatbush'
import { describe, expect, it, vi } from 'vitest'
import { PreparedPolygon } from '../../geo/overlay/prepared.js'
import type { MultiPolygon } from '../../geo/polygon.js'
import { areaReach, Candidates, INTERSECT_MAX_OVERLAY_EDGES, OverlayTooComplex, routeReach } from './candidates.js'

type Box = [number, number, number, number]

function indexOf(boxes: Box[]): Flatbush {
  const index = new Flatbush(boxes.length)
  for (const b of boxes) index.add(...b)
  index.finish()
  return index
}

const square = (x0: number, y0: number, x1: number, y1: number): MultiPolygon => [
  [
    [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ],
  ],
]

describe('routeReach', () => {
  it('searches the boxes of pieces at most 0.0025° long, and builds no cells', () => {
    const reach = routeReach([
      [
        [28, -26],
        [28.006, -26.003],
      ],
    ])
    expect(reach.boxes.map((b) => b.map((v) => Math.round(v * 1e9) / 1e9))).toEqual([
      [28, -26.001, 28.002, -26],
      [28.002, -26.002, 28.004, -26.001],
      [28.004, -26.003, 28.006, -26.002],
    ])
  })

  it('meets the candidates a piece passes through, not those beside it in its box', () => {
    const index = indexOf([
      [28.0009, -26.0011, 28.0011, -26.0009], // on the diagonal
      [28.0001, -26.0019, 28.0003, -26.0017], // in the piece's box, off the diagonal
      [28.01, -26.01, 28.02, -26.0], // elsewhere
    ])
    const c = new Candidates(10)
    c.gather(
      index,
      routeReach([
        [
          [28, -26],
          [28.002, -26.002],
        ],
      ]),
      (i) => i + 1,
      () => true,
    )
    expect(c.sorted()).toEqual([1])
  })
})

describe('areaReach', () => {
  // an L: the square 0..0.02 less its north-east quarter
  const ell: MultiPolygon = [
    [
      [
        [28, -26],
        [28.02, -26],
        [28.02, -25.99],
        [28.01, -25.99],
        [28.01, -25.98],
        [28, -25.98],
        [28, -26],
      ],
    ],
  ]

  it('meets the candidates it comes near, not those in the notch of its box', () => {
    const index = indexOf([
      [28.001, -25.999, 28.002, -25.998], // inside
      [28.015, -25.985, 28.016, -25.984], // in the notch
      [28.0199, -25.995, 28.021, -25.994], // across the east edge
    ])
    const c = new Candidates(10)
    c.gather(
      index,
      areaReach(new PreparedPolygon(ell)),
      (i) => i,
      () => true,
    )
    expect(c.sorted()).toEqual([0, 2])
  })

  it('charges each candidate taken once, however many cells find it, and never one left out', () => {
    const area = new PreparedPolygon(square(28, -26, 28.02, -25.98))
    const charged = vi.spyOn(area, 'edgesInBox')
    // a candidate across four cells of 0.005°; one refused by `keep`
    const index = indexOf([
      [28.004, -25.996, 28.006, -25.994],
      [28.001, -25.999, 28.002, -25.998],
    ])
    const c = new Candidates(10)
    c.gather(
      index,
      areaReach(area),
      (i) => i,
      (id) => id === 0,
    )
    expect(c.sorted()).toEqual([0])
    expect(charged).toHaveBeenCalledTimes(1)
  })

  it('throws OverlayTooComplex past the budget, summed over every index the reach serves', () => {
    const area = new PreparedPolygon(square(28, -26, 28.02, -25.98))
    vi.spyOn(area, 'edgesInBox').mockReturnValue(INTERSECT_MAX_OVERLAY_EDGES / 2)
    const reach = areaReach(area)
    const records = indexOf([[28.001, -25.999, 28.002, -25.998]])
    const parcels = indexOf([
      [28.003, -25.999, 28.004, -25.998],
      [28.011, -25.999, 28.012, -25.998],
    ])
    new Candidates(10).gather(
      records,
      reach,
      (i) => i,
      () => true,
    )
    // the record and the first parcel reach the budget, the second parcel passes it
    const thrown = (() => {
      try {
        new Candidates(10).gather(
          parcels,
          reach,
          (i) => i,
          () => true,
        )
      } catch (err) {
        return err
      }
    })()
    expect(thrown).toBeInstanceOf(OverlayTooComplex)
    expect((thrown as OverlayTooComplex).edges).toBe(INTERSECT_MAX_OVERLAY_EDGES + INTERSECT_MAX_OVERLAY_EDGES / 2)
  })
})

describe('Candidates', () => {
  it('maps items to ids, and stops taking new ones once max were gathered, saying so', () => {
    // one candidate on each of two pieces of the route
    const index = indexOf([
      [28.0009, -26.0001, 28.0011, -25.9999],
      [28.0029, -26.0001, 28.0031, -25.9999],
    ])
    const route = routeReach([
      [
        [28, -26],
        [28.004, -26],
      ],
    ])
    const all = new Candidates(10)
    all.gather(
      index,
      route,
      (i) => 100 + i,
      () => true,
    )
    expect([all.sorted(), all.capped]).toEqual([[100, 101], false])
    const one = new Candidates(1)
    one.gather(
      index,
      route,
      (i) => 100 + i,
      () => true,
    )
    expect([one.sorted(), one.capped]).toEqual([[100], true])
  })
})
