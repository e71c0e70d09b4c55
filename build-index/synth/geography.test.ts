import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import booleanPointInPolygon from '@turf/boolean-point-in-polygon'
import { describe, expect, it } from 'vitest'
import { BOTSWANA_TOWNS, PROVINCES, loadGeography, type ProvinceCode } from './geography.js'
import { distanceM } from './testing.js'

const dataDir = join(process.cwd(), 'data', 'real')
const geo = loadGeography(dataDir)

describe('provinces', () => {
  it('maps the nine Natural Earth provinces to the spec codes and upper-case names', () => {
    expect(geo.provinces.map((p) => `${p.code} ${p.name}`)).toEqual([
      'EC EASTERN CAPE',
      'FS FREE STATE',
      'GP GAUTENG',
      'KZ KWAZULU-NATAL',
      'LP LIMPOPO',
      'MP MPUMALANGA',
      'NC NORTHERN CAPE',
      'NW NORTH WEST',
      'WC WESTERN CAPE',
    ])
    expect(PROVINCES.find((p) => p.code === 'KZ')?.mdbCode).toBe('KZN')
  })

  it('puts well-known cities in the right province and foreign points in none', () => {
    const cities: [string, number, number, ProvinceCode | null][] = [
      ['Johannesburg', 28.0473, -26.2041, 'GP'],
      ['Durban', 31.0218, -29.8587, 'KZ'],
      ['Cape Town', 18.4241, -33.9249, 'WC'],
      ['Polokwane', 29.4689, -23.9045, 'LP'],
      ['Bloemfontein', 26.1596, -29.0852, 'FS'],
      ['Kimberley', 24.7499, -28.7282, 'NC'],
      ['Mahikeng', 25.6403, -25.856, 'NW'],
      ['Mbombela', 30.9853, -25.4658, 'MP'],
      ['Gqeberha', 25.6022, -33.9608, 'EC'],
      ['Maseru (Lesotho)', 27.4833, -29.31, null],
      ['Gaborone (Botswana)', 25.9086, -24.6545, null],
      ['Atlantic Ocean', 16.0, -33.0, null],
    ]
    for (const [name, lon, lat, code] of cities) expect(geo.provinceAt(lon, lat)?.code ?? null, name).toBe(code)
  })
})

describe('Botswana towns', () => {
  it('resolves all 26 towns, from WOF where WOF has them', () => {
    expect(geo.botswanaTowns).toHaveLength(26)
    expect(new Set(geo.botswanaTowns.map((t) => t.name)).size).toBe(26)
    const bySource = (s: string) => geo.botswanaTowns.filter((t) => t.positionSource === s).map((t) => t.name)
    expect(bySource('fallback').sort()).toEqual(['Mmopane', 'Moshupa'])
    expect(bySource('wof-region')).toEqual(['Sowa'])
    for (const t of geo.botswanaTowns) expect(geo.botswana.contains(t.lon, t.lat), t.name).toBe(true)
  })

  it('places towns at their real positions', () => {
    // independent reference coordinates (within 15 km: WOF centroids differ a little)
    const known: Record<string, [number, number]> = {
      Gaborone: [-24.6545, 25.9086],
      Francistown: [-21.17, 27.5079],
      Maun: [-19.9833, 23.4167],
      Kasane: [-17.8167, 25.15],
      'Selebi-Phikwe': [-21.979, 27.843],
      Ghanzi: [-21.5667, 21.7833],
      Tsabong: [-26.05, 22.45],
      Sowa: [-20.56, 26.22],
      Serowe: [-22.3875, 26.7108],
    }
    for (const [name, [lat, lon]] of Object.entries(known)) {
      const t = geo.botswanaTowns.find((x) => x.name === name)!
      expect(distanceM(lat, lon, t.lat, t.lon), name).toBeLessThan(15_000)
    }
  })

  it('gives a third or more of the towns a tribal area', () => {
    expect(BOTSWANA_TOWNS.filter((t) => t.tribalArea).length).toBeGreaterThanOrEqual(9)
  })
})

describe('South African localities', () => {
  it('assigns localities to the province whose outline contains them (checked with turf)', () => {
    const admin1 = JSON.parse(readFileSync(join(dataDir, 'naturalearth-za-bw/ne10m_admin1_za_bw.geojson'), 'utf8'))
    const iso: Record<ProvinceCode, string> = {
      EC: 'ZA-EC',
      FS: 'ZA-FS',
      GP: 'ZA-GT',
      KZ: 'ZA-NL',
      LP: 'ZA-LP',
      MP: 'ZA-MP',
      NC: 'ZA-NC',
      NW: 'ZA-NW',
      WC: 'ZA-WC',
    }
    const feature = (code: ProvinceCode) =>
      admin1.features.find((f: { properties: { iso_3166_2: string } }) => f.properties.iso_3166_2 === iso[code])
    expect(geo.saLocalities.length).toBeGreaterThan(13_000)
    for (let i = 0; i < geo.saLocalities.length; i += 37) {
      const l = geo.saLocalities[i]
      expect(booleanPointInPolygon([l.lon, l.lat], feature(l.province)), `${l.name} ${l.province}`).toBe(true)
    }
    const provinces = new Set(geo.saLocalities.map((l) => l.province))
    expect(provinces.size).toBe(9)
  })
})
