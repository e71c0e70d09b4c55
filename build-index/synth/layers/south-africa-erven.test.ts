import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import booleanPointInPolygon from '@turf/boolean-point-in-polygon'
import { beforeAll, describe, expect, it } from 'vitest'
import { createContext } from '../context.js'
import { parseCsv } from '../csv.js'
import { loadGeography } from '../geography.js'
import { SCALES, type ScaleName } from '../scales.js'
import { distanceM, readCsvFile, synthOnce } from '../testing.js'
import { Random } from '../random.js'
import { layoutTownship, planTownships } from './south-africa-erven.js'

interface Erf {
  erf: number
  portion: number
  lat: number
  lon: number
  township: string
  province: string
  raw: string[]
}

// the brief's province names and the Natural Earth features they must fall in
const NE_ISO: Record<string, string> = {
  'EASTERN CAPE': 'ZA-EC',
  'FREE STATE': 'ZA-FS',
  GAUTENG: 'ZA-GT',
  'KWAZULU-NATAL': 'ZA-NL',
  LIMPOPO: 'ZA-LP',
  MPUMALANGA: 'ZA-MP',
  'NORTHERN CAPE': 'ZA-NC',
  'NORTH WEST': 'ZA-NW',
  'WESTERN CAPE': 'ZA-WC',
}

let header: string[] = []
let erven: Erf[] = []
const byTownship = new Map<string, Erf[]>()

beforeAll(async () => {
  const s = await synthOnce('tiny', 7)
  const csv = readCsvFile(join(s.out, 'south_africa/erven.csv'))
  header = csv.header
  erven = csv.rows.map((r) => {
    const [erf, portion] = r[0].split('/')
    return {
      erf: Number(erf),
      portion: Number(portion ?? 0),
      lat: Number(r[1]),
      lon: Number(r[2]),
      township: r[3],
      province: r[4],
      raw: r,
    }
  })
  for (const e of erven) {
    const key = `${e.township}|${e.province}`
    const list = byTownship.get(key) ?? []
    list.push(e)
    byTownship.set(key, list)
  }
})

describe('south_africa/erven.csv', () => {
  it('has the docs/source-formats.md header and well-formed rows', () => {
    expect(header).toEqual(['erf_number', 'latitude', 'longitude', 'township', 'province'])
    for (const e of erven) {
      expect(e.raw).toHaveLength(5)
      expect(e.raw[0]).toMatch(/^[1-9]\d*(\/[1-5])?$/)
      expect(e.raw[1]).toMatch(/^-\d{2}\.\d{7}$/)
      expect(e.raw[2]).toMatch(/^\d{2}\.\d{7}$/)
    }
  })

  it('covers all nine provinces with upper-case names', () => {
    expect(new Set(erven.map((e) => e.province))).toEqual(new Set(Object.keys(NE_ISO)))
  })

  it('uses real WOF locality names, in natural case', () => {
    const wof = new Set(
      parseCsv(readFileSync(join(process.cwd(), 'data/real/wof-south-africa/wof_za_localities.csv'), 'utf8')).map(
        (r) => r.name,
      ),
    )
    for (const key of byTownship.keys()) {
      const name = key.split('|')[0]
      expect(wof.has(name), name).toBe(true)
      expect(name).not.toBe(name.toUpperCase())
    }
  })

  it('restarts erf numbers at 1 in every township, each whole erf once', () => {
    expect(byTownship.size).toBe(SCALES.tiny.southAfricaTownships)
    for (const [key, list] of byTownship) {
      const whole = list.filter((e) => e.portion === 0).map((e) => e.erf)
      expect(Math.min(...whole), key).toBe(1)
      expect(new Set(whole).size, key).toBe(whole.length)
    }
  })

  it('writes about 10 % portions, each of an erf whose whole number exists in the same township', () => {
    const portions = erven.filter((e) => e.portion > 0)
    expect(portions.length / erven.length).toBeGreaterThan(0.05)
    expect(portions.length / erven.length).toBeLessThan(0.15)
    for (const p of portions) {
      const whole = byTownship.get(`${p.township}|${p.province}`)!.find((e) => e.erf === p.erf && e.portion === 0)
      expect(whole, `${p.raw[0]} ${p.township}`).toBeDefined()
      // a portion sits on its parent stand
      expect(distanceM(p.lat, p.lon, whole!.lat, whole!.lon)).toBeLessThan(60)
    }
    // portions number 1..n without gaps within an erf
    const byErf = new Map<string, number[]>()
    for (const p of portions) {
      const k = `${p.township}|${p.province}|${p.erf}`
      byErf.set(k, [...(byErf.get(k) ?? []), p.portion])
    }
    for (const [k, ps] of byErf) expect(ps.sort(), k).toEqual(ps.map((_, i) => i + 1))
  })

  it('repeats township names across provinces (at least 3 at tiny scale)', () => {
    const provinces = new Map<string, Set<string>>()
    for (const key of byTownship.keys()) {
      const [name, province] = key.split('|')
      provinces.set(name, (provinces.get(name) ?? new Set()).add(province))
    }
    expect([...provinces.values()].filter((s) => s.size >= 2).length).toBeGreaterThanOrEqual(3)
  })

  it('puts every erf inside its province outline (turf on Natural Earth)', () => {
    const admin1 = JSON.parse(
      readFileSync(join(process.cwd(), 'data/real/naturalearth-za-bw/ne10m_admin1_za_bw.geojson'), 'utf8'),
    )
    const feature = new Map<string, unknown>()
    for (const [name, iso] of Object.entries(NE_ISO)) {
      feature.set(
        name,
        admin1.features.find((f: { properties: { iso_3166_2: string } }) => f.properties.iso_3166_2 === iso),
      )
    }
    for (const e of erven) {
      expect(booleanPointInPolygon([e.lon, e.lat], feature.get(e.province) as never), `${e.raw.join(',')}`).toBe(true)
    }
  })

  it('keeps each township a compact cluster of erven 15-30 m apart', () => {
    const gaps: number[] = []
    for (const [key, list] of byTownship) {
      const lat = list.reduce((s, e) => s + e.lat, 0) / list.length
      const lon = list.reduce((s, e) => s + e.lon, 0) / list.length
      for (const e of list) expect(distanceM(lat, lon, e.lat, e.lon), key).toBeLessThan(3_000)
      const whole = list.filter((e) => e.portion === 0)
      for (const e of whole) {
        let best = Infinity
        for (const f of whole) if (f !== e) best = Math.min(best, distanceM(e.lat, e.lon, f.lat, f.lon))
        gaps.push(best)
      }
    }
    gaps.sort((a, b) => a - b)
    const median = gaps[Math.floor(gaps.length / 2)]
    expect(median).toBeGreaterThanOrEqual(14)
    expect(median).toBeLessThanOrEqual(30)
  })
})

