import KDBush from 'kdbush'
import { describe, expect, it } from 'vitest'
import { Random } from '../../build-index/synth/random.js'
import { fastGeodesicM, geodesicDistanceM, karneyDistanceM } from './geodesic.js'
import { bandScales, PointIndex } from './point-index.js'

const rnd = new Random(5, 'point-index')
// a dense township, a sparse scatter, and a far cluster
const pts: [number, number][] = []
for (let i = 0; i < 4000; i++) pts.push([rnd.range(28.0, 28.02), rnd.range(-26.02, -26.0)])
for (let i = 0; i < 1500; i++) pts.push([rnd.range(27, 29.5), rnd.range(-27, -25)])
for (let i = 0; i < 500; i++) pts.push([rnd.range(18.4, 18.5), rnd.range(-34, -33.9)])
// exact duplicates of scattered points (sectional-title units share a position): ties
for (let i = 0; i < 200; i++) pts.push(pts[4000 + i * 7])
/** The serialized KDBush of the points, as build-index writes it. */
function kdData(points: [number, number][]): ArrayBuffer {
  const tree = new KDBush(points.length, 16, Float64Array)
  for (const [x, y] of points) tree.add(x, y)
  tree.finish()
  return tree.data as ArrayBuffer
}
const data = kdData(pts)
const index = PointIndex.from(data, pts.length)

function brute(lon: number, lat: number, radiusM: number, accept?: (i: number) => boolean) {
  const out: { i: number; d: number }[] = []
  pts.forEach(([x, y], i) => {
    if (accept && !accept(i)) return
    const d = geodesicDistanceM(lon, lat, x, y)
    if (d <= radiusM) out.push({ i, d })
  })
  return out.sort((a, b) => a.d - b.d || a.i - b.i)
}

