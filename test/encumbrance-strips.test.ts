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
 *   diag a 20 m line from (18.54, -34.02) to (18.55, -34.01): the corners of its box lie far from
 *        its strip
 *   edge a 40 m line along y = -34.03462 from 18.562 to 18.566, 18.6 m south of the south edge of
 *        tile 16/36147/39363 (west 18.5614014, south -34.0344526, from the slippy-map formulas
 *        lon = x / 2^z * 360 - 180, lat = atan(sinh(pi * (1 - 2 y / 2^z)))): the centreline lies
 *        outside the tile and its 64-pixel buffer (7.9 m), the strip reaches 1.4 m into the tile
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { VectorTile } from '@mapbox/vector-tile'
import geographiclib from 'geographiclib-geodesic'
import { PbfReader } from 'pbf'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { box, json, makeTestApp } from './helpers.js'

type Ring = [number, number][]
type Item = Record<string, any>
const E1 = 'C01300000000010100000'
const E2 = 'C01300000000010200000'
const UID = {
  thin1: 910_000_001,
  thin2: 910_000_002,
  road: 910_000_003,
  wide: 910_000_004,
  diag: 910_000_005,
  edge: 910_000_006,
}
const WIDE_Y = -34.01
const EDGE_Y = -34.03462
const EDGE_TILE = { z: 16, x: 36147, y: 39363 }

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
      ]) +
      line(UID.diag, 'PIPELINE', 20, [
        [18.54, -34.02],
        [18.55, -34.01],
      ]) +
      line(UID.edge, 'POWER LINE', 40, [
        [18.562, EDGE_Y],
        [18.566, EDGE_Y],
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

/**
 * A box the wide line's strip enters, its centreline staying outside: from 11 m to 111 m north of
 * the centreline (the strip reaches 22.5 m north).
 */
const STRIP_ONLY = { west: 18.522, south: WIDE_Y + 0.0001, east: 18.524, north: -34.009 }
const bboxOf = (b: typeof STRIP_ONLY) => `${b.west},${b.south},${b.east},${b.north}`
const uidsOf = (items: Item[]) => items.map((e) => e.encumbrance_uid)

describe('box and area queries meet a dimensioned line where its strip does', () => {
  it('/within: a box only the strip enters finds the line, with its centreline as geometry', async () => {
    const body = await json(await get(`/within?bbox=${bboxOf(STRIP_ONLY)}`))
    const e = byUid(body.encumbrances, UID.wide)
    expect(e).toBeDefined()
    expect(e!.geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [18.52, WIDE_Y],
        [18.53, WIDE_Y],
      ],
    })
  })

  it('/within: a box beside the strip, or past its flat end within half a width of the line, finds nothing', async () => {
    const north = WIDE_Y + 30 / metresPerDegreeLat(WIDE_Y)
    const beside = await json(await get(`/within?bbox=18.522,${north},18.524,${north + 0.0005}`))
    expect(uidsOf(beside.encumbrances)).not.toContain(UID.wide)
    // 9 m to 45 m east of the end: the strip ends flat, it has no round cap
    const past = await json(await get(`/within?bbox=18.5301,${WIDE_Y - 0.0001},18.5305,${WIDE_Y + 0.0001}`))
    expect(uidsOf(past.encumbrances)).not.toContain(UID.wide)
  })

  it("/within: a corner of a diagonal strip's box, far from the strip, finds nothing", async () => {
    const body = await json(await get('/within?bbox=18.5401,-34.0105,18.5405,-34.0101'))
    expect(uidsOf(body.encumbrances)).not.toContain(UID.diag)
  })

  it("/search?bbox: a box only the strip enters finds the line; bbox there meets the record's box", async () => {
    const body = await json(await get(`/search?bbox=${bboxOf(STRIP_ONLY)}&encumbrance_class=servitude_line`))
    expect(uidsOf(body.encumbrances)).toContain(UID.wide)
    // the strip's box, not the strip: the corner far from the diagonal strip still matches
    const corner = await json(await get('/search?bbox=18.5401,-34.0105,18.5405,-34.0101'))
    expect(uidsOf(corner.encumbrances)).toContain(UID.diag)
  })

  it('/heatmap boundaries: a viewport only the strip enters draws the line', async () => {
    const b = STRIP_ONLY
    const res = await get(`/heatmap?north=${b.north}&south=${b.south}&east=${b.east}&west=${b.west}&view=boundaries`)
    expect(res.status).toBe(200)
    const body = await json(res)
    const f = body.features.find((x: Item) => x.properties.encumbrance_uid === UID.wide)
    expect(f).toBeDefined()
    expect(f.geometry.type).toBe('LineString')
  })

  it('/tiles: a tile only the strip enters carries the line, drawn as its centreline', async () => {
    // the set-up: the tile's south edge lies between the centreline and the strip's north edge
    const n = 2 ** EDGE_TILE.z
    const south = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (EDGE_TILE.y + 1)) / n))) * 180) / Math.PI
    const gapM = (south - EDGE_Y) * metresPerDegreeLat(EDGE_Y)
    expect(gapM).toBeGreaterThan(8 + 7.9)
    expect(gapM).toBeLessThan(20)
    const res = await get(`/tiles/${EDGE_TILE.z}/${EDGE_TILE.x}/${EDGE_TILE.y}.mvt`)
    expect(res.status).toBe(200)
    const tile = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer())))
    const lines = tile.layers.servitude_line
    expect(lines).toBeDefined()
    const f = Array.from({ length: lines.length }, (_, i) => lines.feature(i)).find(
      (x) => x.properties.encumbrance_uid === UID.edge,
    )
    expect(f).toBeDefined()
    // a line (type 2) south of the tile (y past the extent), horizontal
    expect(f!.type).toBe(2)
    const pts = f!.loadGeometry()[0]
    expect(pts[0].y).toBeGreaterThan(4096)
    expect(pts[0].y).toBe(pts[pts.length - 1].y)
  })
})
