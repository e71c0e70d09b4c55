/**
 * Bounded work per /intersect request (docs/api.md "Bounded work"): a geometry outside the
 * countries served (or across the antimeridian) is a 400 saying so; one whose edges would cross
 * too many search cells, or whose outline meets the parcels and records under it too often, is a
 * 400 GeometryTooComplex naming the limit, never a stalled worker or a 500.
 */
import { describe, expect, it } from 'vitest'
import { json, makeTestApp } from './helpers.js'

const t = makeTestApp()
const { key } = t.issue()
const post = (geometry: unknown) =>
  t.app.request('/api/v1/encumbrances/intersect', {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ geometry, include_geometry: false }),
  })
const polygon = (pts: number[][]) => ({ type: 'Polygon', coordinates: [[...pts, pts[0]]] })

/** A comb of `teeth` teeth between x0 and x1, rising from y0 to y1, on a base below y0. */
function comb(teeth: number, x0: number, x1: number, y0: number, y1: number): number[][] {
  const pts: number[][] = []
  const w = (x1 - x0) / teeth
  for (let k = 0; k < teeth; k++) pts.push([x0 + k * w, y0], [x0 + (k + 0.5) * w, y1])
  pts.push([x1, y0], [x1, y0 - (y1 - y0) / 4], [x0, y0 - (y1 - y0) / 4])
  return pts
}

describe('POST /encumbrances/intersect: bounded work', () => {
  it('refuses a polygon outside the countries served, or across the antimeridian, naming the position', async () => {
    for (const pts of [
      [
        [179, -20],
        [-179, -20],
        [-179, -19],
        [179, -19],
      ],
      [
        [-170, -80],
        [170, -80],
        [170, 80],
        [-170, 80],
      ],
      [
        [2.3, 48.8],
        [2.4, 48.8],
        [2.4, 48.9],
      ],
    ]) {
      const res = await post(polygon(pts))
      expect(res.status).toBe(400)
      const body = await json(res)
      expect(body.error).toBe('ValidationError')
      expect(body.details[0]).toMatchObject({
        field: 'geometry.coordinates.0.0',
        message: expect.stringMatching(/is outside South Africa or Botswana, the countries served/),
      })
    }
  })

  it('refuses a comb whose edges cross too many search cells, before building them', async () => {
    const res = await post(polygon(comb(1000, 20, 25, -30, -25)))
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.error).toBe('GeometryTooComplex')
    expect(body.message).toMatch(/cross about \d+ search cells of 0\.005°; at most 50000/)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
  })

  it('refuses a dense outline over parcels and records, naming the overlay limit', async () => {
    // 9,000 teeth a few millimetres apart over erf 4, its portion and the records crossing it
    const res = await post(polygon(comb(9000, 17.0013, 17.0017, -34.9087, -34.9083)))
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.error).toBe('GeometryTooComplex')
    expect(body.message).toMatch(/meets the parcels and records under it \d+ times; at most 40000/)
  })

  it('answers a legal sliver 1,500 km long and 11 m wide, and a comb of modest density', async () => {
    const sliver = await post(
      polygon([
        [18, -34],
        [28, -24],
        [28.0001, -24],
        [18.0001, -34],
      ]),
    )
    expect(sliver.status).toBe(200)
    const modest = await post(polygon(comb(100, 17.0, 17.004, -34.909, -34.906)))
    expect(modest.status).toBe(200)
    expect((await json(modest)).parcels.length).toBeGreaterThan(0)
  })
})
