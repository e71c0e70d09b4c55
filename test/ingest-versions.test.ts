/**
 * Versions of one parcel in a cadastre export (docs/decisions.md "Ingest integrity"): an exact
 * duplicate row is kept once and counted; two current versions of one LPI, or one source key on
 * two LPIs, reject both rows naming the key; a current and a historic version are both served.
 * Built from a hand-made export: 80 filler erven in a grid, with the conflicting rows early in
 * the file so that removing them renumbers every row after them.
 */
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import type { Manifest } from '../src/data/manifest.js'
import { box, json, makeTestApp } from './helpers.js'

const lpiOf = (n: number) => `C0130666${String(n).padStart(8, '0')}00000`
const KEY = (n: number) => `${lpiOf(n)}${String(n).padStart(5, '0')}`
// filler erf k: a 0.0005° cell of a 10 x 8 grid near Cape Town
const cell = (k: number) => {
  const x = 18.6 + (k % 10) * 0.0005
  const y = -33.9 + Math.floor(k / 10) * 0.0005
  return box(x, y, x + 0.0005, y + 0.0005)
}
// a 0.0005° cell near 33.9° S: 46.2 m x 55.4 m (WGS84 radii); the export's geom_area says 1.24
// times that, as an area measured in Web Mercator would
const CELL_SQM = 0.0005 * 92_440 * 0.0005 * 110_890
const erf = (lpi: string, key: string, ring: [number, number][], wstatus = 'C') =>
  JSON.stringify({
    type: 'Feature',
    properties: {
      id: lpi,
      prcl_key: key,
      parcel_no: Number(lpi.slice(8, 16)),
      portion: 0,
      lstatus: 'R',
      wstatus,
      geom_area: Math.round(CELL_SQM * 1.24),
    },
    geometry: { type: 'Polygon', coordinates: [ring] },
  })

const DUP = lpiOf(901)
const VERSIONED = lpiOf(902)
const TWICE_CURRENT = lpiOf(903)
const SHARED_KEY_A = lpiOf(904)
const SHARED_KEY_B = lpiOf(905)
const COLLIDING = lpiOf(906)
const away = (k: number) => box(18.7 + k * 0.001, -33.95, 18.7005 + k * 0.001, -33.9495)

/**
 * The row `erf` writes, wound clockwise and left open (re-oriented and repaired when read), with a
 * label point outside it (replaced): counted only if it is kept.
 */
const fixedUp = (lpi: string, key: string, ring: [number, number][]) => {
  const f = JSON.parse(erf(lpi, key, [...ring].reverse().slice(0, -1)))
  f.properties.tag_x = 18.9
  f.properties.tag_y = -33.9
  return JSON.stringify(f)
}

function exportRows(): string[] {
  const rows: string[] = []
  // the first of each conflict early, then the fillers, then the second of each; the first of
  // the two current versions needs every fix, then is rejected by a conflict found later
  rows.push(fixedUp(TWICE_CURRENT, KEY(903), away(3)))
  rows.push(erf(SHARED_KEY_A, KEY(904), away(4)))
  rows.push(erf(DUP, KEY(901), away(1)))
  // every tenth filler wound clockwise, as ESRI exports wind every exterior
  const wound = (k: number) => (k % 10 === 0 ? [...cell(k)].reverse() : cell(k))
  for (let k = 0; k < 40; k++) rows.push(erf(lpiOf(k + 1), KEY(k + 1), wound(k)))
  rows.push(erf(DUP, KEY(901), away(1)))
  rows.push(erf(VERSIONED, KEY(902), away(2)))
  rows.push(
    erf(
      VERSIONED,
      `${VERSIONED}99999`,
      away(2).map(([x, y]) => [x + 0.0001, y]),
      'H',
    ),
  )
  for (let k = 40; k < 80; k++) rows.push(erf(lpiOf(k + 1), KEY(k + 1), wound(k)))
  rows.push(
    erf(
      TWICE_CURRENT,
      `${TWICE_CURRENT}77777`,
      away(3).map(([x, y]) => [x, y + 0.0001]),
    ),
  )
  rows.push(erf(SHARED_KEY_B, KEY(904), away(5)))
  return rows
}

// servitude areas: 20 fillers over the fillers' cells, one of them twice (exact duplicate), and
// a different area reusing a filler's uid
const area = (uid: number, ring: [number, number][]) =>
  JSON.stringify({
    type: 'Feature',
    properties: {
      uid,
      ease_type: 'GENERAL',
      sg_no: `${uid}/2001`,
      province: 'WC',
      date_stamp: '20010101',
      status: '',
      geom_area: Math.round(CELL_SQM * 1.3),
    },
    geometry: { type: 'Polygon', coordinates: [ring] },
  })
function areaRows(): string[] {
  const rows = Array.from({ length: 20 }, (_, k) => area(5000 + k, cell(k)))
  rows.push(area(5003, cell(3)), area(5004, cell(50)))
  return rows
}

let source = ''
let manifest: Manifest
const lines: string[] = []
let get: (path: string) => Promise<Response>
let getEnc: (path: string) => Promise<Response>