describe('layoutTownship at a province edge', () => {
  it('keeps a big township beside the boundary inside its province and still fills it', () => {
    const geography = loadGeography(join(process.cwd(), 'data', 'real'))
    const admin1 = JSON.parse(
      readFileSync(join(process.cwd(), 'data/real/naturalearth-za-bw/ne10m_admin1_za_bw.geojson'), 'utf8'),
    )
    const plans = planTownships(
      createContext({ scale: SCALES.tiny, seed: 7, outDir: '/nonexistent', geography, log: () => {} }),
    )
    // the WOF locality closest to its province's outline (coast or border)
    let edge = geography.saLocalities[0]
    let best = Infinity
    for (const l of geography.saLocalities) {
      const d = geography.province(l.province).outline.distanceToBoundaryM(l.lon, l.lat)
      if (d < best) [best, edge] = [d, l]
    }
    expect(best).toBeLessThan(300)
    const plan = { ...plans[0], name: edge.name, locality: edge, province: geography.province(edge.province) }
    const feature = admin1.features.find(
      (f: { properties: { iso_3166_2: string } }) => f.properties.iso_3166_2 === plan.province.neIso,
    )
    let outside = 0
    const rows = layoutTownship(plan, 3_000, new Random(1, 'edge'), (_erf, _portion, lon, lat) => {
      if (!booleanPointInPolygon([lon, lat], feature)) outside++
    })
    expect(outside).toBe(0)
    expect(rows).toBe(3_000)
  })
})

describe('planTownships at larger scales', () => {
  const geography = loadGeography(join(process.cwd(), 'data', 'real'))
  const plan = (scale: ScaleName) =>
    planTownships(createContext({ scale: SCALES[scale], seed: 1, outDir: '/nonexistent', geography, log: () => {} }))

  it('sample: 240 townships, at least 36 names in two or more provinces', () => {
    const plans = plan('sample')
    expect(plans).toHaveLength(240)
    const provinces = new Map<string, Set<string>>()
    for (const p of plans)
      provinces.set(p.name.toUpperCase(), (provinces.get(p.name.toUpperCase()) ?? new Set()).add(p.province.code))
    expect([...provinces.values()].filter((s) => s.size >= 2).length).toBeGreaterThanOrEqual(36)
    expect(plans.reduce((s, p) => s + p.rows, 0)).toBe(SCALES.sample.southAfricaErven)
  })

  it('national: 5796 townships sharing 6.8 M erven, every (name, province) once', () => {
    const plans = plan('national')
    expect(plans).toHaveLength(5796)
    expect(plans.reduce((s, p) => s + p.rows, 0)).toBe(6_800_000)
    expect(new Set(plans.map((p) => `${p.name.toUpperCase()}|${p.province.code}`)).size).toBe(5796)
    // the biggest province by erven is Gauteng
    const gp = plans.filter((p) => p.province.code === 'GP').reduce((s, p) => s + p.rows, 0)
    const nc = plans.filter((p) => p.province.code === 'NC').reduce((s, p) => s + p.rows, 0)
    expect(gp).toBeGreaterThan(nc * 5)
  })
})
