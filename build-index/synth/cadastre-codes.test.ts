import { describe, expect, it } from 'vitest'
import { MAJOR_REGIONS, SG_OFFICE, formatLpi, majorRegionAt } from './cadastre-codes.js'
import { PROVINCES, type ProvinceCode } from './geography.js'

describe('formatLpi', () => {
  it('lays the parts out as DOMAIN.md 1.3 does', () => {
    // DOMAIN.md's examples: erf 1068 in minor region 0024 of district 13, and portion 2 of farm 89
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
  it('never share a code between two provinces of one SG office, and skip WC 13', () => {
    const seen = new Map<string, ProvinceCode>()
    for (const p of PROVINCES) {
      for (const m of MAJOR_REGIONS[p.code]) {
        const key = `${SG_OFFICE[p.code]}${m.code}`
        expect(seen.get(key) ?? p.code, key).toBe(p.code)
        seen.set(key, p.code)
        expect(m.code).toMatch(/^[A-Z0-9]{2}$/)
        expect(m.name).toBe(m.name.toUpperCase())
      }
    }
    expect(MAJOR_REGIONS.WC.map((m) => m.code)).not.toContain('13')
    expect(MAJOR_REGIONS.KZ.map((m) => m.code).sort()).toEqual('ER ES ET FS FT FU GS GT GU GV HS HT HU HV'.split(' '))
  })

  it('gives every township in one degree square the same region, from its own province', () => {
    expect(majorRegionAt('GP', 28.1, -26.2)).toEqual(majorRegionAt('GP', 28.9, -26.9))
    for (const p of PROVINCES) expect(MAJOR_REGIONS[p.code]).toContainEqual(majorRegionAt(p.code, 25.5, -29.5))
  })
})
