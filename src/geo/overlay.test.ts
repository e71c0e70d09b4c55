import geographiclib from 'geographiclib-geodesic'
import { intersection } from 'polyclip-ts'
import { describe, expect, it } from 'vitest'
import { karneyDistanceM, metresPerDegree } from './geodesic.js'
import {
  areaSqm,
  bufferLines,
  lineLengthM,
  lineLineOverlap,
  lineOverlap,
  lineProblems,
  polygonOverlap,
  polygonProblems,
  PreparedLines,
  PreparedPolygon,
  type LineString,
  type MultiLineString,
} from './overlay.js'
import { locatePoint, type MultiPolygon, type Polygon, type Ring } from './polygon.js'

const { Geodesic } = geographiclib

// local metres around a known place in Johannesburg, rounded to the cadastre's 1e-7° grid
const LON0 = 28.04
const LAT0 = -26.2
const K = metresPerDegree(LAT0)
const round7 = (v: number) => Math.round(v * 1e7) / 1e7
const P = (x: number, y: number): [number, number] => [round7(LON0 + x / K.lon), round7(LAT0 + y / K.lat)]
const rectRing = (x0: number, y0: number, x1: number, y1: number): Ring => [P(x0, y0), P(x1, y0), P(x1, y1), P(x0, y1), P(x0, y0)]
const rect = (x0: number, y0: number, x1: number, y1: number): MultiPolygon => [[rectRing(x0, y0, x1, y1)]]
/** A position as the problem messages print it. */
const fmt = ([x, y]: [number, number]) => `${x.toFixed(5)},${y.toFixed(5)}`

/** The reference: GeographicLib's ellipsoidal area of geodesic polygons. */
function geographicLibSqm(mp: MultiPolygon): number {
  let total = 0
  for (const poly of mp)
    poly.forEach((ring, i) => {
      const p = Geodesic.WGS84.Polygon(false)
      for (const [x, y] of ring.slice(0, -1)) p.AddPoint(y, x)
      total += (i === 0 ? 1 : -1) * Math.abs(p.Compute(false, true).area ?? 0)
    })
  return total
}

/** A star-shaped ring of n vertices, radius 0.7–1 × size metres, centred at random in [0, spread)² metres. */
function star(r: () => number, n: number, spread: number, size: number): Ring {
  const cx = r() * spread
  const cy = r() * spread
  const ring: Ring = []
  for (let k = 0; k < n; k++) {
    const ang = (2 * Math.PI * k) / n
    const rad = size * (0.7 + 0.3 * r())
    ring.push(P(cx + rad * Math.cos(ang), cy + rad * Math.sin(ang)))
  }
  ring.push(ring[0])
  return ring
}

// seeded so failures are repeatable
function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32)
}

/** Extent in local metres of a multipolygon (for checking clipped geometry by hand). */
function extentM(mp: MultiPolygon) {
  const xs = mp.flat(2).map(([x]) => (x - LON0) * K.lon)
  const ys = mp.flat(2).map(([, y]) => (y - LAT0) * K.lat)
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
}

