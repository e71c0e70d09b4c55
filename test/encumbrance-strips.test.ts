/**
 * Dimensioned servitude lines are their strip, everywhere (docs/decisions.md "Geometry
 * tolerances"). Built from a hand-made export near Cape Town, with expected figures computed
 * independently of src/ (GeographicLib for lengths, the ellipsoid's radii for offsets):
 *
 *   E1   erf [18.500, 18.501] x [-34.000, -33.999]; crossed east-west by a 1 m line (thin1) and a
 *        2 m line (thin2) running from outside to outside
 *   E2   erf [18.5100, 18.5102] x [-34.0000, -33.9998] (18 m x 22 m) under a 31.5 m road
 *        servitude whose centreline runs through its middle: the strip covers the whole erf
 *   wide a 45 m line along y = -34.01 from 18.52 to 18.53 (no parcel under it)
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import geographiclib from 'geographiclib-geodesic'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { box, json, makeTestApp } from './helpers.js'

type Ring = [number, number][]
type Item = Record<string, any>
const E1 = 'C01300000000010100000'
const E2 = 'C01300000000010200000'
const UID = { thin1: 910_000_001, thin2: 910_000_002, road: 910_000_003, wide: 910_000_004 }
const WIDE_Y = -34.01

const { Geodesic } = geographiclib
const geodesicM = (x0: number, y0: number, x1: number, y1: number) =>
  Geodesic.WGS84.Inverse(y0, x0, y1, x1).s12 as number
/** Metres per degree of latitude at a latitude, from the WGS84 meridian radius (not src/). */
const metresPerDegreeLat = (lat: number) => {
  const e2 = 0.00669437999014
  const s = Math.sin((lat * Math.PI) / 180)
  return ((6378137 * (1 - e2)) / (1 - e2 * s * s) ** 1.5) * (Math.PI / 180)
}
const within = (actual: number, expected: number, rel: number) =>
  expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(rel)

const erf = (lpi: string, ring: Ring) =>
  `${JSON.stringify({
    type: 'Feature',
    properties: {
      id: lpi,
      prcl_key: `${lpi}00001`,
      parcel_no: Number(lpi.slice(8, 16)),
      portion: 0,
      lstatus: 'R',
      wstatus: 'C',
    },
    geometry: { type: 'Polygon', coordinates: [ring] },
  })}\n`
const line = (uid: number, ease: string, width: number, coords: [number, number][]) =>
  `${JSON.stringify({
    type: 'Feature',
    properties: {
      uid,
      ease_type: ease,
      sg_no: `${uid % 10_000}/2001`,
      province: 'WC',
      geom_area: null,
      date_stamp: '20010101',
      status: '',
      width_m: width,
    },
    geometry: { type: 'LineString', coordinates: coords },
  })}\n`

let get: (path: string) => Promise<Response>
let post: (body: unknown) => Promise<Response>

