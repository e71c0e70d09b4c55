import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import booleanPointInPolygon from '@turf/boolean-point-in-polygon'
import { openDbf } from 'shapefile'
import { feature } from 'topojson-client'
import type { Topology } from 'topojson-specification'
import { beforeAll, describe, expect, it } from 'vitest'
import { createContext } from '../context.js'
import { loadGeography } from '../geography.js'
import { Random } from '../random.js'
import { SCALES } from '../scales.js'
import { runSynth, type SynthSummary } from '../synth.js'
import { hashTree, synthOnce, tempDir } from '../testing.js'
import { planTownships } from './south-africa-erven.js'

type Position = [number, number]
type Geometry = { type: 'Polygon'; coordinates: Position[][] } | { type: 'MultiPolygon'; coordinates: Position[][][] }
interface Feature {
  type: string
  properties: Record<string, unknown>
  geometry: Geometry
}

const REAL = join(process.cwd(), 'data', 'real')
const REGISTER_FIELDS = ['code', 'name', 'category', 'province', 'parent', 'effective_from', 'effective_to']
const PROVINCE_CODES = ['EC', 'FS', 'GP', 'KZ', 'LP', 'MP', 'NC', 'NW', 'WC']
const geo = loadGeography(REAL)

let run: SynthSummary
let dir = ''
const file = (p: string) => join(dir, p)
const lines = (p: string) =>
  readFileSync(file(p), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
const features = (p: string) => lines(p).map((l) => JSON.parse(l) as Feature)
const json = (p: string) => JSON.parse(readFileSync(file(p), 'utf8'))

function bbox(g: Geometry): [number, number, number, number] {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const poly of polys)
    for (const [x, y] of poly[0]) {
      b[0] = Math.min(b[0], x)
      b[1] = Math.min(b[1], y)
      b[2] = Math.max(b[2], x)
      b[3] = Math.max(b[3], y)
    }
  return b
}

const inBox = (b: number[], x: number, y: number) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]

async function dbfRows(path: string): Promise<Record<string, unknown>[]> {
  const src = await openDbf(path)
  const out: Record<string, unknown>[] = []
  for (;;) {
    const r = await src.read()
    if (r.done) return out
    out.push(r.value as Record<string, unknown>)
  }
}

function topoFeatures(name: string): Feature[] {
  const t = JSON.parse(gunzipSync(readFileSync(join(REAL, name))).toString('utf8')) as Topology
  const key = Object.keys(t.objects)[0]
  return (feature(t, t.objects[key]) as unknown as { features: Feature[] }).features
}

beforeAll(async () => {
  run = await synthOnce('tiny', 7)
  dir = join(run.out, 'south_africa', 'boundaries')
})

