/**
 * A parcel lying in the hole of another touches it; it is not held by it (docs/decisions.md
 * "Geometry tolerances": containment is by area). Built from a hand-made cadastre export: farm
 * portion A with a hole, erf B filling that hole exactly, and erf C wholly inside A.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { box, json, makeTestApp } from './helpers.js'

type Ring = [number, number][]
const A = 'C01300000000095000001'
const B = 'C01308880000000100000'
const C = 'C01308880000000200000'
const feature = (lpi: string, rings: Ring[]) =>
  `${JSON.stringify({
    type: 'Feature',
    properties: {
      id: lpi,
      prcl_key: `${lpi}00001`,
      parcel_no: Number(lpi.slice(8, 16)),
      portion: Number(lpi.slice(16)),
      lstatus: 'R',
      wstatus: 'C',
    },
    geometry: { type: 'Polygon', coordinates: rings },
  })}\n`

let get: (path: string) => Response | Promise<Response>

beforeAll(async () => {
  const source = mkdtempSync(join(inject('workDir'), 'holes-src-'))
  const wc = join(source, 'south_africa', 'cadastre', 'WC')
  mkdirSync(wc, { recursive: true })
  writeFileSync(
    join(source, 'export.json'),
    JSON.stringify({ cadastre: { export_id: 'csg-holes', as_of: '2026-09-30' } }),
  )
  const hole = box(18.504, -33.996, 18.506, -33.994)
  writeFileSync(join(wc, 'farm_portion.geojsonl'), feature(A, [box(18.5, -34, 18.51, -33.99), [...hole].reverse()]))
  writeFileSync(join(wc, 'erf.geojsonl'), feature(B, [hole]) + feature(C, [box(18.501, -33.999, 18.502, -33.998)]))
  const out = join(mkdtempSync(join(inject('workDir'), 'holes-ds-')), 'ds')
  await buildDataset({ source, out, log: () => {} })
  const t = makeTestApp({ datasetDir: out })
  const { key } = t.issue()
  get = (path) => t.get(`/api/v1/parcels${path}`, key)
})

const lpis = (body: { neighbours: { parcel: { lpi: string } }[] }) => body.neighbours.map((n) => n.parcel.lpi)

describe('a parcel in the hole of another', () => {
  it('touches it both ways, sharing the whole ring of the hole', async () => {
    const ofA = await json(await get(`/${A}/neighbours`))
    expect(lpis(ofA)).toEqual([B])
    // the hole's ring: 2 x 0.002° of longitude (184.6 m each at 34° S) and 2 x 0.002° of latitude (222.6 m)
    expect(ofA.neighbours[0].shared_boundary_meters).toBeGreaterThan(810)
    expect(ofA.neighbours[0].shared_boundary_meters).toBeLessThan(818)
    expect(lpis(await json(await get(`/${B}/neighbours`)))).toEqual([A])
  })

  it('is within any distance of it, while the erf the portion truly holds is never its neighbour', async () => {
    expect(lpis(await json(await get(`/${B}/neighbours?mode=within&distance=10`)))).toEqual([A])
    const ofC = await json(await get(`/${C}/neighbours?mode=within&distance=1000`))
    expect(lpis(ofC)).toEqual([B])
    expect(lpis(await json(await get(`/${A}/neighbours?mode=within&distance=1000`)))).toEqual([B])
  })
})
