import KDBush from 'kdbush'
import { describe, expect, it } from 'vitest'
import { Random } from '../../build-index/synth/random.js'
import { KdBoxes, nearestCandidate, nearestOnSphere } from './kd-nearest.js'
import { boxKm, sphereKm } from './sphere.js'

function tree(points: [number, number][], nodeSize = 8) {
  const kd = new KDBush(points.length, nodeSize, Float64Array)
  for (const [x, y] of points) kd.add(x, y)
  kd.finish()
  return kd
}

function brute(points: [number, number][], lon: number, lat: number, maxKm: number, accept?: (i: number) => boolean) {
  let best = -1
  let bestKm = Infinity
  points.forEach(([x, y], i) => {
    if (accept && !accept(i)) return
    const d = sphereKm(lon, lat, x, y)
    if (d <= maxKm && d < bestKm) {
      best = i
      bestKm = d
    }
  })
  return { best, bestKm }
}

describe('boxKm', () => {
  it('is zero inside, the latitude gap straight north or south, and never more than the distance to any box point', () => {
    expect(boxKm(25, -24, 20, -27, 29, -18)).toBe(0)
    expect(boxKm(25, -30, 20, -27, 29, -18)).toBeCloseTo(sphereKm(25, -30, 25, -27), 9)
    const rnd = new Random(7, 'boxKm')
    for (let k = 0; k < 2000; k++) {
      const [x0, x1] = [rnd.range(10, 40), rnd.range(10, 40)].sort((a, b) => a - b)
      const [y0, y1] = [rnd.range(-40, -10), rnd.range(-40, -10)].sort((a, b) => a - b)
      const lon = rnd.range(0, 50)
      const lat = rnd.range(-50, 0)
      const bound = boxKm(lon, lat, x0, y0, x1, y1)
      let min = Infinity
      for (let i = 0; i <= 20; i++)
        for (let j = 0; j <= 20; j++)
          min = Math.min(min, sphereKm(lon, lat, x0 + ((x1 - x0) * i) / 20, y0 + ((y1 - y0) * j) / 20))
      expect(bound).toBeLessThanOrEqual(min + 1e-9)
      // and tight: the grid is 1/20 of the box, so the bound is close to the sampled minimum
      expect(min - bound).toBeLessThan((Math.max(x1 - x0, y1 - y0) * 111.4) / 20 + 1e-6)
    }
  })
})

describe('KdBoxes', () => {
  it("gives every node of KDBush's implicit tree the exact box of the points below it", () => {
    const rnd = new Random(11, 'kd-boxes')
    for (const [n, nodeSize] of [
      [1, 4],
      [2, 1],
      [5, 4],
      [6, 4],
      [7, 1],
      [1000, 8],
      [4097, 16],
      [2500, 64],
      [9999, 3],
    ]) {
      const points: [number, number][] = []
      for (let i = 0; i < n; i++)
        points.push(i % 3 ? [rnd.range(16, 33), rnd.range(-35, -17)] : [rnd.range(25.8, 26), rnd.range(-24.8, -24.6)])
      const kd = tree(points, nodeSize)
      const b = new KdBoxes(kd).b
      let nodes = 0
      // walk the tree the way the searches do and compare each node's box with its items'
      const visit = (k: number, left: number, right: number) => {
        nodes++
        expect(4 * k + 3, `node ${k} of ${n}/${nodeSize} fits`).toBeLessThan(b.length)
        let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
        for (let j = left; j <= right; j++) {
          x0 = Math.min(x0, kd.coords[2 * j])
          y0 = Math.min(y0, kd.coords[2 * j + 1])
          x1 = Math.max(x1, kd.coords[2 * j])
          y1 = Math.max(y1, kd.coords[2 * j + 1])
        }
        expect([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]], `node ${k} of ${n}/${nodeSize}`).toEqual([
          x0,
          y0,
          x1,
          y1,
        ])
        if (right - left <= kd.nodeSize) return // KDBush raises a node size below 2 to 2
        const m = (left + right) >> 1
        visit(2 * k, left, m - 1)
        visit(2 * k + 1, m + 1, right)
      }
      visit(1, 0, n - 1)
      expect(nodes).toBeGreaterThan(n > kd.nodeSize + 1 ? 2 : 0)
    }
  })

  it('is empty for an empty tree, and the searches answer nothing over it', () => {
    const kd = tree([])
    const boxes = new KdBoxes(kd)
    expect(nearestOnSphere(kd, boxes, 25, -25, 100)).toBe(-1)
    expect(nearestCandidate(kd, boxes, 25, -25, 100)).toBe(-1)
  })
})

