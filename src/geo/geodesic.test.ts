import { describe, expect, it } from 'vitest'
import {
  APPROX_REL_ERROR,
  approxDistanceM,
  beyondReach,
  degreesAround,
  fastGeodesicM,
  geodesicDistanceM,
  karneyDistanceM,
  metresPerDegree,
  SHORT_M,
} from './geodesic.js'

// seeded so failures are repeatable
function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
}

describe('geodesicDistanceM', () => {
  it('is 0 on the point', () => {
    expect(geodesicDistanceM(25.9, -24.6, 25.9, -24.6)).toBe(0)
  })

  it('agrees with GeographicLib to a millimetre from 1 m to 1000 km across southern Africa', () => {
    const r = rng(7)
    for (let i = 0; i < 2000; i++) {
      const lon1 = 16 + r() * 17
      const lat1 = -35 + r() * 18
      const scale = 10 ** (r() * 4 - 5) // 1e-5 .. 0.1 ... up to 10 degrees
      const lon2 = lon1 + (r() - 0.5) * scale * 100
      const lat2 = lat1 + (r() - 0.5) * scale * 100
      expect(
        Math.abs(geodesicDistanceM(lon1, lat1, lon2, lat2) - karneyDistanceM(lon1, lat1, lon2, lat2)),
      ).toBeLessThan(0.001)
    }
  })

  it('measures one degree of latitude at the equator as 110 574.39 m (WGS84 meridian)', () => {
    expect(geodesicDistanceM(0, 0, 0, 1)).toBeCloseTo(110574.389, 2)
  })

  it('falls back to GeographicLib for nearly antipodal points', () => {
    const d = geodesicDistanceM(0, 0, 179.7, 0.3)
    expect(d).toBeCloseTo(karneyDistanceM(0, 0, 179.7, 0.3), 3)
  })
})

describe('approxDistanceM', () => {
  it(`stays within ${APPROX_REL_ERROR * 100}% of the geodesic up to 100 km`, () => {
    const r = rng(11)
    for (let i = 0; i < 2000; i++) {
      const lon1 = 16 + r() * 17
      const lat1 = -35 + r() * 18
      const lon2 = lon1 + (r() - 0.5) * 1.8
      const lat2 = lat1 + (r() - 0.5) * 1.8
      const exact = geodesicDistanceM(lon1, lat1, lon2, lat2)
      if (exact > 100_000) continue
      expect(Math.abs(approxDistanceM(lon1, lat1, lon2, lat2) - exact)).toBeLessThanOrEqual(
        exact * APPROX_REL_ERROR + 1e-6,
      )
    }
  })

  it('uses a longer degree of longitude nearer the equator', () => {
    expect(metresPerDegree(-18).lon).toBeGreaterThan(metresPerDegree(-34).lon)
  })
})

describe('fastGeodesicM', () => {
  it(`agrees with GeographicLib to 0.01 mm below ${SHORT_M} m, from the equator to 59 degrees`, () => {
    const r = rng(11)
    let worst = 0
    for (let k = 0; k < 50_000; k++) {
      const lat = (r() * 2 - 1) * 59
      const lon = r() * 60
      const d = r() * SHORT_M * 1.2
      const a = r() * 2 * Math.PI
      const m = metresPerDegree(lat)
      const lat2 = lat + (d * Math.sin(a)) / m.lat
      const lon2 = lon + (d * Math.cos(a)) / m.lon
      worst = Math.max(worst, Math.abs(fastGeodesicM(lon, lat, lon2, lat2) - karneyDistanceM(lon, lat, lon2, lat2)))
    }
    expect(worst).toBeLessThan(1e-5)
  })

  it('is Vincenty beyond the short range', () => {
    expect(fastGeodesicM(25, -24, 25.5, -24.5)).toBe(geodesicDistanceM(25, -24, 25.5, -24.5))
  })
})

describe('degreesAround', () => {
  it('is finite and at most 180 degrees of longitude at and near the poles', () => {
    for (const lat of [90, -90, 89.99, -89.985, 89.9]) {
      const d = degreesAround(lat, 2000)
      expect(Number.isFinite(d.lon)).toBe(true)
      expect(d.lon).toBeLessThanOrEqual(180)
      expect(d.lat).toBeGreaterThan(0.017)
      expect(d.lat).toBeLessThan(0.019)
    }
  })

  it('holds the geodesic circle at South African latitudes', () => {
    const rnd = rng(11)
    for (let k = 0; k < 500; k++) {
      const lat = -35 + rnd() * 18
      const r = 10 + rnd() * 5000
      const d = degreesAround(lat, r)
      // the geodesic to the box's east and north edges is at least the radius, but for the few
      // parts per million by which a geodesic is shorter than its parallel (callers add a margin)
      expect(geodesicDistanceM(25, lat, 25 + d.lon, lat)).toBeGreaterThanOrEqual(r * 0.99999)
      expect(geodesicDistanceM(25, lat, 25, lat + d.lat)).toBeGreaterThanOrEqual(r * 0.99999)
    }
  })
})

describe('beyondReach', () => {
  const box = { minX: 16, minY: -35, maxX: 33, maxY: -22 }
  it('is true for the poles and far seas, false inside and within the radius of the box', () => {
    expect(beyondReach(box, 0, 90, 2000)).toBe(true)
    expect(beyondReach(box, 0, -90, 2000)).toBe(true)
    expect(beyondReach(box, 25, -89.99, 2000)).toBe(true)
    expect(beyondReach(box, 10, -30, 2000)).toBe(true)
    expect(beyondReach(box, 25, -30, 2000)).toBe(false)
    // 1 km east of the box's edge, with a 2 km reach
    expect(beyondReach(box, 33 + 1000 / metresPerDegree(-30).lon, -30, 2000)).toBe(false)
    expect(beyondReach(box, 33 + 3000 / metresPerDegree(-30).lon, -30, 2000)).toBe(true)
  })
})