beforeAll(async () => {
  source = mkdtempSync(join(inject('workDir'), 'versions-src-'))
  const wc = join(source, 'south_africa', 'cadastre', 'WC')
  mkdirSync(wc, { recursive: true })
  writeFileSync(
    join(source, 'export.json'),
    JSON.stringify({
      cadastre: { export_id: 'csg-versions', as_of: '2026-09-30' },
      encumbrances: { export_id: 'csg-enc-versions', as_of: '2026-11-14' },
    }),
  )
  writeFileSync(join(wc, 'erf.geojsonl'), `${exportRows().join('\n')}\n`)
  // 20 beacons at the fillers' corners and one with latitude and longitude crossed; 20 General
  // Plans over the fillers and one off the coast of Namibia
  const point = (id: string, x: number, y: number) =>
    JSON.stringify({ type: 'Feature', properties: { beacon_id: id }, geometry: { type: 'Point', coordinates: [x, y] } })
  const beacons = Array.from({ length: 20 }, (_, k) => point(`B${k}`, cell(k)[0][0], cell(k)[0][1]))
  writeFileSync(join(wc, 'beacon.geojsonl'), `${[...beacons, point('SWAPPED', -33.9, 18.6)].join('\n')}\n`)
  const plan = (sg: string, ring: [number, number][]) =>
    JSON.stringify({ type: 'Feature', properties: { sg_no: sg }, geometry: { type: 'Polygon', coordinates: [ring] } })
  const plans = Array.from({ length: 20 }, (_, k) => plan(`${100 + k}/1990`, cell(k)))
  writeFileSync(
    join(wc, 'general_plan.geojsonl'),
    `${[...plans, plan('999/1990', box(10, -20, 10.01, -19.99))].join('\n')}\n`,
  )
  const enc = join(source, 'south_africa', 'encumbrances', 'WC')
  mkdirSync(enc, { recursive: true })
  writeFileSync(join(enc, 'servitude_area.geojsonl'), `${areaRows().join('\n')}\n`)
  const out = join(mkdtempSync(join(inject('workDir'), 'versions-ds-')), 'ds')
  manifest = await buildDataset({ source, out, allowRejects: true, log: (l) => lines.push(l) })
  const t = makeTestApp({ datasetDir: out })
  const { key } = t.issue()
  get = async (path) => t.get(`/api/v1/parcels${path}`, key)
  getEnc = async (path) => t.get(`/api/v1/encumbrances${path}`, key)
})