describe('areaSqm', () => {
  it('matches GeographicLib to 1e-5 for a 50 km × 50 km square at -30°', () => {
    const k = metresPerDegree(-30)
    const w = 50_000 / k.lon
    const h = 50_000 / k.lat
    const sq: MultiPolygon = [[[[27, -30], [27 + w, -30], [27 + w, -30 + h], [27, -30 + h], [27, -30]]]]
    const exact = geographicLibSqm(sq)
    expect(exact).toBeGreaterThan(2.49e9)
    expect(Math.abs(areaSqm(sq) / exact - 1)).toBeLessThan(1e-5)
  })

  it('matches GeographicLib to 1e-6 for a 1 m² square', () => {
    const sq = rect(0, 0, 1, 1)
    expect(Math.abs(areaSqm(sq) / geographicLibSqm(sq) - 1)).toBeLessThan(1e-6)
  })

  it('hands rings with edges over 10 km to GeographicLib (a thin 150 km triangle, where the sphere is 3e-4 off)', () => {
    const tri: MultiPolygon = [[[[27, -30], [28.5, -30], [28, -29.97], [27, -30]]]]
    expect(Math.abs(areaSqm(tri) / geographicLibSqm(tri) - 1)).toBeLessThan(1e-9)
  })

  it('stays within 1e-6 of GeographicLib on random polygons from 100 m² to 2 500 km², and within its 1e-4 m² below', () => {
    const r = rng(3)
    for (let i = 0; i < 200; i++) {
      const n = 3 + Math.floor(r() * 30)
      const radiusDeg = 10 ** (-5 + r() * 4.4) // ~1 m .. ~28 km
      const cx = 17 + r() * 15
      const cy = -34 + r() * 12
      const ring: Ring = []
      for (let k = 0; k < n; k++) {
        const a = (2 * Math.PI * k) / n
        const rad = radiusDeg * (0.5 + 0.5 * r())
        ring.push([cx + rad * Math.cos(a), cy + rad * Math.sin(a)])
      }
      ring.push(ring[0])
      const mp: MultiPolygon = [[ring]]
      const exact = geographicLibSqm(mp)
      if (exact >= 100) expect(Math.abs(areaSqm(mp) / exact - 1)).toBeLessThan(1e-6)
      else expect(Math.abs(areaSqm(mp) - exact)).toBeLessThan(1e-4)
    }
  })

  it('subtracts holes whatever the winding', () => {
    const shell = rectRing(0, 0, 30, 30)
    const hole = rectRing(10, 10, 20, 20)
    const withHole = areaSqm([[shell, hole]])
    expect(withHole).toBeCloseTo(areaSqm([[shell]]) - areaSqm([[hole]]), 6)
    expect(areaSqm([[[...shell].reverse(), hole]])).toBeCloseTo(withHole, 6)
    expect(withHole).toBeCloseTo(800, 0)
  })
})

describe('lineLengthM', () => {
  it('measures a 200 km line as GeographicLib does, to a millimetre', () => {
    const line: LineString = [
      [26, -29],
      [27.6, -30.3],
    ]
    const exact = karneyDistanceM(26, -29, 27.6, -30.3)
    expect(exact).toBeGreaterThan(200_000)
    expect(exact).toBeLessThan(215_000)
    expect(Math.abs(lineLengthM([line]) - exact)).toBeLessThan(0.001)
  })

  it('sums a 400-vertex route and several parts segment by segment', () => {
    const r = rng(5)
    const route: LineString = [[26, -29]]
    for (let i = 0; i < 399; i++) route.push([route[i][0] + 0.004 + r() * 0.002, route[i][1] - 0.002 + r() * 0.001])
    let exact = 0
    for (let i = 0; i < 399; i++) exact += karneyDistanceM(route[i][0], route[i][1], route[i + 1][0], route[i + 1][1])
    expect(exact).toBeGreaterThan(190_000)
    expect(Math.abs(lineLengthM([route.slice(0, 200), route.slice(199)]) - exact)).toBeLessThan(0.01)
  })
})

