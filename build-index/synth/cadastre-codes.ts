/**
 * Surveyor-General codes for the synthetic cadastre: SG office letters, major regions per
 * province, and the 21-character LPI (docs/domain.md 1.3).
 *
 * ```
 *   T 0 JR 0024 00001068 00000
 *   │ │ │  │    │        └ portion (00000 = whole parcel or remainder)
 *   │ │ │  │    └ erf / farm / holding number
 *   │ │ │  └ minor region: township or holding scheme, 0000 for farms
 *   │ │ └ major region: registration division letters, or a 2-digit administrative district
 *   │ │                  (a letter and a digit where the Northern Cape runs out of numbers)
 *   │ └ always 0
 *   └ SG office: T Pretoria, F Free State, N Pietermaritzburg, C Cape Town
 * ```
 *
 * Major regions are the registration divisions of `registration-divisions.ts`: a township's
 * major region is the division cell that contains its centre, so the `registration_division`
 * boundary layer and every LPI agree. KwaZulu-Natal has the 14 letter pairs of docs/domain.md 1.3 and
 * Gauteng JR, IR and IQ (docs/domain.md 1.4); the other Transvaal letters, every district number and
 * name are assumptions, unique across the country so no LPI can repeat across provinces. No
 * province uses district code 13, which the hand-made test fixtures own (C013…).
 *
 * @module
 */
import type { Geography, ProvinceCode } from './geography.js'
import { registrationDivisions } from './registration-divisions.js'

/** One major region: the code written into the LPI and the name written beside it. */
export interface MajorRegion {
  /** Two characters: division letters, a 2-digit district code, or a letter and a digit. */
  code: string
  /** Upper-case name (`maj_region`). */
  name: string
}

/** SG office letter per province (docs/domain.md 1.3). */
export const SG_OFFICE: Readonly<Record<ProvinceCode, string>> = {
  EC: 'C',
  FS: 'F',
  GP: 'T',
  KZ: 'N',
  LP: 'T',
  MP: 'T',
  NC: 'C',
  NW: 'T',
  WC: 'C',
}

/** Folder name of a province under `south_africa/cadastre/` (the CSG's KZN, not the spec's KZ). */
export const CADASTRE_FOLDER: Readonly<Record<ProvinceCode, string>> = {
  EC: 'EC',
  FS: 'FS',
  GP: 'GP',
  KZ: 'KZN',
  LP: 'LP',
  MP: 'MP',
  NC: 'NC',
  NW: 'NW',
  WC: 'WC',
}

/** The provinces with agricultural-holding schemes (the old Transvaal, Free State and Natal). */
export const HOLDING_PROVINCES: ReadonlySet<ProvinceCode> = new Set<ProvinceCode>(['FS', 'GP', 'KZ', 'LP', 'MP', 'NW'])

const regionsCache = new WeakMap<Geography, Readonly<Record<ProvinceCode, readonly MajorRegion[]>>>()

/** Major regions per province: the registration divisions (codes and names), by code. */
export function majorRegions(geography: Geography): Readonly<Record<ProvinceCode, readonly MajorRegion[]>> {
  let r = regionsCache.get(geography)
  if (!r) {
    const divisions = registrationDivisions(geography)
    const out = {} as Record<ProvinceCode, MajorRegion[]>
    for (const p of geography.provinces)
      out[p.code] = divisions.byProvince(p.code).map((d) => ({ code: d.code, name: d.name }))
    regionsCache.set(geography, (r = out))
  }
  return r
}

/**
 * The major region of a place in `province`: the registration division whose cell contains the
 * point (the nearest cell of the province for a point within a centimetre of its edge).
 */
export function majorRegionAt(geography: Geography, province: ProvinceCode, lon: number, lat: number): MajorRegion {
  const d = registrationDivisions(geography).at(province, lon, lat)
  return { code: d.code, name: d.name }
}

/** The 21-character LPI; throws when a part does not fit its width. */
export function formatLpi(
  province: ProvinceCode,
  majorCode: string,
  minor: number,
  parcel: number,
  portion: number,
): string {
  if (
    majorCode.length !== 2 ||
    minor < 0 ||
    minor > 9999 ||
    parcel < 0 ||
    parcel > 99_999_999 ||
    portion < 0 ||
    portion > 99_999
  ) {
    throw new Error(`LPI parts out of range: ${province} ${majorCode} ${minor} ${parcel} ${portion}`)
  }
  return `${SG_OFFICE[province]}0${majorCode}${String(minor).padStart(4, '0')}${String(parcel).padStart(8, '0')}${String(portion).padStart(5, '0')}`
}