describe('versions of one parcel in an export', () => {
  it('fails the build without --allow-rejects, naming each key in conflict', async () => {
    const said: string[] = []
    await expect(
      buildDataset({ source, out: join(mkdtempSync(join(inject('workDir'), 'v-')), 'ds'), log: (l) => said.push(l) }),
    ).rejects.toThrow(/7 source rows were rejected/)
    const text = said.join('\n')
    expect(text).toMatch(
      new RegExp(`erf.geojsonl:1: LPI ${TWICE_CURRENT} has two current versions: this row and .*erf.geojsonl:87`),
    )
    expect(text).toMatch(new RegExp(`erf.geojsonl:87: LPI ${TWICE_CURRENT} has two current versions`))

    expect(text).toMatch(
      new RegExp(`erf.geojsonl:88: source key ${KEY(904)} is on two LPIs: ${SHARED_KEY_B} here and ${SHARED_KEY_A}`),
    )
    expect(text).toMatch(
      new RegExp(`erf.geojsonl:2: source key ${KEY(904)} is on two LPIs: ${SHARED_KEY_A} here and ${SHARED_KEY_B}`),
    )
  })

  it('names one LPI on two parcels apart a key collision, not two versions (issue #39 item 7)', async () => {
    const collide = mkdtempSync(join(inject('workDir'), 'collide-src-'))
    cpSync(source, collide, { recursive: true })
    appendFileSync(
      join(collide, 'south_africa', 'cadastre', 'WC', 'erf.geojsonl'),
      `${erf(COLLIDING, KEY(906), away(6))}\n${erf(COLLIDING, `${COLLIDING}55555`, away(9))}\n`,
    )
    const said: string[] = []
    const out = join(mkdtempSync(join(inject('workDir'), 'collide-')), 'ds')
    await expect(buildDataset({ source: collide, out, log: (l) => said.push(l) })).rejects.toThrow(/rejected/)
    const text = said.join('\n')
    expect(text).toMatch(
      new RegExp(`erf.geojsonl:90: key collision: this row and .*erf.geojsonl:89 both use LPI ${COLLIDING} for two`),
    )
    expect(text).toMatch(/erf.geojsonl:89: key collision: this row and .*erf.geojsonl:90/)
    expect(text).not.toMatch(new RegExp(`LPI ${COLLIDING} has two current versions`))
  })

  it('counts the duplicate and the four conflicting rows in the layer summary and the log', () => {
    expect(manifest.domains.parcels!.layers['WC/erf']).toMatchObject({ rows: 83, rejected: 4, duplicates: 1 })
    const said = lines.join('\n')
    expect(said).toContain('parcels/WC/erf: 2 earlier rows rejected by conflicts found later: 83 parcels, 4 rejected')
  })

  it('counts the fixes of the rows kept only: a row rejected by a later conflict takes its fixes away (issue #39 item 7)', () => {
    // the eight clockwise fillers; the first current version of TWICE_CURRENT was open, clockwise
    // and labelled outside itself, then rejected
    expect(manifest.domains.parcels!.layers['WC/erf']).toMatchObject({
      rows: 83,
      rejected: 4,
      repaired: 0,
      reoriented: 8,
      labels_replaced: 0,
    })
    // the layer's summary line gives the final counts, as the manifest does
    expect(lines).toContain(
      'parcels/WC/erf: 83 parcels, 0 repaired, 8 re-oriented, 1 duplicates dropped, 0 label points replaced, 4 rejected',
    )
    expect(lines.join('\n')).toMatch(/parcels: 83 records, 0 geometries repaired, 1 exact duplicates dropped, 0 source/)
  })

  it('drops an exact duplicate encumbrance and rejects another record reusing a uid, naming the first', () => {
    expect(manifest.domains.encumbrances!.layers['WC/servitude_area']).toMatchObject({
      rows: 20,
      rejected: 1,
      duplicates: 1,
    })
    expect(lines.join('\n')).toMatch(
      /servitude_area.geojsonl:22: uid 5004 was already used by .*servitude_area.geojsonl:5/,
    )
  })

  it('warns once per layer whose area column is typically off, and serves the geodesic area', async () => {
    const said = lines.filter((l) => l.startsWith('warning:'))
    expect(said).toHaveLength(2)
    expect(said[0]).toMatch(/parcels\/WC\/erf: the source geom_area is typically 1\.2[34]\d times .*Web Mercator/)
    expect(said[1]).toMatch(/encumbrances\/WC\/servitude_area: the source geom_area is typically 1\.[23]\d\d times/)
    const body = await json(await get(`/${lpiOf(1)}`))
    expect(Math.abs(body.parcels[0].extent_sqm / CELL_SQM - 1)).toBeLessThan(0.005)
  })

  it('rejects a beacon and a General Plan outside the country, the swapped beacon said to be swapped', () => {
    const said = lines.join('\n')
    expect(said).toMatch(/beacon.geojsonl:21: coordinates outside South Africa .*latitude and longitude look swapped/)
    expect(said).toMatch(/general_plan.geojsonl:21: coordinates outside South Africa/)
    expect(manifest.domains.parcels!.layers['WC/beacon']).toMatchObject({ rows: 20, rejected: 1 })
    expect(manifest.domains.parcels!.layers['WC/general_plan']).toMatchObject({ rows: 20, rejected: 1 })
  })

  it('lists re-oriented rings and dropped duplicates in both coverage answers', async () => {
    const parcels = await json(await get('/coverage'))
    const erven = parcels.coverage.find(
      (c: { province: string; layer: string }) => c.province === 'WC' && c.layer === 'ERF',
    )
    expect(erven).toMatchObject({
      records: 83,
      rows_rejected: 4,
      geometries_repaired: 0,
      rings_reoriented: 8,
      duplicates_dropped: 1,
    })
    const enc = await json(await getEnc('/coverage'))
    const wc = enc.provinces.find((p: { province: string }) => p.province === 'WC')
    expect(wc.classes.servitude_area).toMatchObject({ records: 20, rejected: 1, duplicates: 1, reoriented: 0 })
  })

  it('serves an exact duplicate once', async () => {
    const body = await json(await get(`/${DUP}`))
    expect(body.parcels.map((p: { lpi: string }) => p.lpi)).toEqual([DUP])
  })

  it('serves a current and a historic version of one LPI, current first', async () => {
    const body = await json(await get(`/${VERSIONED}?include_status=all`))
    expect(body.parcels.map((p: { work_status?: { code: string } }) => p.work_status?.code)).toEqual(['C', 'H'])
  })

  it('serves neither row of a conflict', async () => {
    for (const lpi of [TWICE_CURRENT, SHARED_KEY_A, SHARED_KEY_B])
      expect((await get(`/${lpi}?include_status=all`)).status).toBe(404)
    expect((await get(`/by-key/${KEY(904)}`)).status).toBe(404)
  })

  it('keeps every later row whole after removing the earlier rows of conflicts', async () => {
    for (let k = 0; k < 80; k += 7) {
      const [[x0, y0], , [x1, y1]] = cell(k)
      const res = await get(`/at?latitude=${(y0 + y1) / 2}&longitude=${(x0 + x1) / 2}`)
      expect(res.status).toBe(200)
      const body = await json(res)
      expect(body.parcels[0]).toMatchObject({ lpi: lpiOf(k + 1), source_key: KEY(k + 1) })
      expect((await json(await get(`/by-key/${KEY(k + 1)}`))).parcels[0].lpi).toBe(lpiOf(k + 1))
    }
  })
})
