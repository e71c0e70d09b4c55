import { describe, expect, it } from 'vitest'
import { decodeGpkgGeometry } from './gpkg-geometry.js'
import { gpkgBlob, wkb } from './testing/write-gpkg.js'

describe('decodeGpkgGeometry', () => {
  it('reads bare WKB without the GP header, in either byte order', () => {
    const line = {
      type: 'LineString' as const,
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    }
    expect(decodeGpkgGeometry(wkb(line))).toEqual({ ok: true, geometry: line })
    expect(decodeGpkgGeometry(wkb(line, { bigEndian: true }))).toEqual({ ok: true, geometry: line })
  })

  it('skips envelopes of every size and an EWKB srid', () => {
    const polygon = {
      type: 'Polygon' as const,
      coordinates: [
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 0],
        ],
      ],
    }
    for (const envelope of [0, 1, 2] as const) {
      expect(decodeGpkgGeometry(gpkgBlob(polygon, { envelope }))).toEqual({ ok: true, geometry: polygon })
    }
    // ewkb point with the srid flag (0x20000000) and srid 4326 before the coordinates
    const ewkb = Buffer.alloc(1 + 4 + 4 + 16)
    ewkb.writeUInt8(1, 0)
    ewkb.writeUInt32LE(0x20000001, 1)
    ewkb.writeUInt32LE(4326, 5)
    ewkb.writeDoubleLE(27.5, 9)
    ewkb.writeDoubleLE(-29.3, 17)
    expect(decodeGpkgGeometry(ewkb)).toEqual({ ok: true, geometry: { type: 'Point', coordinates: [27.5, -29.3] } })
  })

  it('gives null for the empty flag and for geometries without positions', () => {
    expect(decodeGpkgGeometry(gpkgBlob(null))).toEqual({ ok: true, geometry: null })
    expect(decodeGpkgGeometry(gpkgBlob({ type: 'MultiPolygon', coordinates: [] }))).toEqual({
      ok: true,
      geometry: null,
    })
    expect(decodeGpkgGeometry(gpkgBlob({ type: 'LineString', coordinates: [] }))).toEqual({ ok: true, geometry: null })
  })

  it('rejects what it cannot read, with a reason', () => {
    const extended = gpkgBlob({ type: 'Point', coordinates: [1, 2] })
    extended[3] |= 0x20
    expect(decodeGpkgGeometry(extended)).toEqual({
      ok: false,
      reason: 'unsupported GeoPackage geometry: extended geometry type',
    })
    const badEnvelope = gpkgBlob({ type: 'Point', coordinates: [1, 2] })
    badEnvelope[3] = (badEnvelope[3] & ~0x0e) | (6 << 1)
    expect(decodeGpkgGeometry(badEnvelope)).toEqual({
      ok: false,
      reason: 'invalid GeoPackage geometry: bad envelope indicator',
    })
    const badOrder = wkb({ type: 'Point', coordinates: [1, 2] })
    badOrder[0] = 7
    expect(
      decodeGpkgGeometry(Buffer.concat([gpkgBlob({ type: 'Point', coordinates: [1, 2] }).subarray(0, 8), badOrder])),
    ).toEqual({
      ok: false,
      reason: 'invalid WKB: bad byte order 7',
    })
    const curve = wkb({ type: 'Point', coordinates: [1, 2] })
    curve.writeUInt32LE(8, 1) // CircularString
    expect(decodeGpkgGeometry(curve)).toEqual({ ok: false, reason: 'unsupported geometry type code 8' })
    // a MultiPolygon whose part claims to be a Point
    const mixed = wkb({ type: 'MultiPoint', coordinates: [[1, 2]] })
    mixed.writeUInt32LE(6, 1)
    expect(decodeGpkgGeometry(mixed)).toEqual({ ok: false, reason: 'invalid WKB: a MultiPolygon holds a Point' })
    // a huge count is caught before allocating
    const huge = wkb({ type: 'LineString', coordinates: [[1, 2]] })
    huge.writeUInt32LE(0x7fffffff, 5)
    expect(decodeGpkgGeometry(huge)).toEqual({ ok: false, reason: 'invalid WKB: truncated' })
    expect(decodeGpkgGeometry(gpkgBlob({ type: 'Point', coordinates: [10, -91] }))).toEqual({
      ok: false,
      reason: 'coordinate out of range: [10, -91]',
    })
    expect(
      decodeGpkgGeometry(
        gpkgBlob({
          type: 'LineString',
          coordinates: [
            [1, 2],
            [Infinity, 0],
          ],
        }),
      ),
    ).toEqual({
      ok: false,
      reason: 'coordinate out of range: [Infinity, 0]',
    })
  })
})