describe('polygonOverlap', () => {
  // two adjacent erven of 20 m × 30 m sharing the edge x = 20
  const erfA = rect(0, 0, 20, 30)
  const erfB = rect(20, 0, 40, 30)

  it('splits a 10 m strip across two adjacent erven into 200 m² each (a third of each erf)', () => {
    const strip = rect(-5, 10, 45, 20)
    for (const erf of [erfA, erfB]) {
      const o = polygonOverlap(strip, erf)!
      expect(o.relationship).toBe('crosses')
      // 20 m × 10 m by hand; the 1e-7° grid moves edges by up to 0.6 cm
      expect(Math.abs(o.overlapSqm / 200 - 1)).toBeLessThan(0.005)
      expect(Math.abs((100 * o.overlapSqm) / areaSqm(erf) - 100 / 3)).toBeLessThan(100 / 3 / 200)
      expect(Math.abs(areaSqm(o.geometry) - o.overlapSqm)).toBeLessThan(1e-9)
      const [x0, y0, x1, y1] = extentM(o.geometry)
      expect([x1 - x0, y0, y1]).toEqual([expect.closeTo(20, 1), expect.closeTo(10, 1), expect.closeTo(20, 1)])
    }
  })

  it('reports a strip sharing one edge with an erf as touching, overlap 0, even 1 cm off', () => {
    for (const y of [30, 30 - 0.01, 30 + 0.01]) {
      expect(polygonOverlap(rect(-5, y, 45, y + 10), erfA)).toEqual({ relationship: 'touches', overlapSqm: 0, geometry: [] })
    }
    // the neighbouring erf itself touches too
    expect(polygonOverlap(erfB, erfA)).toEqual({ relationship: 'touches', overlapSqm: 0, geometry: [] })
  })

  it('counts a strip reaching 5 cm into the erf (beyond the 2 cm tolerance) as crossing', () => {
    const strip = rect(-5, 29.95, 45, 40)
    const o = polygonOverlap(strip, erfA)!
    expect(o.relationship).toBe('crosses')
    // 20 m × the depth after rounding to the 1e-7° grid (5.5 cm)
    const depthM = (erfA[0][0][2][1] - strip[0][0][0][1]) * K.lat
    expect(depthM).toBeGreaterThan(2 * 0.02)
    expect(Math.abs(o.overlapSqm / (20 * depthM) - 1)).toBeLessThan(0.005)
  })

  it('says contains for an encumbrance equal to the erf, also when its vertices are 1 cm off', () => {
    const same = polygonOverlap(erfA, erfA)!
    expect(same.relationship).toBe('contains')
    expect(same.overlapSqm).toBeCloseTo(areaSqm(erfA), 9)
    expect(same.geometry).toBe(erfA)
    const noisy: MultiPolygon = [[erfA[0][0].map(([x, y], i) => [round7(x + (i % 2 ? 1e-7 : -1e-7)), round7(y + 1e-7)] as [number, number])]]
    noisy[0][0][4] = noisy[0][0][0]
    expect(polygonOverlap(noisy, erfA)!.relationship).toBe('contains')
    expect(polygonOverlap(rect(-5, -5, 25, 35), erfA)).toMatchObject({ relationship: 'contains', overlapSqm: areaSqm(erfA) })
  })

  it('says within for an encumbrance inside the erf, and for one sharing part of its boundary', () => {
    const inside = rect(5, 5, 10, 15)
    expect(polygonOverlap(inside, erfA)).toMatchObject({ relationship: 'within', overlapSqm: areaSqm(inside), geometry: inside })
    expect(Math.abs(areaSqm(inside) / 50 - 1)).toBeLessThan(0.005)
    const westHalf = rect(0, 0, 10, 30)
    expect(polygonOverlap(westHalf, erfA)).toMatchObject({ relationship: 'within', overlapSqm: areaSqm(westHalf) })
  })

  it('returns null when apart, and for an erf sitting in a hole of the encumbrance', () => {
    expect(polygonOverlap(rect(50, 0, 60, 10), erfA)).toBeNull()
    const ring = [[rectRing(-10, -10, 50, 50), rectRing(-5, -5, 25, 35)]]
    expect(polygonOverlap(ring, erfA)).toBeNull()
    expect(polygonOverlap(ring, rect(-8, -8, -6, -6))).toMatchObject({ relationship: 'contains' })
  })

  it('touches at a single shared corner', () => {
    expect(polygonOverlap(rect(20, 30, 30, 40), erfA)).toEqual({ relationship: 'touches', overlapSqm: 0, geometry: [] })
  })

  it('finds overlapping interiors where boundaries only coincide (multipolygons sharing a part)', () => {
    const shared = rectRing(0, 0, 10, 10)
    const a: MultiPolygon = [[shared], [rectRing(100, 0, 110, 10)]]
    const b: MultiPolygon = [[shared], [rectRing(0, 100, 10, 110)]]
    const o = polygonOverlap(a, b)!
    expect(o.relationship).toBe('crosses')
    expect(o.overlapSqm).toBeCloseTo(areaSqm([[shared]]), 6)
  })

  it('agrees with polyclip on random star polygons against erven, plain and prepared alike', () => {
    const r = rng(17)
    const seen = new Set<string>()
    for (let i = 0; i < 60; i++) {
      // beyond 64 edges the subject is cut to a box first
      const a: MultiPolygon = [[star(r, 5 + Math.floor(r() * 120), 60, [4, 15, 60][i % 3])]]
      const prepared = new PreparedPolygon(a)
      for (let gx = 0; gx < 60; gx += 20)
        for (let gy = 0; gy < 60; gy += 30) {
          const erf = rect(gx, gy, gx + 20, gy + 30)
          const plain = polygonOverlap(a, erf)
          expect(polygonOverlap(prepared, erf)).toEqual(plain)
          const reference = areaSqm(intersection(a, erf))
          seen.add(plain?.relationship ?? 'null')
          if (!plain) expect(reference).toBe(0)
          else if (plain.relationship === 'touches') expect(reference).toBeLessThan(0.05)
          else expect(Math.abs(plain.overlapSqm - reference)).toBeLessThan(1e-6 * reference + 0.01)
        }
    }
    expect([...seen].sort()).toEqual(['contains', 'crosses', 'null', 'touches', 'within'])
  })

  it('answers for a large prepared area with a hole: inside, in the hole, across its edge', () => {
    const area: MultiPolygon = [[rectRing(-1000, -1000, 1000, 1000), rectRing(100, 100, 200, 200)]]
    const prepared = new PreparedPolygon(area)
    expect(prepared.areaSqm).toBeCloseTo(areaSqm(area), 6)
    expect(polygonOverlap(prepared, rect(0, 0, 20, 30))).toMatchObject({ relationship: 'contains' })
    expect(polygonOverlap(prepared, rect(120, 120, 140, 150))).toBeNull()
    const straddling = polygonOverlap(prepared, rect(190, 150, 210, 180))!
    expect(straddling.relationship).toBe('crosses')
    expect(Math.abs(straddling.overlapSqm / 300 - 1)).toBeLessThan(0.005)
  })
})

