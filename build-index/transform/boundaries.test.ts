import { describe, expect, it } from 'vitest'
import { normaliseProperties } from '../sources/properties.js'
import { datesOf, normaliseBoundary, parseSetJson, vintageOf, type SetDefaults } from './boundaries.js'

const norm = (raw: Record<string, unknown>, type: Parameters<typeof normaliseBoundary>[1]) => {
  const r = normaliseBoundary(normaliseProperties(raw), type)
  if (!r.ok) throw new Error(r.reason)
  return r.rec
}

describe('normaliseBoundary: the Board field names of each vintage (docs/domain.md 2.5)', () => {
  it('2011 ward (WARD, CAT_B, WARDNO, PROVINCE as a name)', () => {
    expect(
      norm(
        {
          WARD: '10101001',
          PROVINCE: 'Western Cape',
          CAT_B: 'WC011',
          MUNICNAME: 'Matzikama Local Municipality',
          WARDNO: 1,
        },
        'ward',
      ),
    ).toEqual({
      code: '10101001',
      name: null, // named after its municipality by the build
      category: null,
      province: 'WC',
      parentCode: 'WC011',
      wardNumber: 1,
      effectiveFrom: null,
      effectiveTo: null,
    })
  })

  it(
    '2016 ward table (WardID, Province as an MDB code) and 2020 ward layer (Code = Name, Parent_cod, province ' +
      'from the ward digit)',
    () => {
      expect(
        norm({ Province: 'LIM', CAT_B: 'LIM344', WardNo: '1', WardID: '93404001', MunicName: 'Makhado' }, 'ward'),
      ).toMatchObject({
        code: '93404001',
        province: 'LP',
        parentCode: 'LIM344',
        wardNumber: 1,
      })
      expect(norm({ Parent_cod: 'JHB', Code: '79800012', Name: '79800012', Area: 1 }, 'ward')).toMatchObject({
        code: '79800012',
        name: null,
        province: 'GP',
        parentCode: 'JHB',
        wardNumber: 12,
      })
    },
  )

  it('local municipalities: 2011 (CAT_B, DISTRICT) and WOF lower-case; a metro points at its province', () => {
    expect(
      norm(
        { CAT_B: 'EC101', PROVINCE: 'Eastern Cape', CATEGORY: 'B', MUNICNAME: 'Camdeboo', DISTRICT: 'DC10' },
        'local_municipality',
      ),
    ).toMatchObject({
      code: 'EC101',
      name: 'Camdeboo',
      category: 'B',
      province: 'EC',
      parentCode: 'DC10',
    })
    expect(
      norm(
        { cat_b: 'JHB', category: 'A', district: 'JHB', municname: 'City of Johannesburg', province: 'GT' },
        'local_municipality',
      ),
    ).toMatchObject({
      code: 'JHB',
      category: 'A',
      province: 'GP',
      parentCode: 'GP',
    })
  })

  it('districts: category from the code where the source has none (docs/decisions.md), parent the province', () => {
    expect(norm({ Name: 'West Rand', Code: 'DC48', Parent_cod: 'GT', Area: 1 }, 'district_municipality')).toMatchObject(
      { code: 'DC48', category: 'C', parentCode: 'GP', province: 'GP' },
    )
    expect(norm({ Name: 'City of Cape Town', Code: 'CPT', Parent_cod: 'WC' }, 'district_municipality')).toMatchObject({
      category: 'A',
      parentCode: 'WC',
    })
    expect(
      norm({ CATEGORY: 'C', DISTRICT: 'DC10', MUNICNAME: 'Cacadu', PROVINCE: 'EC' }, 'district_municipality'),
    ).toMatchObject({ code: 'DC10', name: 'Cacadu', province: 'EC' })
  })

  it('provinces take the specs codes and upper-case names', () => {
    expect(norm({ PROVINCE: 'Gauteng', CODE: 'GT' }, 'province')).toMatchObject({
      code: 'GP',
      name: 'GAUTENG',
      parentCode: null,
    })
    expect(norm({ Code: 'KZN', Name: 'KwaZulu-Natal', Parent_cod: 'ZA' }, 'province')).toMatchObject({
      code: 'KZ',
      name: 'KWAZULU-NATAL',
    })
  })

  it('register layers in the docs/source-formats.md form; a registration division defaults to ADMIN', () => {
    expect(
      norm(
        { code: 'jr', name: 'JR', province: 'GP', parent: 'GP', effective_from: '', effective_to: '' },
        'registration_division',
      ),
    ).toMatchObject({
      code: 'JR',
      category: 'ADMIN',
      effectiveFrom: null,
    })
    expect(
      norm({ code: 'T0JR0001', name: 'Azaadville', parent: 'JR', effective_from: '20010101' }, 'township'),
    ).toMatchObject({ parentCode: 'JR', effectiveFrom: '2001-01-01', category: null })
  })

  it('rejects a blank code, a blank name and an unknown province code', () => {
    expect(normaliseBoundary(normaliseProperties({ name: 'x' }), 'township')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('code is blank'),
    })
    // both blank: both named in one reason (issue #39 item 7)
    expect(normaliseBoundary(normaliseProperties({ parent: 'JR' }), 'township')).toMatchObject({
      ok: false,
      reason: 'code and name are blank (looked for code; name)',
    })
    expect(normaliseBoundary(normaliseProperties({ code: 'X1' }), 'township')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('name is blank'),
    })
    expect(normaliseBoundary(normaliseProperties({ CODE: 'ZZ', PROVINCE: 'Atlantis' }), 'province')).toMatchObject({
      ok: false,
    })
  })
})

describe('set.json', () => {
  const set = parseSetJson(
    {
      vintage: { ward: '2020 delimitation' },
      effective_from: '2016-08-03',
      effective_to: null,
      types: { ward: { effective_from: '2021-11-01', effective_to: null } },
    },
    'boundaries/2020',
  ) as SetDefaults

  it('per-type dates override the set defaults; a feature date overrides both', () => {
    const rec = {
      code: '1',
      name: 'x',
      category: null,
      province: null,
      parentCode: null,
      wardNumber: null,
      effectiveFrom: null,
      effectiveTo: null,
    }
    expect(datesOf(set, 'ward', rec)).toEqual({ from: '2021-11-01', to: null })
    expect(datesOf(set, 'local_municipality', rec)).toEqual({ from: '2016-08-03', to: null })
    expect(datesOf(set, 'ward', { ...rec, effectiveFrom: '2022-01-01' })).toEqual({ from: '2022-01-01', to: null })
  })

  it('vintage labels come from the metadata, the folder name when none is given', () => {
    expect(vintageOf(set, 'ward', '2020')).toBe('2020 delimitation')
    expect(vintageOf(set, 'province', '2020')).toBe('2020')
    expect(vintageOf(parseSetJson({ vintage: 'cadastral register' }, 'r') as SetDefaults, 'township', 'register')).toBe(
      'cadastral register',
    )
  })

  it('rejects bad dates and shapes with the file named', () => {
    expect(parseSetJson({ effective_from: '2016-8-3' }, 'boundaries/x')).toContain('boundaries/x/set.json')
    expect(parseSetJson([], 'boundaries/x')).toContain('not a JSON object')
    expect(parseSetJson({ vintage: 3 }, 'boundaries/x')).toContain('vintage')
    expect((parseSetJson({ geometry: false }, 'b') as SetDefaults).geometry).toBe(false)
  })
})
