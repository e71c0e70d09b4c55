import { describe, expect, it } from 'vitest'
import {
  MAX_MERCATOR_LAT,
  MAX_TILE_ZOOM,
  clampLat,
  lonLatToTile,
  tileAt,
  tileBBox,
  tileToLonLat,
  validateTile,
} from './tiles.js'

describe('validateTile', () => {
  it('accepts the corners of the tile grid at zoom 0, 10 and 22', () => {
    expect(MAX_TILE_ZOOM).toBe(22)
    expect(validateTile(0, 0, 0)).toEqual([])
    expect(validateTile(10, 1023, 0)).toEqual([])
    expect(validateTile(10, 0, 1023)).toEqual([])
    expect(validateTile(22, 2 ** 22 - 1, 2 ** 22 - 1)).toEqual([])
  })

  it('names z when it is above 22, negative or fractional', () => {
    for (const z of [23, -1, 2.5, NaN, Infinity]) {
      const p = validateTile(z, 0, 0)
      expect(p.map((q) => q.field)).toEqual(['z'])
      expect(p[0].message).toContain(`got ${z}`)
    }
  })

  it('names x and y when they are negative, 2^z or beyond, or fractional', () => {
    expect(validateTile(3, -1, 0).map((p) => p.field)).toEqual(['x'])
    expect(validateTile(3, 0, 8).map((p) => p.field)).toEqual(['y'])
    expect(validateTile(3, 8, 8).map((p) => p.field)).toEqual(['x', 'y'])
    expect(validateTile(22, 0, 2 ** 22).map((p) => p.field)).toEqual(['y'])
    expect(validateTile(0, 1, 0).map((p) => p.field)).toEqual(['x'])
    expect(validateTile(5, 1.5, NaN).map((p) => p.field)).toEqual(['x', 'y'])
    expect(validateTile(3, 0, 8)[0].message).toBe('y must be an integer from 0 to 7 at zoom 3, got 8')
  })

  it('lists every bad field at once, even when z is bad (then only the sign and integrality of x and y)', () => {
    const p = validateTile(23, -1, 2 ** 23)
    expect(p.map((q) => q.field)).toEqual(['z', 'x'])
    expect(validateTile(2.5, 0.5, -3).map((q) => q.field)).toEqual(['z', 'x', 'y'])
  })
})

describe('tileBBox', () => {
  it('covers the whole Mercator square at zoom 0', () => {
    const b = tileBBox(0, 0, 0)
    expect(b.minX).toBe(-180)
    expect(b.maxX).toBe(180)
    expect(b.maxY).toBeCloseTo(MAX_MERCATOR_LAT, 10)
    expect(b.minY).toBeCloseTo(-MAX_MERCATOR_LAT, 10)
  })

  it('splits at the equator and the prime meridian at zoom 1', () => {
    const b = tileBBox(1, 1, 1) // south-east quarter
    expect(b.minX).toBe(0)
    expect(b.maxX).toBe(180)
    expect(b.maxY).toBeCloseTo(0, 12)
    expect(b.minY).toBeCloseTo(-MAX_MERCATOR_LAT, 10)
  })

  it('gives the hand-computed box of tile 10/585/584 (Gaborone)', () => {
    // lon = x / 2^z * 360 - 180; lat = atan(sinh(pi * (1 - 2 y / 2^z)))
    const b = tileBBox(10, 585, 584)
    expect(b.minX).toBeCloseTo(25.6640625, 12)
    expect(b.maxX).toBeCloseTo(26.015625, 12)
    expect(b.maxY).toBeCloseTo(-24.5271348225978, 10)
    expect(b.minY).toBeCloseTo(-24.84656534821974, 10)
  })
})

describe('lonLatToTile and tileToLonLat', () => {
  it('map the tile corners to 0 and extent', () => {
    const b = tileBBox(10, 585, 584)
    const nw = lonLatToTile(b.minX, b.maxY, 10, 585, 584)
    const se = lonLatToTile(b.maxX, b.minY, 10, 585, 584, 4096)
    expect(nw[0]).toBeCloseTo(0, 6)
    expect(nw[1]).toBeCloseTo(0, 6)
    expect(se[0]).toBeCloseTo(4096, 6)
    expect(se[1]).toBeCloseTo(4096, 6)
    const [px, py] = lonLatToTile(b.minX, b.maxY, 10, 585, 584, 512)
    expect([px, py].map((v) => Math.abs(v) < 1e-6)).toEqual([true, true])
  })

  it('give coordinates beyond 0..extent for positions outside the tile', () => {
    const b = tileBBox(10, 585, 584)
    const [px, py] = lonLatToTile(b.minX - (b.maxX - b.minX), b.minY - 0.01, 10, 585, 584)
    expect(px).toBeCloseTo(-4096, 6)
    expect(py).toBeGreaterThan(4096)
  })

  it('round-trip positions at every zoom to within a nanodegree', () => {
    for (let z = 0; z <= MAX_TILE_ZOOM; z++) {
      for (const [lon, lat] of [
        [25.9123456, -24.6543219],
        [-73.98, 40.75],
        [179.9, -85],
        [0, 0],
      ]) {
        const { x, y } = tileAt(lon, lat, z)
        expect(validateTile(z, x, y)).toEqual([])
        const [px, py] = lonLatToTile(lon, lat, z, x, y)
        expect(px).toBeGreaterThanOrEqual(0)
        expect(px).toBeLessThanOrEqual(4096)
        expect(py).toBeGreaterThanOrEqual(0)
        expect(py).toBeLessThanOrEqual(4096)
        const [lon2, lat2] = tileToLonLat(px, py, z, x, y)
        expect(Math.abs(lon2 - lon)).toBeLessThan(1e-9)
        expect(Math.abs(lat2 - lat)).toBeLessThan(1e-9)
      }
    }
  })

  it('clamp latitudes to ±85.0511 so the poles land on the top and bottom edges', () => {
    expect(clampLat(89)).toBe(MAX_MERCATOR_LAT)
    expect(clampLat(-90)).toBe(-MAX_MERCATOR_LAT)
    expect(clampLat(-24.6)).toBe(-24.6)
    expect(lonLatToTile(0, 90, 0, 0, 0)[1]).toBeCloseTo(0, 6)
    expect(lonLatToTile(0, -90, 0, 0, 0)[1]).toBeCloseTo(4096, 6)
    expect(lonLatToTile(0, 85.0511, 0, 0, 0)[1]).toBeCloseTo(0, 2)
  })
})

describe('tileAt', () => {
  it(
    'finds the tile holding a position, edges going east and south, the last row and column keeping 180° and the ' +
      'south edge',
    () => {
      expect(tileAt(25.9, -24.65, 10)).toEqual({ x: 585, y: 584 })
      expect(tileAt(0, 0, 1)).toEqual({ x: 1, y: 1 })
      expect(tileAt(180, -90, 3)).toEqual({ x: 7, y: 7 })
      expect(tileAt(-180, 90, 3)).toEqual({ x: 0, y: 0 })
    },
  )
})