describe('lineOverlap', () => {
  const erf = rect(0, 0, 20, 30)

  it('measures a line crossing the erf: 20 m inside by hand', () => {
    const o = lineOverlap([[P(-5, 15), P(25, 15)]], erf)!
    expect(o.relationship).toBe('crosses')
    expect(Math.abs(o.overlapM / 20 - 1)).toBeLessThan(0.005)
    expect(o.boundaryM).toBe(0)
    expect(o.geometry).toHaveLength(1)
    expect(lineLengthM(o.geometry)).toBeCloseTo(o.overlapM, 9)
  })

  it('reports a line along an edge as touching, overlapM 0 and boundaryM the edge length, even 1 cm off', () => {
    for (const y of [30, 30.01, 29.99]) {
      const o = lineOverlap([[P(-5, y), P(25, y)]], erf)!
      expect(o.relationship).toBe('touches')
      expect(o.overlapM).toBe(0)
      expect(Math.abs(o.boundaryM / 20 - 1)).toBeLessThan(0.005)
    }
  })

  it('reports a line ending on the boundary from outside as touching with nothing measured, even 1 cm in', () => {
    for (const x of [0, 0.01]) expect(lineOverlap([[P(-5, 15), P(x, 15)]], erf)).toEqual({ relationship: 'touches', overlapM: 0, boundaryM: 0, geometry: [] })
    // through a corner only
    expect(lineOverlap([[P(-5, 5), P(5, -5)]], erf)).toMatchObject({ relationship: 'touches', overlapM: 0 })
  })

  it('says within for a line wholly inside, also when it runs partly along the boundary', () => {
    expect(lineOverlap([[P(2, 2), P(10, 20)]], erf)).toMatchObject({ relationship: 'within' })
    const o = lineOverlap([[P(0, 10), P(0, 20), P(10, 20)]], erf)!
    expect(o.relationship).toBe('within')
    expect(Math.abs(o.boundaryM / 10 - 1)).toBeLessThan(0.005)
    expect(Math.abs(o.overlapM / 10 - 1)).toBeLessThan(0.005)
    expect(o.geometry).toHaveLength(1)
  })

  it('keeps interior and boundary lengths apart for a line that runs along an edge and then in', () => {
    const o = lineOverlap([[P(-5, 0), P(10, 0), P(10, 20), P(10, 40)]], erf)!
    expect(o.relationship).toBe('crosses')
    expect(Math.abs(o.boundaryM / 10 - 1)).toBeLessThan(0.005)
    expect(Math.abs(o.overlapM / 30 - 1)).toBeLessThan(0.005)
  })

  it('returns null when apart', () => {
    expect(lineOverlap([[P(30, 0), P(30, 30)]], erf)).toBeNull()
  })

  it('agrees with Liang–Barsky clipping (up to the tolerance) on random routes through a block of erven, plain and prepared alike', () => {
    const r = rng(29)
    const seen = new Set<string>()
    for (let i = 0; i < 40; i++) {
      // long walks across many erven, and short ones that can stay inside one
      const stepDeg = i % 4 === 1 ? 0.00002 : 0.0004
      const route: LineString = [P(r() * 100, r() * 100)]
      for (let k = 0; k < 30; k++) {
        const [x, y] = route[route.length - 1]
        route.push([round7(x + (r() - 0.5) * stepDeg), round7(y + (r() - 0.5) * stepDeg)])
      }
      // some routes run exactly along the erf lines
      if (i % 5 === 0) route.push(P(0, 30), P(60, 30), P(60, 90))
      const prepared = new PreparedLines([route])
      for (let gx = 0; gx < 100; gx += 20)
        for (let gy = 0; gy < 100; gy += 30) {
          const erf = rect(gx, gy, gx + 20, gy + 30)
          const plain = lineOverlap([route], erf)
          expect(lineOverlap(prepared, erf)).toEqual(plain)
          seen.add(plain?.relationship ?? 'null')
          // interior pieces are cut at exact crossings, so they are inside; what the clip finds
          // inside is interior or lies within the 2 cm tolerance, where it counts as boundary
          const closedLength = liangBarsky(route, erf[0][0])
          expect(plain?.overlapM ?? 0).toBeLessThan(closedLength + 0.05)
          expect(plain?.overlapM ?? 0).toBeGreaterThan(closedLength - (plain?.boundaryM ?? 0) - 0.05)
        }
    }
    expect([...seen].sort()).toEqual(['crosses', 'null', 'touches', 'within'])
  })
})

