import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import booleanPointInPolygon from '@turf/boolean-point-in-polygon'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadGeography } from '../geography.js'
import { distanceM, readCsvFile, synthOnce } from '../testing.js'

interface Plot {
  number: string
  lat: number
  lon: number
  city: string
  district: string
  raw: string[]
}

// the brief's district table, written out independently of geography.ts
const DISTRICTS: Record<string, string> = {
  Gaborone: 'Gaborone City',
  Francistown: 'Francistown City',
  Lobatse: 'Lobatse Town',
  'Selebi-Phikwe': 'Selebi-Phikwe Town',
  Jwaneng: 'Jwaneng Town',
  Orapa: 'Orapa Town',
  Sowa: 'Sowa Town',
  Mogoditshane: 'Kweneng',
  Maun: 'North-West',
  Molepolole: 'Kweneng',
  Serowe: 'Central',
  Tlokweng: 'South-East',
  Palapye: 'Central',
  Mochudi: 'Kgatleng',
  Mahalapye: 'Central',
  Kanye: 'Southern',
  Letlhakane: 'Central',
  Ramotswa: 'South-East',
  Ghanzi: 'Ghanzi',
  Tsabong: 'Kgalagadi',
  Kasane: 'Chobe',
  Mmopane: 'Kweneng',
  Thamaga: 'Kweneng',
  Moshupa: 'Southern',
  Tonota: 'Central',
  Bobonong: 'Central',
}

let header: string[] = []
let plots: Plot[] = []
const byTown = new Map<string, Plot[]>()

beforeAll(async () => {
  const s = await synthOnce('tiny', 7)
  const csv = readCsvFile(join(s.out, 'botswana/plots.csv'))
  header = csv.header
  plots = csv.rows.map((r) => ({
    number: r[0],
    lat: Number(r[1]),
    lon: Number(r[2]),
    city: r[3],
    district: r[4],
    raw: r,
  }))
  for (const p of plots) {
    const list = byTown.get(p.city) ?? []
    list.push(p)
    byTown.set(p.city, list)
  }
})

describe('botswana/plots.csv', () => {
  it('has the docs/source-formats.md header and well-formed rows', () => {
    expect(header).toEqual(['plot_number', 'latitude', 'longitude', 'city', 'district'])
    for (const p of plots) {
      expect(p.raw).toHaveLength(5)
      expect(p.number).toMatch(/^[1-9]\d*$/)
      expect(p.raw[1]).toMatch(/^-\d{1,2}\.\d{7}$/)
      expect(p.raw[2]).toMatch(/^\d{2}\.\d{7}$/)
    }
  })

  it('covers exactly the 26 towns, in natural case, with their districts', () => {
    expect([...byTown.keys()].sort()).toEqual(Object.keys(DISTRICTS).sort())
    for (const p of plots) expect(p.district, p.city).toBe(DISTRICTS[p.city])
  })

  it('weights plot counts by population', () => {
    expect(byTown.get('Gaborone')!.length).toBeGreaterThan(byTown.get('Francistown')!.length)
    expect(byTown.get('Francistown')!.length).toBeGreaterThan(byTown.get('Sowa')!.length * 3)
  })

  it('keeps every plot inside Botswana and within 25 km of its town centre', () => {
    const geo = loadGeography(join(process.cwd(), 'data', 'real'))
    const countries = JSON.parse(
      readFileSync(join(process.cwd(), 'data/real/naturalearth-za-bw/ne10m_countries_southern_africa.geojson'), 'utf8'),
    )
    const bw = countries.features.find((f: { properties: { iso_a3: string } }) => f.properties.iso_a3 === 'BWA')
    for (const p of plots) {
      const town = geo.botswanaTowns.find((t) => t.name === p.city)!
      expect(distanceM(p.lat, p.lon, town.lat, town.lon), `${p.city} ${p.number}`).toBeLessThanOrEqual(25_000)
      expect(booleanPointInPolygon([p.lon, p.lat], bw), `${p.city} ${p.number}`).toBe(true)
    }
  })

  it('lays plots out 20-40 m apart (nearest neighbour)', () => {
    const gaps: number[] = []
    for (const list of byTown.values()) {
      for (const p of list) {
        let best = Infinity
        for (const q of list) if (q !== p) best = Math.min(best, distanceM(p.lat, p.lon, q.lat, q.lon))
        gaps.push(best)
      }
    }
    gaps.sort((a, b) => a - b)
    const median = gaps[Math.floor(gaps.length / 2)]
    expect(median).toBeGreaterThanOrEqual(18)
    expect(median).toBeLessThanOrEqual(40)
    // no two plots on top of each other
    expect(gaps[0]).toBeGreaterThan(5)
  })

  it('repeats plot numbers across towns', () => {
    const towns = new Map<string, Set<string>>()
    for (const p of plots) {
      const s = towns.get(p.number) ?? new Set()
      s.add(p.city)
      towns.set(p.number, s)
    }
    const shared = [...towns.values()].filter((s) => s.size >= 2)
    expect(shared.length).toBeGreaterThan(10)
    expect(towns.get('1')?.has('Gaborone') && towns.get('1')!.size).toBeGreaterThanOrEqual(2)
  })

  it('repeats numbers within a third of the towns, always at least 3 km apart', () => {
    const townsWithFarRepeat = new Set<string>()
    for (const [city, list] of byTown) {
      const byNumber = new Map<string, Plot[]>()
      for (const p of list) {
        const same = byNumber.get(p.number) ?? []
        same.push(p)
        byNumber.set(p.number, same)
      }
      for (const same of byNumber.values()) {
        for (let i = 0; i < same.length; i++) {
          for (let j = i + 1; j < same.length; j++) {
            const d = distanceM(same[i].lat, same[i].lon, same[j].lat, same[j].lon)
            expect(d, `${city} plot ${same[i].number}`).toBeGreaterThanOrEqual(3_000)
            townsWithFarRepeat.add(city)
          }
        }
      }
    }
    expect(townsWithFarRepeat.size).toBeGreaterThanOrEqual(Math.ceil(26 / 3))
    expect(townsWithFarRepeat.has('Mogoditshane')).toBe(true)
  })
})