describe('south_africa/boundaries layout', () => {
  it('writes the four MDB sets and the register, each with a set.json', () => {
    expect(readdirSync(dir).sort()).toEqual(['2011', '2016', '2018', '2020', 'register'])
    expect(readdirSync(file('2011')).sort()).toEqual([
      'district_municipality.geojsonl',
      'local_municipality.geojsonl',
      'province.geojsonl',
      'set.json',
      'ward.geojsonl',
    ])
    expect(readdirSync(file('2016')).sort()).toEqual(['set.json', 'ward.csv'])
    expect(readdirSync(file('2018')).sort()).toEqual([
      'district_municipality.dbf',
      'district_municipality.prj',
      'district_municipality.shp',
      'district_municipality.shx',
      'local_municipality.geojsonl',
      'province.cpg',
      'province.dbf',
      'province.prj',
      'province.shp',
      'province.shx',
      'set.json',
    ])
    expect(readdirSync(file('2020')).sort()).toEqual(['set.json', 'ward.dbf', 'ward.prj', 'ward.shp', 'ward.shx'])
    expect(readdirSync(file('register')).sort()).toEqual([
      'deeds_office.geojsonl',
      'pre1994_municipal.geojsonl',
      'registration_division.geojsonl',
      'set.json',
      'suburb.geojsonl',
      'township.geojsonl',
    ])
  })

  it('names the boundaries export in export.json', () => {
    expect(JSON.parse(readFileSync(join(run.out, 'export.json'), 'utf8')).boundaries).toEqual({
      export_id: 'mdb-synth-tiny-s7',
      as_of: '2026-10-01',
    })
  })

  it('writes set.json defaults per set', () => {
    const source = expect.stringMatching(/\S/)
    expect(json('2011/set.json')).toEqual({
      vintage: {
        province: '2011 demarcation',
        district_municipality: '2011 demarcation',
        local_municipality: '2011 demarcation',
        ward: '2011 delimitation',
      },
      effective_from: '2011-05-18',
      effective_to: '2016-08-03',
      source,
    })
    expect(json('2016/set.json')).toEqual({
      vintage: { ward: '2016 delimitation' },
      effective_from: '2016-08-03',
      effective_to: '2021-11-01',
      geometry: false,
      source,
    })
    expect(json('2018/set.json')).toEqual({
      vintage: {
        province: '2018 demarcation',
        district_municipality: '2018 demarcation',
        local_municipality: '2018 demarcation',
      },
      effective_from: '2016-08-03',
      effective_to: null,
      source,
    })
    expect(json('2020/set.json')).toEqual({
      vintage: { ward: '2020 delimitation' },
      effective_from: '2021-11-01',
      effective_to: null,
      source,
    })
    expect(json('register/set.json')).toEqual({
      vintage: 'cadastral register',
      source: 'synthetic (build-index/synth)',
    })
    expect(json('2011/set.json').source).toContain('Wards2011')
    expect(json('2018/set.json').source).toContain("Who's On First")
  })

  it('reports the counts per type in the layer summary', () => {
    const s = run.layers.find((l) => l.layer === 'boundaries')!
    expect(s.domain).toBe('boundaries')
    expect(s.counts).toMatchObject({
      '2011/province': 9,
      '2011/district_municipality': 52,
      '2011/local_municipality': 234,
      '2011/ward': 4277,
      '2016/ward': 4392,
      '2018/province': 9,
      '2018/district_municipality': 52,
      '2018/local_municipality': 213,
      '2020/ward': 4468,
      'register/registration_division': 221,
      'register/township': SCALES.tiny.southAfricaTownships,
      'register/deeds_office': 5,
      'register/suburb': 74,
      'register/pre1994_municipal': 452,
    })
  })
})

describe('the MDB sets', () => {
  it('2011: the TopoJSON features one per line, with the published properties untouched', () => {
    const pairs = [
      ['province', 'Province_New_SANeighbours', 9],
      ['district_municipality', 'DistrictMunicipalities2011', 52],
      ['local_municipality', 'LocalMunicipalities2011', 234],
      ['ward', 'Wards2011', 4277],
    ] as const
    for (const [type, source, n] of pairs) {
      const written = features(`2011/${type}.geojsonl`)
      const published = topoFeatures(`mdb-2011-topojson/${source}.topojson.gz`)
      expect(written, type).toHaveLength(n)
      expect(written.map((f) => f.properties)).toEqual(published.map((f) => f.properties))
      for (const f of written) {
        expect(f.type).toBe('Feature')
        expect(['Polygon', 'MultiPolygon']).toContain(f.geometry.type)
      }
      // same geometry to 7 decimals
      const numbers = (f: Feature) => (f.geometry.coordinates as unknown[]).flat(Infinity).slice(0, 20) as number[]
      const a = JSON.stringify(numbers(written[0]))
      const b = JSON.stringify(numbers(published[0]).map((v) => Math.round(v * 1e7) / 1e7))
      expect(a).toBe(b)
    }
    const ward = features('2011/ward.geojsonl')[0].properties
    expect(Object.keys(ward)).toEqual([
      'WARD',
      'PROVINCE',
      'CAT_B',
      'MUNICNAME',
      'WARDNO',
      'VOTERS',
      'Area',
      'Shape_Leng',
      'Shape_Area',
      'ID',
      'POPULATION',
      'DENSITY',
    ])
    expect(ward.WARD).toMatch(/^\d{8}$/)
    expect(features('2011/local_municipality.geojsonl')[0].properties).toMatchObject({
      CAT_B: 'BUF',
      CATEGORY: 'A',
      DISTRICT: 'BUF',
      PROVINCE: 'Eastern Cape',
    })
    expect(Object.keys(features('2011/district_municipality.geojsonl')[0].properties)).toEqual(
      expect.arrayContaining(['DISTRICT', 'MUNICNAME', 'CATEGORY', 'PROVINCE', 'PROVNAME']),
    )
    expect(Object.keys(features('2011/province.geojsonl')[0].properties)).toEqual(
      expect.arrayContaining(['CODE', 'PROVINCE']),
    )
  })

  it('2016: the ward attribute table byte for byte, 4392 rows', () => {
    const copy = readFileSync(file('2016/ward.csv'))
    expect(copy.equals(readFileSync(join(REAL, 'mdb-attribute-tables', 'MunicipalWards2016.csv')))).toBe(true)
    const rows = copy.toString('utf8').trimEnd().split('\n')
    expect(rows[0]).toBe('Province,CAT_B,WardNo,WardID,MapCode,MunicName')
    expect(rows.length - 1).toBe(4392)
  })

  it('2018 and 2020: the shapefiles byte for byte under the type names', async () => {
    const copies = [
      ['2018/province', 'Provinces_2020', 9],
      ['2018/district_municipality', 'Districts_2020', 52],
      ['2020/ward', 'Wards_2020', 4468],
    ] as const
    for (const [to, from, n] of copies) {
      for (const ext of ['shp', 'shx', 'dbf', 'prj', 'cpg']) {
        const src = join(REAL, 'mdb-2020-wazimap', 'shapefile', `${from}.${ext}`)
        expect(existsSync(file(`${to}.${ext}`)), `${to}.${ext}`).toBe(existsSync(src))
        if (existsSync(src))
          expect(readFileSync(file(`${to}.${ext}`)).equals(readFileSync(src)), `${to}.${ext}`).toBe(true)
      }
      const rows = await dbfRows(file(`${to}.dbf`))
      expect(rows, to).toHaveLength(n)
      expect(Object.keys(rows[0]).sort()).toEqual(['Area', 'Code', 'Name', 'Parent_cod'])
    }
  })

  it("2018: the 213 WOF local municipalities with the Board's fields as WOF carries them", () => {
    const locals = features('2018/local_municipality.geojsonl')
    expect(locals).toHaveLength(213)
    expect(Object.keys(locals[0].properties)).toEqual([
      'wof_id',
      'name',
      'deprecated',
      'superseded_by',
      'is_current',
      'cat2',
      'cat_b',
      'category',
      'district',
      'district_n',
      'map_title',
      'municname',
      'namecode',
      'province',
    ])
    const codes = locals.map((f) => f.properties.cat_b)
    expect(new Set(codes).size).toBe(213)
    expect(locals.filter((f) => f.properties.category === 'A')).toHaveLength(8)
    expect(codes).toContain('JHB')
  })
})

