import { describe, expect, it } from 'vitest'
import {
  APPROX_REL_ERROR,
  approxDistanceM,
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