describe('PointIndex', () => {
  it(
    'candidate and nearest give the item with its own coordinates, without the item -> position table lon(i) ' +
      'makes',
    () => {
      const fresh = PointIndex.from(data, pts.length)
      const before = fresh.memoryBytes
      for (let k = 0; k < 300; k++) {
        const lon = rnd.range(27, 29.5)
        const lat = rnd.range(-27, -25)
        for (const h of [fresh.candidate(lon, lat, 50_000), fresh.nearest(lon, lat, 50_000)]) {
          expect(h).not.toBeNull()
          expect([h!.lon, h!.lat]).toEqual(pts[h!.i])
        }
      }
      expect(fresh.memoryBytes).toBe(before)
      for (let i = 0; i < pts.length; i += 97) expect([fresh.lon(i), fresh.lat(i)]).toEqual(pts[i])
      expect(fresh.memoryBytes).toBe(before + pts.length * 4)
    },
  )

  it('within: every point inside the radius, nearest first, cut at the limit, distances to 0.01 mm', () => {
    for (let k = 0; k < 300; k++) {
      const lon = rnd.range(27.9, 28.1)
      const lat = rnd.range(-26.1, -25.9)
      const radius = [50, 500, 5000][k % 3]
      const limit = [1, 100, 500][(k >> 2) % 3]
      const got = index.within(lon, lat, radius, limit)
      const want = brute(lon, lat, radius).slice(0, limit)
      expect(got.map((h) => h.i)).toEqual(want.map((w) => w.i))
      got.forEach((h, j) => {
        expect(Math.abs(h.distanceM - want[j].d)).toBeLessThan(1e-5)
      })
      // each hit carries its point's coordinates, and its distance is fastGeodesicM's to the digit
      got.forEach((h) => {
        expect([h.lon, h.lat]).toEqual(pts[h.i])
      })
      got.forEach((h) => {
        expect(h.distanceM).toBe(fastGeodesicM(lon, lat, pts[h.i][0], pts[h.i][1]))
      })
    }
  })

  it(
    'within: the same answers as a full scan by fastGeodesicM where the scale varies most across the box (around ' +
      'the equator, at 59°S, boxes of up to 2°)',
    () => {
      for (const [lat0, spread] of [
        [0, 1],
        [-59, 1],
      ]) {
        const r = new Random(11, `point-index/${lat0}`)
        const p: [number, number][] = []
        for (let i = 0; i < 3000; i++)
          p.push([r.range(20 - spread, 20 + spread), r.range(lat0 - spread, lat0 + spread)])
        const ix = PointIndex.from(kdData(p), p.length)
        for (let k = 0; k < 60; k++) {
          const lon = r.range(20 - spread / 2, 20 + spread / 2)
          const lat = r.range(lat0 - spread / 2, lat0 + spread / 2)
          const radius = [800, 20_000, 110_000][k % 3]
          const limit = [1, 30, 5000][(k >> 2) % 3]
          const want = p
            .map(([x, y], i) => ({ i, d: fastGeodesicM(lon, lat, x, y) }))
            .filter((w) => w.d <= radius)
            .sort((a, b) => a.d - b.d || a.i - b.i)
            .slice(0, limit)
          const got = ix.within(lon, lat, radius, limit)
          expect(got.map((h) => h.i)).toEqual(want.map((w) => w.i))
          expect(got.map((h) => h.distanceM)).toEqual(want.map((w) => w.d))
        }
      }
    },
  )

  it(
    'settle: the same answer as a full scan where the scale varies most (around the equator, at 59°S), from 1 to ' +
      '100 km',
    () => {
      for (const lat0 of [0, -59]) {
        const r = new Random(12, `point-index/settle/${lat0}`)
        const p: [number, number][] = []
        for (let i = 0; i < 3000; i++) p.push([r.range(19, 21), r.range(lat0 - 1, lat0 + 1)])
        const ix = PointIndex.from(kdData(p), p.length)
        for (let k = 0; k < 90; k++) {
          const lon = r.range(19.5, 20.5)
          const lat = r.range(lat0 - 0.5, lat0 + 0.5)
          const radius = [1_500, 20_000, 100_000][k % 3]
          let want: { i: number; d: number } | null = null
          p.forEach(([x, y], i) => {
            const d = fastGeodesicM(lon, lat, x, y)
            if (d <= radius && (!want || d < want.d)) want = { i, d }
          })
          const got = ix.settle(lon, lat, radius)
          const w = want as { i: number; d: number } | null
          expect(got ? [got.i, got.distanceM] : null).toEqual(w ? [w.i, w.d] : null)
        }
      }
    },
  )

  it(
    'bandScales: the flat distance with them never exceeds the geodesic within the radius; at South African ' +
      'latitudes out to 100 km it is within 1.5 % of it',
    () => {
      const r = new Random(13, 'point-index/band')
      let worstHere = 0
      for (let k = 0; k < 4000; k++) {
        const lat = [r.range(-0.5, 0.5), r.range(-35, -17), r.range(-60, -58), r.range(58, 60)][k % 4]
        const lon = r.range(17, 30)
        const radius = [1_000, 30_000, 100_000, 200_000][(k >> 2) % 4]
        const s = bandScales(lat, radius)
        // a point at a random bearing and distance up to the radius
        const d = radius * Math.sqrt(r.float())
        const a = r.range(0, 2 * Math.PI)
        const x = lon + (d * Math.cos(a)) / s.lon
        const y = lat + (d * Math.sin(a)) / s.lat
        const exact = karneyDistanceM(lon, lat, x, y)
        if (exact > radius) continue
        const flat = Math.hypot((x - lon) * s.lon, (y - lat) * s.lat)
        expect(flat).toBeLessThanOrEqual(exact)
        if (k % 4 === 1 && radius <= 100_000) worstHere = Math.max(worstHere, 1 - flat / exact)
      }
      // the bound it replaced (flat on the sphere over 1.03) left 3 % of every distance unmeasured
      expect(worstHere).toBeGreaterThan(0)
      expect(worstHere).toBeLessThan(0.015)
    },
  )

  it('within: with fewer than `limit` points inside half the radius, the answer reaches out to the whole radius', () => {
    // the half-radius first search finds 9 of the 10 asked for; the 10th lies at ~800 m
    const p: [number, number][] = []
    for (let k = 0; k < 9; k++) p.push([28 + 0.0002 * Math.cos(k), -26 + 0.0002 * Math.sin(k)])
    for (let k = 0; k < 5; k++) p.push([28 + 0.0072 * Math.cos(k + 0.5), -26 + 0.0072 * Math.sin(k + 0.5)])
    const ix = PointIndex.from(kdData(p), p.length)
    const all = p.map(([x, y], i) => ({ i, d: fastGeodesicM(28, -26, x, y) })).sort((a, b) => a.d - b.d || a.i - b.i)
    expect(all[9].d).toBeGreaterThan(500)
    for (const limit of [9, 10, 14])
      expect(ix.within(28, -26, 1000, limit).map((h) => h.i)).toEqual(all.slice(0, limit).map((w) => w.i))
    // and with an accept filter that leaves 8 of the 9 near ones
    expect(ix.within(28, -26, 1000, 10, (i) => i !== 3).map((h) => h.i)).toEqual(
      all
        .filter((w) => w.i !== 3)
        .slice(0, 10)
        .map((w) => w.i),
    )
  })

  it('within honours the accept predicate', () => {
    const odd = (i: number) => i % 2 === 1
    const got = index.within(28.01, -26.01, 800, 50, odd)
    expect(got.map((h) => h.i)).toEqual(
      brute(28.01, -26.01, 800, odd)
        .slice(0, 50)
        .map((w) => w.i),
    )
  })

  it('nearest: the geodesically nearest point within the reach, from inside, beside and far from the data', () => {
    for (let k = 0; k < 300; k++) {
      const lon = rnd.range(17, 31)
      const lat = rnd.range(-35, -22)
      const reach = [300, 20_000, 100_000, 2_000_000][k % 4]
      const got = index.nearest(lon, lat, reach)
      const want = brute(lon, lat, reach)[0]
      if (!want) expect(got).toBeNull()
      else expect(got?.i).toBe(want.i)
    }
  })

  it('nearest finds the point a few hundred metres from a scattered point (the sphere pass then the exact pass)', () => {
    for (let k = 0; k < 300; k++) {
      const [x, y] = pts[4000 + rnd.int(0, 1499)]
      const lon = x + rnd.range(-0.004, 0.004)
      const lat = y + rnd.range(-0.004, 0.004)
      const want = brute(lon, lat, 100_000)[0]
      const got = index.nearest(lon, lat, 100_000)
      expect(got?.i).toBe(want.i)
      expect(Math.abs(got!.distanceM - want.d)).toBeLessThan(1e-5)
      // the hit carries the point's own coordinates
      expect([got!.lon, got!.lat]).toEqual(pts[want.i])
    }
  })

  it('settle (the exact step of nearest) equals the radius search first hit, ties to the lower item', () => {
    const even = (i: number) => i % 2 === 0
    for (let k = 0; k < 1500; k++) {
      const base = pts[4000 + rnd.int(0, 1699)]
      const lon = base[0] + rnd.range(-0.3, 0.3)
      const lat = base[1] + rnd.range(-0.3, 0.3)
      const radius = [100, 2_000, 30_000, 100_000][k % 4]
      const accept = k % 5 === 0 ? even : undefined
      const want = index.within(lon, lat, radius, 1, accept)[0] ?? null
      expect(index.settle(lon, lat, radius, accept)).toEqual(want)
    }
    // a duplicate pair: the lower item number wins at distance 0
    const dup = pts.length - 1
    const orig = 4000 + 199 * 7
    expect(index.settle(pts[dup][0], pts[dup][1], 50)).toEqual({
      i: orig,
      distanceM: 0,
      lon: pts[orig][0],
      lat: pts[orig][1],
    })
    expect(index.nearest(pts[dup][0], pts[dup][1], 50)).toEqual({
      i: orig,
      distanceM: 0,
      lon: pts[orig][0],
      lat: pts[orig][1],
    })
  })
})
