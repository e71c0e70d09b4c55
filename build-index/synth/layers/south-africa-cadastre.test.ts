import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import booleanPointInPolygon from '@turf/boolean-point-in-polygon'
import { beforeAll, describe, expect, it } from 'vitest'
import { deriveErvenFromCadastre } from '../../domains/build-plots.js'
import { readLayer } from '../../sources/read-layer.js'
import { normaliseErf, type PlotRecord } from '../../transform/plots.js'
import type { PlotLayerWriter } from '../../write/plots-writer.js'
import { runSynth, type SynthSummary } from '../synth.js'
import { hashTree, synthOnce, tempDir } from '../testing.js'

type Position = [number, number]
interface Feature {
  properties: Record<string, string | number>
  geometry: { type: string; coordinates: unknown }
}
interface Row extends Feature {
  folder: string
  layer: string
}

const PARCEL_LAYERS = ['erf', 'farm_portion', 'holding', 'parent_farm', 'public_place', 'street']
const FOLDERS = ['EC', 'FS', 'GP', 'KZN', 'LP', 'MP', 'NC', 'NW', 'WC']
const HOLDING_FOLDERS = ['FS', 'GP', 'KZN', 'LP', 'MP', 'NW']
// written independently of the generator: docs/domain.md 1.3 office letters
const OFFICE: Record<string, string> = {
  EC: 'C',
  FS: 'F',
  GP: 'T',
  KZN: 'N',
  LP: 'T',
  MP: 'T',
  NC: 'C',
  NW: 'T',
  WC: 'C',
}
const TITLE: Record<string, string> = {
  EC: 'Eastern Cape',
  FS: 'Free State',
  GP: 'Gauteng',
  KZN: 'KwaZulu-Natal',
  LP: 'Limpopo',
  MP: 'Mpumalanga',
  NC: 'Northern Cape',
  NW: 'North West',
  WC: 'Western Cape',
}

let run: SynthSummary
const rows: Row[] = []
const byLayer = (layer: string) => rows.filter((r) => r.layer === layer)
const visible = (r: Row) => r.properties.lstatus !== 'A' && r.properties.lstatus !== 'W' && r.properties.wstatus !== 'H'

function readFeatures(path: string): Feature[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Feature)
}

/** Polygon rings closed (the repairable open-ring defect leaves one open). */
function polygonOf(f: Feature): { type: 'Polygon'; coordinates: Position[][] } {
  const rings = (f.geometry.coordinates as Position[][]).map((ring) => {
    const a = ring[0]
    const b = ring[ring.length - 1]
    return a[0] === b[0] && a[1] === b[1] ? ring : [...ring, a]
  })
  return { type: 'Polygon', coordinates: rings }
}

