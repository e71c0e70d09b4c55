import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatLpi, majorRegionAt, majorRegions } from './cadastre-codes.js'
import { PROVINCES, loadGeography, type ProvinceCode } from './geography.js'
import { registrationDivisions } from './registration-divisions.js'

const geo = loadGeography(join(process.cwd(), 'data', 'real'))
const MAJOR_REGIONS = majorRegions(geo)

describe('formatLpi', () => {
  it('lays the parts out as docs/domain.md 1.3 does', () => {
    // docs/domain.md's examples: erf 1068 in minor region 0024 of district 13, and portion 2 of farm 89
    expect(formatLpi('WC', '13', 24, 1068, 0)).toBe('C01300240000106800000')
    expect(formatLpi('WC', '13', 0, 89, 2)).toBe('C01300000000008900002')
    expect(formatLpi('GP', 'JR', 7, 524, 0)).toBe('T0JR00070000052400000')
  })

  it('throws when a part does not fit its width', () => {
    expect(() => formatLpi('GP', 'JR', 10_000, 1, 0)).toThrow(/out of range/)
    expect(() => formatLpi('GP', 'JR', 1, 100_000_000, 0)).toThrow(/out of range/)
    expect(() => formatLpi('GP', 'JRX', 1, 1, 0)).toThrow(/out of range/)
  })
})

describe('major regions', () => {
  it('never share a code between two provinces, and never use 13', () => {
    const seen = new Map<string, ProvinceCode>()
    for (const p of PROVINCES) {
      for (const m of MAJOR_REGIONS[p.code]) {
        expect(seen.get(m.code) ?? p.code, m.code).toBe(p.code)
        seen.set(m.code, p.code)
        expect(m.code).toMatch(/^[A-Z0-9]{2}$/)
        expect(m.name).toBe(m.name.toUpperCase())
      }
    }
    expect(seen.size).toBe(221)
    expect([...seen.keys()]).not.toContain('13')
    expect(MAJOR_REGIONS.KZ.map((m) => m.code).sort()).toEqual('ER ES ET FS FT FU GS GT GU GV HS HT HU HV'.split(' '))
    expect(MAJOR_REGIONS.GP.map((m) => m.code).sort()).toEqual(['IQ', 'IR', 'JR'])
  })

  it('gives a place the registration division whose cell contains it, from its own province', () => {
    const divisions = registrationDivisions(geo)
    // Pretoria and Johannesburg, Durban, Cape Town
    for (const [code, lon, lat] of [
      ['GP', 28.19, -25.75],
      ['GP', 28.05, -26.2],
      ['KZ', 31.02, -29.86],
      ['WC', 18.42, -33.92],
    ] as const) {
      const m = majorRegionAt(geo, code, lon, lat)
      const d = divisions.byCode(m.code)!
      expect(d.province).toBe(code)
      expect(d.name).toBe(m.name)
      expect(d.outline.contains(lon, lat)).toBe(true)
    }
    expect(majorRegionAt(geo, 'GP', 28.19, -25.75).code).toBe('JR')
    for (const p of PROVINCES) {
      const d = divisions.byProvince(p.code)[0]
      expect(MAJOR_REGIONS[p.code]).toContainEqual(majorRegionAt(geo, p.code, d.centre[0], d.centre[1]))
    }
  })
})