describe('nearestOnSphere', () => {
  const rnd = new Random(3, 'nearest')
  // two clusters far apart (a "Botswana" and a "South Africa"), like the plot layers
  const points: [number, number][] = []
  for (let i = 0; i < 3000; i++) points.push([rnd.range(25.8, 26.0), rnd.range(-24.8, -24.6)])
  for (let i = 0; i < 3000; i++) points.push([rnd.range(18.3, 18.6), rnd.range(-34.1, -33.8)])
  const kd = tree(points)
  const box = new KdBoxes(kd)

  it('agrees with brute force near the points, far from them, and at the edge of the reach', () => {
    for (let k = 0; k < 1500; k++) {
      const lon = rnd.range(15, 33)
      const lat = rnd.range(-35, -22)
      const maxKm = [0.2, 5, 100, 2000][k % 4]
      const got = nearestOnSphere(kd, box, lon, lat, maxKm)
      const want = brute(points, lon, lat, maxKm)
      if (want.best === -1) expect(got).toBe(-1)
      else expect(sphereKm(lon, lat, ...points[kd.ids[got]])).toBeCloseTo(want.bestKm, 9)
    }
  })

  it('honours the predicate', () => {
    const even = (i: number) => i % 2 === 0
    for (let k = 0; k < 300; k++) {
      const lon = rnd.range(25.7, 26.1)
      const lat = rnd.range(-24.9, -24.5)
      const got = nearestOnSphere(kd, box, lon, lat, 50, even)
      expect(kd.ids[got] % 2).toBe(0)
      expect(sphereKm(lon, lat, ...points[kd.ids[got]])).toBeCloseTo(brute(points, lon, lat, 50, even).bestKm, 9)
    }
  })

  it('answers -1 at once for a point beyond the reach of the whole tree', () => {
    expect(nearestOnSphere(kd, box, 30, -30, 100)).toBe(-1)
    expect(nearestOnSphere(kd, box, 30, -30, 2000)).toBeGreaterThanOrEqual(0)
  })
})

describe('nearestCandidate', () => {
  const rnd = new Random(5, 'candidate')
  const points: [number, number][] = []
  for (let i = 0; i < 3000; i++) points.push([rnd.range(25.8, 26.0), rnd.range(-24.8, -24.6)])
  for (let i = 0; i < 3000; i++) points.push([rnd.range(18.3, 18.6), rnd.range(-34.1, -33.8)])
  // a sparse scatter, so reaches of 50–200 km have a point near their edge
  for (let i = 0; i < 300; i++) points.push([rnd.range(16, 32), rnd.range(-35, -18)])
  const kd = tree(points)
  const box = new KdBoxes(kd)

  it('never misses a point inside the reach, and finds one within 3 % of the nearest distance', () => {
    let flatUsed = 0
    for (let k = 0; k < 4000; k++) {
      const lon = rnd.range(15, 33)
      const lat = rnd.range(-36, -17)
      const maxKm = [0.2, 5, 50, 120, 199][k % 5]
      const got = nearestCandidate(kd, box, lon, lat, maxKm)
      const want = brute(points, lon, lat, maxKm)
      if (want.best === -1) {
        // nothing on the sphere within the reach: at most a point just beyond it
        if (got !== -1) expect(sphereKm(lon, lat, ...points[kd.ids[got]])).toBeLessThanOrEqual(maxKm * 1.03 * 1.02)
        continue
      }
      flatUsed++
      expect(got).toBeGreaterThanOrEqual(0)
      expect(sphereKm(lon, lat, ...points[kd.ids[got]])).toBeLessThanOrEqual(want.bestKm * 1.035 + 1e-9)
    }
    expect(flatUsed).toBeGreaterThan(1000)
  })

  it('honours the predicate and uses the sphere beyond 200 km', () => {
    const even = (i: number) => i % 2 === 0
    for (let k = 0; k < 300; k++) {
      const lon = rnd.range(25.7, 26.1)
      const lat = rnd.range(-24.9, -24.5)
      const got = nearestCandidate(kd, box, lon, lat, 50, even)
      expect(kd.ids[got] % 2).toBe(0)
    }
    // 2000 km: exactly the sphere walk's answer
    for (let k = 0; k < 200; k++) {
      const lon = rnd.range(15, 33)
      const lat = rnd.range(-35, -22)
      expect(nearestCandidate(kd, box, lon, lat, 2000)).toBe(nearestOnSphere(kd, box, lon, lat, 2000))
    }
  })
})