function signedArea2(ring: Position[]): number {
  let s = 0
  for (let i = 0; i < ring.length - 1; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return s
}

beforeAll(async () => {
  run = await synthOnce('tiny', 7)
  const root = join(run.out, 'south_africa', 'cadastre')
  for (const folder of readdirSync(root).sort()) {
    for (const file of readdirSync(join(root, folder)).sort()) {
      const layer = file.replace(/\.geojsonl$/, '')
      for (const f of readFeatures(join(root, folder, file))) rows.push({ ...f, folder, layer })
    }
  }
})

describe('south_africa/cadastre layout', () => {
  it('writes the eight layers per province folder, holdings only in FS, GP, KZN, LP, MP and NW', () => {
    const root = join(run.out, 'south_africa', 'cadastre')
    expect(readdirSync(root).sort()).toEqual(FOLDERS)
    for (const folder of FOLDERS) {
      const files = readdirSync(join(root, folder)).sort()
      const expected = ['beacon', 'erf', 'farm_portion', 'general_plan', 'parent_farm', 'public_place', 'street']
      if (HOLDING_FOLDERS.includes(folder)) expected.push('holding')
      expect(files, folder).toEqual(expected.sort().map((l) => `${l}.geojsonl`))
    }
    expect(new Set(byLayer('holding').map((r) => r.folder))).toEqual(new Set(HOLDING_FOLDERS))
  })

  it('names the cadastre export in export.json', () => {
    const exports = JSON.parse(readFileSync(join(run.out, 'export.json'), 'utf8'))
    expect(exports.cadastre).toEqual({ export_id: 'csg-synth-tiny-s7', as_of: '2026-09-30' })
  })

  it('gives every parcel the CSG fields, a unique gid per file and a province name', () => {
    const gids = new Map<string, Set<number>>()
    for (const r of rows.filter((x) => PARCEL_LAYERS.includes(x.layer))) {
      const p = r.properties
      expect(Object.keys(p)).toEqual([
        'gid',
        'id',
        'prcl_key',
        'parcel_no',
        'portion',
        'tag_value',
        'tag_x',
        'tag_y',
        'lstatus',
        'wstatus',
        'maj_region',
        'maj_code',
        'min_region',
        'min_code',
        'province',
        'geom_area',
        'date_stamp',
      ])
      expect(p.province).toBe(TITLE[r.folder])
      expect(String(p.date_stamp)).toMatch(/^(18|19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d)$/)
      expect(p.geom_area as number).toBeGreaterThan(0)
      const key = `${r.folder}/${r.layer}`
      const s = gids.get(key) ?? new Set<number>()
      expect(s.has(p.gid as number), key).toBe(false)
      gids.set(key, s.add(p.gid as number))
      expect(p.maj_region).toBe(String(p.maj_region).toUpperCase())
      const farm = r.layer === 'parent_farm' || r.layer === 'farm_portion'
      expect(p.min_region === '', `${r.layer} ${p.id}`).toBe(farm)
      // tags per docs/domain.md 1.2: 1068, RE/1376 for a remainder, 2/89 for portion 2
      const tag = String(p.tag_value)
      if (p.portion === 0) expect(tag === String(p.parcel_no) || tag === `RE/${p.parcel_no}`).toBe(true)
      else expect(tag).toBe(`${p.portion}/${p.parcel_no}`)
    }
  })

  it('builds valid 21-character LPIs from the parts, with 26-character source keys', () => {
    const pattern = /^[OBCFNT][A-Z0-9]{4}[0-9]{16}$/
    for (const r of rows.filter((x) => PARCEL_LAYERS.includes(x.layer))) {
      const p = r.properties
      const id = String(p.id)
      expect(id, id).toMatch(pattern)
      expect(id[0]).toBe(OFFICE[r.folder])
      expect(id[1]).toBe('0')
      expect(id.slice(2, 4)).toBe(p.maj_code)
      expect(id.slice(4, 8)).toBe(r.layer === 'parent_farm' || r.layer === 'farm_portion' ? '0000' : p.min_code)
      expect(Number(id.slice(8, 16))).toBe(p.parcel_no)
      expect(Number(id.slice(16))).toBe(p.portion)
      expect(String(p.prcl_key)).toMatch(/^[A-Z0-9]{26}$/)
      expect(String(p.prcl_key).startsWith(id)).toBe(true)
      // KZN divisions are letters; Cape and Free State districts are digits (a letter and a
      // digit once the Northern Cape has used the last number)
      if (r.folder === 'KZN' || OFFICE[r.folder] === 'T') expect(id.slice(2, 4)).toMatch(/^[A-Z]{2}$/)
      else expect(id.slice(2, 4)).toMatch(r.folder === 'NC' ? /^(\d{2}|[A-Z]\d)$/ : /^\d{2}$/)
    }
    // the hand-made fixtures own C013… in the Western Cape
    expect(rows.filter((r) => r.folder === 'WC' && String(r.properties.id ?? '').startsWith('C013'))).toEqual([])
  })

  it('keeps LPIs unique among current rows, source keys unique among all rows, and no LPI in two provinces', () => {
    const parcels = rows.filter((x) => PARCEL_LAYERS.includes(x.layer))
    const current = parcels.filter(visible).map((r) => String(r.properties.id))
    expect(new Set(current).size).toBe(current.length)
    const keys = parcels.map((r) => String(r.properties.prcl_key))
    expect(new Set(keys).size).toBe(keys.length)
    const provinceOf = new Map<string, string>()
    for (const r of parcels) {
      const id = String(r.properties.id)
      expect(provinceOf.get(id) ?? r.folder, id).toBe(r.folder)
      provinceOf.set(id, r.folder)
    }
  })

  it('gives historic rows the id of a current row with another source key, an older date and other geometry', () => {
    const erven = byLayer('erf')
    const historic = erven.filter((r) => r.properties.wstatus === 'H')
    expect(historic.length).toBeGreaterThan(20)
    const currentById = new Map(erven.filter(visible).map((r) => [r.properties.id, r]))
    for (const h of historic) {
      const cur = currentById.get(h.properties.id)
      expect(cur, String(h.properties.id)).toBeDefined()
      expect(cur!.properties.prcl_key).not.toBe(h.properties.prcl_key)
      expect(String(h.properties.date_stamp) < String(cur!.properties.date_stamp)).toBe(true)
      expect(JSON.stringify(polygonOf(h))).not.toBe(JSON.stringify(polygonOf(cur!)))
    }
  })

  it('adds a few archived or withdrawn erven with LPIs of their own', () => {
    const erven = byLayer('erf')
    const gone = erven.filter((r) => r.properties.lstatus === 'A' || r.properties.lstatus === 'W')
    expect(gone.length).toBeGreaterThan(0)
    expect(gone.length).toBeLessThan(erven.length / 100)
    const otherIds = new Set(erven.filter((r) => !gone.includes(r)).map((r) => r.properties.id))
    for (const g of gone) expect(otherIds.has(g.properties.id)).toBe(false)
    // and apart from them every row is registered
    expect(erven.filter((r) => !gone.includes(r)).every((r) => r.properties.lstatus === 'R')).toBe(true)
  })

  it('leaves about half of the Northern Cape work statuses blank, and none elsewhere', () => {
    const parcels = rows.filter((x) => PARCEL_LAYERS.includes(x.layer) && x.properties.wstatus !== 'H')
    const nc = parcels.filter((r) => r.folder === 'NC')
    const blank = nc.filter((r) => r.properties.wstatus === '').length
    expect(nc.length).toBeGreaterThan(100)
    expect(blank / nc.length).toBeGreaterThan(0.4)
    expect(blank / nc.length).toBeLessThan(0.6)
    expect(parcels.filter((r) => r.folder !== 'NC' && r.properties.wstatus !== 'C')).toEqual([])
  })

  it('puts every parcel label point inside its own polygon', () => {
    for (const r of rows.filter((x) => PARCEL_LAYERS.includes(x.layer))) {
      const pt: Position = [r.properties.tag_x as number, r.properties.tag_y as number]
      expect(booleanPointInPolygon(pt, polygonOf(r)), `${r.layer} ${r.properties.id}`).toBe(true)
    }
  })

  it(
    'nests townships in farms: every current erf label point lies in a farm portion or parent farm of its ' +
      'province',
    () => {
      const farms = rows.filter((r) => r.layer === 'farm_portion' || r.layer === 'parent_farm')
      const boxes = farms.map((f) => {
        const ring = polygonOf(f).coordinates[0]
        const xs = ring.map((p) => p[0])
        const ys = ring.map((p) => p[1])
        return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]
      })
      const erven = byLayer('erf').filter(visible)
      expect(erven.length).toBeGreaterThan(2000)
      for (const e of erven) {
        const [x, y] = [e.properties.tag_x as number, e.properties.tag_y as number]
        const hit = farms.some((f, i) => {
          const b = boxes[i]
          return (
            f.folder === e.folder &&
            x >= b[0] &&
            x <= b[2] &&
            y >= b[1] &&
            y <= b[3] &&
            booleanPointInPolygon([x, y], polygonOf(f))
          )
        })
        expect(hit, `${e.folder} ${e.properties.id}`).toBe(true)
      }
      // and farm portions lie in their parent farm
      const parents = new Map(byLayer('parent_farm').map((f) => [String(f.properties.id).slice(0, 16), f]))
      for (const p of byLayer('farm_portion')) {
        const parent = parents.get(String(p.properties.id).slice(0, 16))
        expect(parent, String(p.properties.id)).toBeDefined()
        expect(
          booleanPointInPolygon([p.properties.tag_x as number, p.properties.tag_y as number], polygonOf(parent!)),
        ).toBe(true)
      }
    },
  )

  it('writes a few repairable geometries of each kind, and only those', () => {
    const parcels = rows.filter((x) => PARCEL_LAYERS.includes(x.layer))
    const kinds = { clockwise: 0, duplicate: 0, open: 0 }
    for (const r of parcels) {
      const ring = (r.geometry.coordinates as Position[][])[0]
      const closed = ring[0][0] === ring[ring.length - 1][0] && ring[0][1] === ring[ring.length - 1][1]
      if (!closed) kinds.open++
      if (ring.some((p, i) => i > 0 && p[0] === ring[i - 1][0] && p[1] === ring[i - 1][1])) kinds.duplicate++
      if (signedArea2(polygonOf(r).coordinates[0]) < 0) kinds.clockwise++
      expect(ring.length).toBeGreaterThanOrEqual(4)
    }
    expect(kinds.clockwise).toBeGreaterThan(0)
    expect(kinds.duplicate).toBeGreaterThan(0)
    expect(kinds.open).toBeGreaterThan(0)
    const total = kinds.clockwise + kinds.duplicate + kinds.open
    expect(total).toBe(run.layers.find((l) => l.layer === 'cadastre')!.counts.repairable_geometries)
    expect(total).toBeLessThan(parcels.length / 100)
  })

  it('puts beacons only on parcel corners, once per position, sparser in the Northern and Eastern Cape', () => {
    const corners = new Set<string>()
    for (const r of rows.filter((x) => x.layer === 'erf' || x.layer === 'farm_portion')) {
      for (const p of polygonOf(r).coordinates[0]) corners.add(`${r.folder}|${p[0]},${p[1]}`)
    }
    const beacons = byLayer('beacon')
    const ids = new Set<string>()
    const positions = new Set<string>()
    for (const b of beacons) {
      expect(Object.keys(b.properties)).toEqual(['beacon_id', 'name', 'description', 'date_stamp'])
      expect(b.geometry.type).toBe('Point')
      const [x, y] = b.geometry.coordinates as Position
      const key = `${b.folder}|${x},${y}`
      expect(corners.has(key), key).toBe(true)
      expect(positions.has(key), key).toBe(false)
      positions.add(key)
      expect(ids.has(String(b.properties.beacon_id))).toBe(false)
      ids.add(String(b.properties.beacon_id))
    }
    const ratio = (folders: string[]) =>
      beacons.filter((b) => folders.includes(b.folder)).length /
      byLayer('erf').filter((e) => folders.includes(e.folder)).length
    expect(ratio(['NC', 'EC'])).toBeLessThan(ratio(['GP', 'WC', 'KZN']) / 2)
  })

  it('writes a General Plan numbered <number>/<year> over every township', () => {
    const plans = byLayer('general_plan')
    for (const p of plans) expect(String(p.properties.sg_no)).toMatch(/^\d{3,4}\/(19|20)\d{2}$/)
    const townships = new Map<string, Row>()
    for (const e of byLayer('erf').filter(visible)) townships.set(`${e.folder}|${e.properties.min_region}`, e)
    expect(townships.size).toBe(18)
    for (const [key, e] of townships) {
      const covered = plans.some(
        (p) =>
          p.folder === e.folder &&
          booleanPointInPolygon([e.properties.tag_x as number, e.properties.tag_y as number], polygonOf(p)),
      )
      expect(covered, key).toBe(true)
    }
  })
})