beforeAll(async () => {
  const source = mkdtempSync(join(inject('workDir'), 'strips-src-'))
  const cad = join(source, 'south_africa', 'cadastre', 'WC')
  const enc = join(source, 'south_africa', 'encumbrances', 'WC')
  mkdirSync(cad, { recursive: true })
  mkdirSync(enc, { recursive: true })
  writeFileSync(
    join(source, 'export.json'),
    JSON.stringify({
      cadastre: { export_id: 'csg-strips', as_of: '2026-09-30' },
      encumbrances: { export_id: 'csg-enc-strips', as_of: '2026-11-14' },
    }),
  )
  writeFileSync(
    join(cad, 'erf.geojsonl'),
    erf(E1, box(18.5, -34, 18.501, -33.999)) + erf(E2, box(18.51, -34, 18.5102, -33.9998)),
  )
  writeFileSync(
    join(enc, 'servitude_line.geojsonl'),
    line(UID.thin1, 'PIPELINE', 1, [
      [18.4995, -33.99931],
      [18.5015, -33.99931],
    ]) +
      line(UID.thin2, 'PIPELINE', 2, [
        [18.4995, -33.99957],
        [18.5015, -33.99957],
      ]) +
      line(UID.road, 'ROAD', 31.5, [
        [18.509, -33.9999],
        [18.512, -33.9999],
      ]) +
      line(UID.wide, 'POWER LINE', 45, [
        [18.52, WIDE_Y],
        [18.53, WIDE_Y],
      ]),
  )
  const out = join(mkdtempSync(join(inject('workDir'), 'strips-ds-')), 'ds')
  await buildDataset({ source, out, log: () => {} })
  const t = makeTestApp({ datasetDir: out })
  const { key } = t.issue()
  get = async (path) => t.get(`/api/v1/encumbrances${path}`, key)
  post = async (body) =>
    t.app.request('/api/v1/encumbrances/intersect', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
})

const byUid = (items: Item[], uid: number) => items.find((e) => e.encumbrance_uid === uid)

describe('a dimensioned line over a parcel', () => {
  it('reports the area of its strip inside the parcel within 0.1 % of width x crossing length', async () => {
    const body = await json(await get(`/parcel/${E1}`))
    for (const [uid, width, y] of [
      [UID.thin1, 1, -33.99931],
      [UID.thin2, 2, -33.99957],
    ] as const) {
      const e = byUid(body.encumbrances, uid)!
      expect(e).toMatchObject({ relationship: 'crosses', width_m: width })
      const crossing = geodesicM(18.5, y, 18.501, y)
      within(e.overlap_m, crossing, 1e-3)
      within(e.overlap_sqm, crossing * width, 1e-3)
      // the clip is the strip's piece, a polygon
      expect(e.geometry.type).toBe('Polygon')
    }
  })

  it('contains the parcel when its strip covers it, though the centreline only crosses it', async () => {
    const e = byUid((await json(await get(`/parcel/${E2}`))).encumbrances, UID.road)!
    expect(e.relationship).toBe('contains')
    expect(e.overlap_pct_of_parcel).toBe(100)
    const area = geodesicM(18.51, -34, 18.5102, -34) * geodesicM(18.51, -34, 18.51, -33.9998)
    within(e.overlap_sqm, area, 2e-3)
  })
})

describe('POST /encumbrances/intersect with a dimensioned line', () => {
  it('a polygon the strip enters, the centreline staying outside: reported with the area inside', async () => {
    // the area starts 11 m north of the centreline; the strip reaches 22.5 m north of it
    const south = WIDE_Y + 0.0001
    const res = await post({
      geometry: { type: 'Polygon', coordinates: [box(18.522, south, 18.524, -34.009)] },
    })
    expect(res.status).toBe(200)
    const e = byUid((await json(res)).encumbrances, UID.wide)
    expect(e).toBeDefined()
    expect(e!.relationship).toBe('crosses')
    const edge = WIDE_Y + 22.5 / metresPerDegreeLat(WIDE_Y)
    const expected = geodesicM(18.522, south, 18.524, south) * (edge - south) * metresPerDegreeLat((edge + south) / 2)
    within(e!.overlap_sqm, expected, 1e-3)
    expect(e!.overlap_m).toBe(0)
  })

  it('a route inside the strip: contains it, overlap_m the route length', async () => {
    const y = WIDE_Y + 0.00005
    const body = await json(
      await post({
        geometry: {
          type: 'LineString',
          coordinates: [
            [18.521, y],
            [18.523, y],
          ],
        },
      }),
    )
    const e = byUid(body.encumbrances, UID.wide)!
    expect(e.relationship).toBe('contains')
    within(e.overlap_m, geodesicM(18.521, y, 18.523, y), 1e-3)
  })

  it('a route across the strip: overlap_m is the 45 m it runs inside the strip', async () => {
    const body = await json(
      await post({
        geometry: {
          type: 'LineString',
          coordinates: [
            [18.525, WIDE_Y - 0.001],
            [18.525, WIDE_Y + 0.001],
          ],
        },
        include_geometry: false,
      }),
    )
    const e = byUid(body.encumbrances, UID.wide)!
    expect(e.relationship).toBe('crosses')
    within(e.overlap_m, 45, 1e-3)
  })

  it('a route passing beside the strip, beyond its edge, meets nothing', async () => {
    const y = WIDE_Y + 30 / metresPerDegreeLat(WIDE_Y)
    const body = await json(
      await post({
        geometry: {
          type: 'LineString',
          coordinates: [
            [18.521, y],
            [18.523, y],
          ],
        },
      }),
    )
    expect(byUid(body.encumbrances, UID.wide)).toBeUndefined()
  })
})