/** Length in metres of a route inside a closed axis-aligned box ring: an independent clip. */
function liangBarsky(route: LineString, box: Ring): number {
  const [minX, minY] = box[0]
  const [maxX, maxY] = box[2]
  let total = 0
  for (let i = 0; i + 1 < route.length; i++) {
    const [x0, y0] = route[i]
    const [x1, y1] = route[i + 1]
    let lo = 0
    let hi = 1
    const edges: [number, number][] = [
      [-(x1 - x0), x0 - minX],
      [x1 - x0, maxX - x0],
      [-(y1 - y0), y0 - minY],
      [y1 - y0, maxY - y0],
    ]
    let empty = false
    for (const [p, q] of edges) {
      if (p === 0) {
        if (q < 0) empty = true
        continue
      }
      const t = q / p
      if (p < 0) lo = Math.max(lo, t)
      else hi = Math.min(hi, t)
    }
    if (empty || hi <= lo) continue
    total += karneyDistanceM(x0 + (x1 - x0) * lo, y0 + (y1 - y0) * lo, x0 + (x1 - x0) * hi, y0 + (y1 - y0) * hi)
  }
  return total
}

describe('lineLineOverlap', () => {
  it('says crosses with no shared length for an X', () => {
    expect(lineLineOverlap([[P(0, 0), P(10, 10)]], [[P(0, 10), P(10, 0)]])).toEqual({ relationship: 'crosses', overlapM: 0 })
  })

  it('measures a collinear overlap: 5 m shared by hand', () => {
    const o = lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(5, 0), P(20, 0)]])!
    expect(o.relationship).toBe('crosses')
    expect(Math.abs(o.overlapM / 5 - 1)).toBeLessThan(0.005)
  })

  it('says touches where they meet only at an end point of either, and null when apart', () => {
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(10, 0), P(10, 10)]])).toEqual({ relationship: 'touches', overlapM: 0 })
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(5, 0), P(5, 10)]])).toEqual({ relationship: 'touches', overlapM: 0 })
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(10.01, 0), P(20, 0)]])).toEqual({ relationship: 'touches', overlapM: 0 })
    expect(lineLineOverlap([[P(0, 0), P(10, 0)]], [[P(0, 1), P(10, 1)]])).toBeNull()
  })

  it('says crosses when an interior vertex of one lies on the other', () => {
    expect(lineLineOverlap([[P(0, 0), P(5, 5), P(10, 0)]], [[P(0, 5), P(10, 5)]])).toMatchObject({ relationship: 'crosses' })
  })

  it('gives the same answers prepared as plain on random lines', () => {
    const r = rng(41)
    const seen = new Set<string>()
    const walk = (n: number): LineString => {
      const out: LineString = [P(r() * 100, r() * 100)]
      for (let k = 0; k < n; k++) out.push(P((out[k][0] - LON0) * K.lon + (r() - 0.5) * 40, (out[k][1] - LAT0) * K.lat + (r() - 0.5) * 40))
      return out
    }
    for (let i = 0; i < 200; i++) {
      const a: MultiLineString = [walk(20), walk(5)]
      const b: MultiLineString = i % 4 === 0 ? [a[0].slice(3, 8)] : [walk(3)]
      const plain = lineLineOverlap(a, b)
      expect(lineLineOverlap(new PreparedLines(a), b)).toEqual(plain)
      seen.add(plain?.relationship ?? 'null')
    }
    expect([...seen].sort()).toEqual(['crosses', 'null'])
  })
})