describe('erven.csv and the erf layers', () => {
  it('give the same plot records through both build paths (erven.csv, or derived from the cadastre)', async () => {
    const fromCsv: PlotRecord[] = []
    for await (const row of readLayer(join(run.out, 'south_africa', 'erven.csv'), { pointLayer: true })) {
      if (!row.ok) throw new Error(row.reason)
      const r = normaliseErf(row.properties, row.geometry)
      if (!r.ok) throw new Error(r.reason)
      fromCsv.push(r.rec)
    }
    const derived: PlotRecord[] = []
    const writer = {
      add: (rec: PlotRecord) => derived.push(rec),
      get count() {
        return derived.length
      },
    }
    expect(await deriveErvenFromCadastre(run.out, writer as unknown as PlotLayerWriter)).toBe(true)
    const key = (r: PlotRecord) => `${r.region}|${r.city}|${r.plotNumber}|${r.lon}|${r.lat}`
    expect(fromCsv.length).toBe(2_400)
    expect(derived.map(key).sort()).toEqual(fromCsv.map(key).sort())
  })
})

describe('determinism', () => {
  it('writes byte-identical cadastre files for the same seed (also with --only), different ones for another seed', async () => {
    const again = await runSynth({ scale: 'tiny', seed: 7, out: tempDir('cadastre-again'), only: ['cadastre'] })
    const pick = (h: Record<string, string>) =>
      Object.fromEntries(Object.entries(h).filter(([k]) => k.includes('cadastre')))
    const a = pick(hashTree(run.out))
    expect(Object.keys(a).length).toBe(8 * 6 + 7 * 3)
    expect(pick(hashTree(again.out))).toEqual(a)
    const other = await runSynth({ scale: 'tiny', seed: 8, out: tempDir('cadastre-other'), only: ['cadastre'] })
    const b = pick(hashTree(other.out))
    expect(b['south_africa/cadastre/GP/erf.geojsonl']).not.toBe(a['south_africa/cadastre/GP/erf.geojsonl'])
    expect(existsSync(join(other.out, 'south_africa', 'erven.csv'))).toBe(false)
  })
})
