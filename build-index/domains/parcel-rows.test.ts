import { describe, expect, it } from 'vitest'
import { encodeGeometry } from '../../src/data/geometry-blob.js'
import { PREFILTER_STRIDE } from '../../src/data/parcels-prefilter.js'
import { describeParcel } from '../../src/data/parcels-prefilter-writer.js'
import { bboxOf } from '../../src/geo/polygon.js'
import { prepareParcels, transferOf, type LayerItem } from './parcel-rows.js'
import { normaliseParcel } from '../transform/parcels.js'

const square = (x: number, y: number, d: number) => ({
  type: 'Polygon' as const,
  coordinates: [
    [
      [x, y],
      [x + d, y],
      [x + d, y + d],
      [x, y + d],
      [x, y],
    ] as [number, number][],
  ],
})
// a bow tie: repaired (self-intersection resolved)
const bowTie = {
  type: 'Polygon' as const,
  coordinates: [
    [
      [28, -26],
      [28.01, -26.01],
      [28.01, -26],
      [28, -26.01],
      [28, -26],
    ] as [number, number][],
  ],
}
const props = (id: string, extra: Record<string, string | number | null> = {}) => ({
  id,
  lstatus: 'R',
  wstatus: 'C',
  parcel_no: 12,
  ...extra,
})

describe('prepareParcels', () => {
  const items: LayerItem[] = [
    { properties: props('T0JR00000000001200000'), geometry: square(28.1, -26.2, 0.001) },
    { reason: 'invalid JSON: read by the reader' },
    {
      text: JSON.stringify({
        type: 'Feature',
        properties: props('T0JR00000000001300000', { geom_area: 500 }),
        geometry: square(28.2, -26.2, 0.002),
      }),
    },
    { text: '{"type":"Feature", bad' },
    { properties: props('not an lpi'), geometry: square(28, -26, 0.001) },
    { properties: props('T0JR00000000001400000', { lstatus: 'A' }), geometry: bowTie },
  ]
  const c = prepareParcels(items, 'ERF', 'GP', 7)

  it('gives each item its reason, or null and a record, in input order', () => {
    expect(c.chunk).toBe(7)
    expect(c.reasons[0]).toBeNull()
    expect(c.reasons[1]).toBe('invalid JSON: read by the reader')
    expect(c.reasons[2]).toBeNull()
    expect(c.reasons[3]).toMatch(/^invalid JSON: /)
    expect(c.reasons[4]).toMatch(/is not a 21-character LPI/)
    expect(c.reasons[5]).toBeNull()
    expect(c.recs.map((r) => r.lpi)).toEqual([
      'T0JR00000000001200000',
      'T0JR00000000001300000',
      'T0JR00000000001400000',
    ])
    expect(c.repaired).toBe(1)
    // the bow tie's net winding is clockwise: it is turned as well as repaired, counted in both
    expect(c.reoriented).toBe(1)
  })

  it('holds what normaliseParcel, bboxOf, encodeGeometry and describeParcel give each record', () => {
    const sources = [
      items[0],
      { properties: JSON.parse((items[2] as { text: string }).text).properties, geometry: square(28.2, -26.2, 0.002) },
      items[5],
    ] as {
      properties: Record<string, string | number | null>
      geometry: ReturnType<typeof square>
    }[]
    sources.forEach((src, k) => {
      const r = normaliseParcel(src.properties, src.geometry, 'ERF', 'GP')
      if (!r.ok) throw new Error(r.reason)
      const { geometry, ...rec } = r.rec
      expect(c.recs[k]).toEqual(rec)
      const b = bboxOf(geometry)
      expect([...c.boxes.subarray(4 * k, 4 * k + 4)]).toEqual([b.minX, b.minY, b.maxX, b.maxY])
      const blob = encodeGeometry(geometry)
      expect(Buffer.from(c.geoms.subarray(k ? c.ends[k - 1] : 0, c.ends[k])).equals(blob)).toBe(true)
      const want = new Uint8Array(PREFILTER_STRIDE)
      describeParcel(blob, b.minX, b.minY, b.maxX, b.maxY, want, 0)
      expect([...c.prefilter.subarray(k * PREFILTER_STRIDE, (k + 1) * PREFILTER_STRIDE)]).toEqual([...want])
    })
    expect(c.recs[1].extentSqm).toBe(500)
    expect(c.recs[2].hidden).toBe(true)
  })

  it('hands over four distinct buffers, and an empty chunk is empty', () => {
    expect(new Set(transferOf(c)).size).toBe(4)
    const empty = prepareParcels([{ reason: 'x' }], 'ERF', 'GP')
    expect(empty).toMatchObject({ reasons: ['x'], recs: [], repaired: 0, reoriented: 0 })
    expect([empty.boxes.length, empty.geoms.length, empty.ends.length, empty.prefilter.length]).toEqual([0, 0, 0, 0])
  })
})