describe('nearBox (the overlap pass passes over parcels whose box a geometry does not come near)', () => {
  const boxOf = (mp: MultiPolygon) => {
    const xs = mp.flat(2).map((p) => p[0])
    const ys = mp.flat(2).map((p) => p[1])
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] as const
  }

  it('measures the margin in metres: a box 5 cm off an edge is near within 10 cm, not within 1 cm', () => {
    const area = new PreparedPolygon(rect(0, 0, 100, 10))
    const box = boxOf(rect(100.05, 0, 120, 10))
    expect(area.nearBox(...box, 0.1)).toBe(true)
    expect(area.nearBox(...box, 0.01)).toBe(false)
    const line = new PreparedLines([[P(0, 5), P(100, 5)]])
    expect(line.nearBox(...boxOf(rect(20, 5.05, 40, 20)), 0.1)).toBe(true)
    expect(line.nearBox(...boxOf(rect(20, 5.5, 40, 20)), 0.1)).toBe(false)
  })

  it('says near for a box inside the polygon, or holding it, and not for one in its hole or beside a diagonal edge', () => {
    const area = new PreparedPolygon([[rectRing(-1000, -1000, 1000, 1000), rectRing(100, 100, 200, 200)]])
    expect(area.nearBox(...boxOf(rect(0, 0, 20, 30)), 0.1)).toBe(true)
    expect(area.nearBox(...boxOf(rect(-2000, -2000, 2000, 2000)), 0.1)).toBe(true)
    expect(area.nearBox(...boxOf(rect(120, 120, 140, 150)), 0.1)).toBe(false)
    // the triangle's box covers the erf's box; its hypotenuse passes 7 m from the erf's corner
    const triangle = new PreparedPolygon([[[P(0, 0), P(100, 0), P(0, 100), P(0, 0)]]])
    expect(triangle.nearBox(...boxOf(rect(55, 55, 60, 60)), 0.1)).toBe(false)
    // the plain line goes through a box only its own box overlaps otherwise
    const diagonal = new PreparedLines([[P(0, 0), P(100, 100)]])
    expect(diagonal.nearBox(...boxOf(rect(40, 45, 60, 55)), 0.1)).toBe(true)
    expect(diagonal.nearBox(...boxOf(rect(0, 60, 20, 80)), 0.1)).toBe(false)
  })

  it('never passes over an erf that polygonOverlap or lineOverlap finds meeting (random stars and walks against a block)', () => {
    const r = rng(41)
    let met = 0
    let skipped = 0
    for (let i = 0; i < 40; i++) {
      const area = new PreparedPolygon([[star(r, 5 + Math.floor(r() * 80), 100, [4, 15, 60][i % 3])]])
      const route: LineString = [P(r() * 100, r() * 100)]
      for (let k = 0; k < 20; k++) route.push(P((route[k][0] - LON0) * K.lon + (r() - 0.5) * 40, (route[k][1] - LAT0) * K.lat + (r() - 0.5) * 40))
      const line = new PreparedLines([route])
      for (let gx = 0; gx < 100; gx += 20)
        for (let gy = 0; gy < 100; gy += 30) {
          const erf = rect(gx, gy, gx + 20, gy + 30)
          for (const [prepared, meets] of [
            [area, polygonOverlap(area, erf)],
            [line, lineOverlap(line, erf)],
          ] as const) {
            const near = prepared.nearBox(...boxOf(erf), 0.1)
            if (meets) {
              met++
              expect(near).toBe(true)
            } else if (!near) skipped++
          }
        }
    }
    // both kinds of answer occur, so the test can fail either way
    expect(met).toBeGreaterThan(100)
    expect(skipped).toBeGreaterThan(100)
  })
})

