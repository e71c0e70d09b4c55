/**
 * The cadastral register answers on its own: a point that no demarcated boundary in force holds
 * but a register layer (registration division, Deeds Office, township) does is a 200 with that
 * chain, not a 404 (docs/decisions.md "Jurisdiction 404"). Built from a hand-made export: one
 * dated province and, apart from it, a registration division with a township inside it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { json, makeTestApp } from './helpers.js'

const box = (x0: number, y0: number, x1: number, y1: number) => [
  [
    [x0, y0],
    [x1, y0],
    [x1, y1],
    [x0, y1],
    [x0, y0],
  ],
]
const feature = (props: Record<string, string>, x0: number, y0: number, x1: number, y1: number) =>
  `${JSON.stringify({ type: 'Feature', properties: props, geometry: { type: 'Polygon', coordinates: box(x0, y0, x1, y1) } })}\n`

let get: (path: string) => Response | Promise<Response>
let post: (path: string, body: unknown) => Response | Promise<Response>

beforeAll(async () => {
  const source = mkdtempSync(join(inject('workDir'), 'register-src-'))
  const dated = join(source, 'south_africa', 'boundaries', '2020')
  const register = join(source, 'south_africa', 'boundaries', 'register')
  mkdirSync(dated, { recursive: true })
  mkdirSync(register, { recursive: true })
  writeFileSync(
    join(source, 'export.json'),
    JSON.stringify({ boundaries: { export_id: 'mdb-reg', as_of: '2026-10-01' } }),
  )
  writeFileSync(join(dated, 'set.json'), JSON.stringify({ vintage: '2020 test', effective_from: '2016-08-03' }))
  writeFileSync(
    join(dated, 'province.geojsonl'),
    feature({ code: 'WC', name: 'WESTERN CAPE', province: 'WC' }, 18, -34, 19, -33),
  )
  writeFileSync(join(register, 'set.json'), JSON.stringify({ vintage: 'cadastral register' }))
  writeFileSync(
    join(register, 'registration_division.geojsonl'),
    feature({ code: 'RD1', name: 'OFFSHORE DIVISION', category: 'ADMIN', province: 'WC' }, 20, -35, 20.2, -34.8),
  )
  writeFileSync(
    join(register, 'township.geojsonl'),
    feature({ code: 'T0001', name: 'ISLAND TOWNSHIP', province: 'WC', parent: 'RD1' }, 20.05, -34.95, 20.1, -34.9),
  )
  const out = join(mkdtempSync(join(inject('workDir'), 'register-ds-')), 'ds')
  await buildDataset({ source, out, log: () => {} })
  const t = makeTestApp({ datasetDir: out })
  const { key } = t.issue()
  get = (path) => t.get(`/api/v1/jurisdiction${path}`, key)
  post = (path, body) =>
    t.app.request(`/api/v1/jurisdiction${path}`, {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
})

describe('/jurisdiction/at where only the cadastral register holds the point', () => {
  it('answers 200 with the register links, null dated links and a note saying so', async () => {
    const res = await get('/at?lat=-34.92&lon=20.07')
    expect(res.status).toBe(200)
    const body = await json(res)
    expect(body.jurisdiction.province).toBeNull()
    expect(body.jurisdiction.local_municipality).toBeNull()
    expect(body.jurisdiction.registration_division.code).toBe('RD1')
    expect(body.jurisdiction.township.code).toBe('T0001')
    expect(body.notes.join(' ')).toContain('only the cadastral register places it')
  })

  it('answers the same in a batch: the register-only points resolved, the point in no layer null', async () => {
    const res = await post('/batch', {
      points: [
        { latitude: -34.92, longitude: 20.07 },
        { latitude: -34.99, longitude: 20.01 },
        { latitude: -30, longitude: 25 },
      ],
    })
    expect(res.status).toBe(200)
    const [township, division, none] = (await json(res)).results
    expect(township.jurisdiction.township.code).toBe('T0001')
    expect(division.jurisdiction.registration_division.code).toBe('RD1')
    expect(division.jurisdiction.township).toBeNull()
    expect(none).toBeNull()
  })

  it('still answers 404 NoJurisdictionAtPoint where no layer at all holds the point', async () => {
    const res = await get('/at?lat=-30&lon=25')
    expect(res.status).toBe(404)
    expect((await json(res)).error).toBe('NoJurisdictionAtPoint')
  })

  it('keeps the dated chain where the province holds the point, with no register note', async () => {
    const body = await json(await get('/at?lat=-33.5&lon=18.5'))
    expect(body.jurisdiction.province.code).toBe('WC')
    expect(body.jurisdiction.registration_division).toBeNull()
    expect(body.notes.join(' ')).not.toContain('cadastral register places it')
  })
})