describe('the cadastral register', () => {
  const divisions = () => features('register/registration_division.geojsonl')

  it('writes the docs/source-formats.md fields, exact counts and unique codes per type', () => {
    const expected: Record<string, number> = {
      registration_division: 221,
      township: SCALES.tiny.southAfricaTownships,
      deeds_office: 5,
      suburb: 74,
      pre1994_municipal: 452,
    }
    const provinces: Record<string, string[]> = {
      registration_division: PROVINCE_CODES,
      township: PROVINCE_CODES,
      deeds_office: ['FS', 'GP', 'NC'],
      suburb: ['EC', 'FS', 'NC'],
      pre1994_municipal: ['EC', 'FS', 'NC', 'WC'],
    }
    for (const [type, n] of Object.entries(expected)) {
      const fs = features(`register/${type}.geojsonl`)
      expect(fs, type).toHaveLength(n)
      const codes = fs.map((f) => f.properties.code)
      expect(new Set(codes).size, type).toBe(n)
      for (const f of fs) {
        expect(Object.keys(f.properties), type).toEqual(REGISTER_FIELDS)
        expect(f.properties.effective_from).toBe('')
        expect(f.properties.effective_to).toBe('')
        expect(String(f.properties.name)).not.toBe('')
        expect(provinces[type]).toContain(f.properties.province)
        expect(f.properties.category).toBe(type === 'registration_division' ? 'ADMIN' : '')
        const polys = f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates
        for (const poly of polys)
          for (const ring of poly) {
            expect(ring.length).toBeGreaterThanOrEqual(4)
            expect(ring[0]).toEqual(ring[ring.length - 1])
          }
      }
      expect(new Set(fs.map((f) => f.properties.province)), type).toEqual(
        new Set(type === 'township' ? fs.map((f) => f.properties.province) : provinces[type]),
      )
    }
    expect(features('register/deeds_office.geojsonl').map((f) => [f.properties.code, f.properties.province])).toEqual([
      ['BFN', 'FS'],
      ['JHB', 'GP'],
      ['KIM', 'NC'],
      ['PTA', 'GP'],
      ['VRB', 'NC'],
    ])
    for (const d of divisions()) {
      expect(d.properties.code).toMatch(/^[A-Z0-9]{2}$/)
      expect(d.properties.parent).toBe(d.properties.province)
    }
  })

  it('partitions the country into registration divisions: no overlap and full cover on random points', () => {
    const ds = divisions()
    const boxes = ds.map((d) => bbox(d.geometry))
    const rnd = new Random(3, 'boundaries-test')
    for (let n = 0; n < 3000; n++) {
      const x = rnd.range(16.4, 33)
      const y = rnd.range(-35, -22)
      const hits = ds.filter((d, i) => inBox(boxes[i], x, y) && booleanPointInPolygon([x, y], d.geometry))
      expect(hits.length, `${x},${y}`).toBeLessThanOrEqual(1)
      const p = geo.provinceAt(x, y)
      expect(
        hits.map((h) => h.properties.province),
        `${x},${y}`,
      ).toEqual(p ? [p.code] : [])
    }
  })

  it("gives every township the division containing its centre, and every cadastre LPI its township's major code", () => {
    const ds = divisions()
    const boxes = ds.map((d) => bbox(d.geometry))
    const townships = features('register/township.geojsonl')
    const plans = planTownships(
      createContext({ scale: SCALES.tiny, seed: 7, outDir: run.out, geography: geo, log: () => {} }),
    )
    expect(townships.map((t) => t.properties.name)).toEqual(plans.map((p) => p.name))
    const byCode = new Map(townships.map((t) => [String(t.properties.code), t]))
    townships.forEach((t, i) => {
      const { lon, lat } = plans[i].locality
      const containing = ds.filter((d, k) => inBox(boxes[k], lon, lat) && booleanPointInPolygon([lon, lat], d.geometry))
      expect(
        containing.map((d) => d.properties.code),
        String(t.properties.name),
      ).toEqual([t.properties.parent])
      expect(containing[0].properties.province).toBe(t.properties.province)
      expect(booleanPointInPolygon([lon, lat], t.geometry)).toBe(true)
      // SG office + 0 + major + minor
      expect(String(t.properties.code)).toMatch(/^[CFNT]0[A-Z0-9]{2}\d{4}$/)
      expect(String(t.properties.code).slice(2, 4)).toBe(t.properties.parent)
    })
    // every erf, street and public place of the cadastre carries its township's prefix and major code
    const root = join(run.out, 'south_africa', 'cadastre')
    const divisionCodes = new Set(ds.map((d) => d.properties.code))
    let checked = 0
    for (const folder of readdirSync(root)) {
      for (const layer of readdirSync(join(root, folder))) {
        if (layer === 'beacon.geojsonl' || layer === 'general_plan.geojsonl') continue
        for (const line of readFileSync(join(root, folder, layer), 'utf8').split('\n')) {
          if (!line) continue
          const p = (JSON.parse(line) as Feature).properties
          const lpi = String(p.id)
          expect(divisionCodes.has(lpi.slice(2, 4)), lpi).toBe(true)
          expect(lpi.slice(2, 4)).toBe(p.maj_code)
          if (['erf.geojsonl', 'street.geojsonl', 'public_place.geojsonl'].includes(layer)) {
            const t = byCode.get(lpi.slice(0, 8))
            expect(t, lpi).toBeDefined()
            expect(t!.properties.name).toBe(p.min_region)
            expect(t!.properties.parent).toBe(p.maj_code)
            checked++
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(2400)
  })

  it('splits Gauteng and the Northern Cape into Deeds Registry areas and keeps them to FS, GP and NC', () => {
    const offices = features('register/deeds_office.geojsonl')
    const at = (x: number, y: number) =>
      offices.filter((o) => booleanPointInPolygon([x, y], o.geometry)).map((o) => o.properties.code)
    expect(at(28.19, -25.75)).toEqual(['PTA'])
    expect(at(28.05, -26.2)).toEqual(['JHB'])
    expect(at(26.21, -29.12)).toEqual(['BFN'])
    expect(at(24.76, -28.74)).toEqual(['KIM'])
    expect(at(23.43, -27.45)).toEqual(['VRB'])
    expect(at(18.42, -33.92)).toEqual([])
    const rnd = new Random(4, 'deeds-test')
    for (let n = 0; n < 1500; n++) {
      const x = rnd.range(16.4, 33)
      const y = rnd.range(-35, -22)
      const p = geo.provinceAt(x, y)?.code
      expect(at(x, y).length, `${x},${y}`).toBe(p === 'FS' || p === 'GP' || p === 'NC' ? 1 : 0)
    }
    expect(String(offices[0].properties.name)).toBe('Bloemfontein Deeds Registry')
  })

  it('places suburbs and pre-1994 municipalities as non-overlapping boxes inside their provinces', () => {
    const townships = new Map(features('register/township.geojsonl').map((t) => [t.properties.code, t]))
    for (const type of ['suburb', 'pre1994_municipal']) {
      const fs = features(`register/${type}.geojsonl`)
      const boxes = fs.map((f) => bbox(f.geometry))
      for (let i = 0; i < fs.length; i++) {
        for (let j = i + 1; j < fs.length; j++) {
          const a = boxes[i]
          const b = boxes[j]
          const overlap = a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
          expect(overlap, `${fs[i].properties.code} ${fs[j].properties.code}`).toBe(false)
        }
        const province = geo.province(fs[i].properties.province as 'EC')
        for (const [x, y] of (fs[i].geometry.coordinates as Position[][])[0])
          expect(province.outline.contains(x, y), String(fs[i].properties.code)).toBe(true)
        // a few kilometres at most
        expect(boxes[i][2] - boxes[i][0]).toBeLessThan(0.08)
      }
      const names = fs.map((f) => String(f.properties.name).toUpperCase())
      expect(new Set(names).size).toBe(names.length)
    }
    const pre = features('register/pre1994_municipal.geojsonl')
    for (const f of pre) {
      expect(String(f.properties.name)).toMatch(/\S Municipality$/)
      expect(String(f.properties.code)).toMatch(/^P94-(EC|FS|NC|WC)-\d{3}$/)
      expect(f.properties.parent).toBe('')
    }
    expect(pre.map((f) => f.properties.name)).toContain('Kimberley Municipality')
    const suburbs = features('register/suburb.geojsonl')
    let parented = 0
    for (const s of suburbs) {
      expect(String(s.properties.code)).toMatch(/^SUB-(EC|FS|NC)-\d{3}$/)
      if (s.properties.parent === '') continue
      parented++
      const t = townships.get(s.properties.parent)
      expect(t, String(s.properties.parent)).toBeDefined()
      const b = bbox(s.geometry)
      expect(booleanPointInPolygon([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2], t!.geometry)).toBe(true)
    }
    expect(parented).toBeGreaterThan(0)
  })
})

describe('determinism and --only', () => {
  it('writes byte-identical boundary files for the same seed, other synthetic ones for another seed', async () => {
    const pick = (h: Record<string, string>) =>
      Object.fromEntries(Object.entries(h).filter(([k]) => k.includes('boundaries')))
    const a = pick(hashTree(run.out))
    expect(Object.keys(a)).toHaveLength(29)
    const again = await runSynth({
      scale: 'tiny',
      seed: 7,
      out: tempDir('boundaries-again'),
      only: ['cadastre', 'boundaries'],
    })
    expect(pick(hashTree(again.out))).toEqual(a)
    const other = await runSynth({
      scale: 'tiny',
      seed: 8,
      out: tempDir('boundaries-other'),
      only: ['cadastre', 'boundaries'],
    })
    const b = pick(hashTree(other.out))
    const k = (p: string) => `south_africa/boundaries/${p}`
    // real data and the divisions do not depend on the seed; the synthetic layers do
    for (const p of [
      '2011/ward.geojsonl',
      '2016/ward.csv',
      '2020/ward.shp',
      'register/registration_division.geojsonl',
      'register/deeds_office.geojsonl',
    ])
      expect(b[k(p)], p).toBe(a[k(p)])
    for (const p of ['register/township.geojsonl', 'register/suburb.geojsonl', 'register/pre1994_municipal.geojsonl'])
      expect(b[k(p)], p).not.toBe(a[k(p)])
  })

  it('without the cadastre writes everything but the townships, and suburbs without parents', async () => {
    const only = await runSynth({ scale: 'tiny', seed: 7, out: tempDir('boundaries-only'), only: ['boundaries'] })
    const d = join(only.out, 'south_africa', 'boundaries')
    expect(existsSync(join(d, 'register', 'township.geojsonl'))).toBe(false)
    expect(only.layers[0].counts['register/township']).toBe(0)
    expect(only.layers[0].counts['register/suburb']).toBe(74)
    const suburbs = readFileSync(join(d, 'register', 'suburb.geojsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Feature)
    expect(suburbs.every((s) => s.properties.parent === '')).toBe(true)
    expect(hashTree(d)['register/registration_division.geojsonl']).toBe(
      hashTree(dir)['register/registration_division.geojsonl'],
    )
    expect(JSON.parse(readFileSync(join(only.out, 'export.json'), 'utf8'))).toEqual({
      boundaries: { export_id: 'mdb-synth-tiny-s7', as_of: '2026-10-01' },
    })
  })
})