describe('bufferLines', () => {
  it('gives a straight line of length L an area of L × width, with flat ends', () => {
    const line: LineString = [P(0, 0), P(100, 0)]
    const strip = bufferLines([line], 5)
    expect(strip).toHaveLength(1)
    expect(Math.abs(areaSqm(strip) / (lineLengthM([line]) * 10) - 1)).toBeLessThan(1e-3)
    // flat: nothing beyond the end point along the line, all of the width beside it
    expect(locatePoint(strip, ...P(100.5, 0))).toBe(-1)
    expect(locatePoint(strip, ...P(99.5, 4.9))).toBe(1)
    expect(polygonProblems(strip[0])).toEqual([])
  })

  it('rounds the outside of a bend: an L of 2 × 100 m, 10 m wide, covers 2000 − 25(1 − π/4) m²', () => {
    const strip = bufferLines([[P(0, 0), P(100, 0), P(100, 100)]], 5)
    expect(strip).toHaveLength(1)
    expect(Math.abs(areaSqm(strip) / (2000 - 25 * (1 - Math.PI / 4)) - 1)).toBeLessThan(1e-3)
    // the outer corner is cut round: (104, -4) is 5.66 m from the bend, outside
    expect(locatePoint(strip, ...P(104, -4))).toBe(-1)
    expect(locatePoint(strip, ...P(103, -3))).toBe(1)
    expect(polygonProblems(strip[0])).toEqual([])
  })

  it('merges parts and skips parts without length', () => {
    const strips = bufferLines(
      [
        [P(0, 0), P(50, 0)],
        [P(0, 100), P(0, 100)],
        [P(25, -20), P(25, 20)],
      ],
      2,
    )
    expect(strips).toHaveLength(1)
    expect(Math.abs(areaSqm(strips) / (50 * 4 + 40 * 4 - 16) - 1)).toBeLessThan(5e-3)
  })

  it('refuses a width that is not positive', () => {
    expect(() => bufferLines([[P(0, 0), P(1, 0)]], 0)).toThrow(RangeError)
  })
})

describe('lineProblems', () => {
  it('accepts a plain line, also with consecutive duplicate positions', () => {
    expect(lineProblems([P(0, 0), P(10, 0), P(10, 0), P(20, 5)])).toEqual([])
  })

  it('names a bow-tie crossing', () => {
    expect(lineProblems([P(0, 0), P(10, 10), P(10, 0), P(0, 10)])).toEqual([`line crosses itself near ${fmt(P(5, 5))}`])
  })

  it('names a touch, a doubling back, and too few positions', () => {
    expect(lineProblems([P(0, 0), P(10, 0), P(10, 10), P(5, 0)])).toEqual([`line crosses itself near ${fmt(P(5, 0))}`])
    expect(lineProblems([P(0, 0), P(10, 0), P(5, 0)])).toEqual([`line crosses itself near ${fmt(P(10, 0))}`])
    expect(lineProblems([P(0, 0), P(0, 0)])).toEqual(['line has fewer than 2 distinct positions'])
    expect(lineProblems([P(0, 0), [NaN, 1]])).toEqual(['position 1 is not a finite [lon, lat] pair'])
  })

  it('lists three places of a long zig-zag, then says there are more (indexed path beyond 32 segments)', () => {
    const zig: LineString = [P(0, 0)]
    for (let k = 1; k <= 40; k++) zig.push(P(k * 10, k % 2 ? 10 : 0))
    zig.push(P(0, 5))
    const problems = lineProblems(zig)
    expect(problems).toHaveLength(4)
    expect(problems.slice(0, 3).every((m) => m.startsWith('line crosses itself near '))).toBe(true)
    expect(problems[3]).toBe('line crosses itself in further places')
  })
})

describe('polygonProblems', () => {
  it('accepts an erf with a hole', () => {
    expect(polygonProblems([rectRing(0, 0, 30, 30), rectRing(10, 10, 20, 20)])).toEqual([])
  })

  it('names a figure-eight ring', () => {
    expect(polygonProblems([[P(0, 0), P(10, 10), P(10, 0), P(0, 10), P(0, 0)]])).toEqual([`ring 0 crosses itself near ${fmt(P(5, 5))}`])
  })

  it('names a hole outside the shell, one crossing it, and holes crossing each other', () => {
    const shell = rectRing(0, 0, 30, 30)
    expect(polygonProblems([shell, rectRing(40, 0, 50, 10)])).toEqual(['ring 1 (a hole) lies outside the shell'])
    expect(polygonProblems([shell, rectRing(25, 10, 35, 20)])).toEqual([`ring 1 (a hole) crosses or touches the shell near ${fmt(P(30, 10))}`])
    expect(polygonProblems([shell, rectRing(5, 5, 15, 15), rectRing(10, 10, 20, 20)])).toEqual([`ring 2 crosses or touches ring 1 near ${fmt(P(15, 10))}`])
  })

  it('names open, short, degenerate and non-numeric rings, and an empty polygon', () => {
    expect(polygonProblems([[P(0, 0), P(10, 0), P(10, 10), P(0, 10)]])).toEqual(['ring 0 is not closed: its first and last positions differ'])
    expect(polygonProblems([[P(0, 0), P(10, 0), P(0, 0)]])).toEqual(['ring 0 has 3 positions; a ring needs at least 4'])
    expect(polygonProblems([[P(0, 0), P(10, 0), P(10, 0), P(0, 0)]])).toEqual(['ring 0 has fewer than 3 distinct positions'])
    expect(polygonProblems([[P(0, 0), P(10, 0), [1, Infinity], P(0, 0)]])).toEqual(['ring 0 position 2 is not a finite [lon, lat] pair'])
    expect(polygonProblems([] as Polygon)).toEqual(['polygon has no rings'])
  })

  it('finds a crossing in a large ring (indexed path)', () => {
    const ring: Ring = []
    for (let k = 0; k < 100; k++) ring.push(P(100 * Math.cos((2 * Math.PI * k) / 100), 100 * Math.sin((2 * Math.PI * k) / 100)))
    ;[ring[10], ring[60]] = [ring[60], ring[10]]
    ring.push(ring[0])
    const problems = polygonProblems([ring])
    expect(problems.length).toBeGreaterThan(0)
    expect(problems[0]).toMatch(/^ring 0 crosses itself near /)
  })
})

describe('bufferLines on surveyed lines that once defeated the merge', () => {
  it('a zig-zag with acute bends (a national water servitude) gives one simple strip of length x width', () => {
    const l: [number, number][] = [[27.1254167, -31.5963651], [27.1269167, -31.5930369], [27.1284167, -31.592972], [27.1299166, -31.5871572], [27.1314166, -31.5965895], [27.1329166, -31.5864717]]
    const b = bufferLines([l], 0.55)
    expect(b).toHaveLength(1)
    expect(polygonProblems(b[0])).toEqual([])
    const want = lineLengthM([l]) * 1.1
    expect(Math.abs(areaSqm(b) - want) / want).toBeLessThan(0.005)
  })
  it('a long straight line whose rounded positions bend left and right by a hair stays one strip', () => {
    const l: [number, number][] = [[18.9670918, -33.7053435], [18.9673209, -33.705331], [18.96755, -33.7053186], [18.9677791, -33.7053061], [18.9680083, -33.7052936], [18.9682374, -33.7052811]]
    const b = bufferLines([l], 0.95)
    expect(b).toHaveLength(1)
    expect(polygonProblems(b[0])).toEqual([])
    const want = lineLengthM([l]) * 1.9
    expect(Math.abs(areaSqm(b) - want) / want).toBeLessThan(0.001)
  })
})
