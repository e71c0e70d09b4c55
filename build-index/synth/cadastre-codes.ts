/**
 * Surveyor-General codes for the synthetic cadastre: SG office letters, major regions per
 * province, and the 21-character LPI (DOMAIN.md 1.3).
 *
 * ```
 *   T 0 JR 0024 00001068 00000
 *   │ │ │  │    │        └ portion (00000 = whole parcel or remainder)
 *   │ │ │  │    └ erf / farm / holding number
 *   │ │ │  └ minor region: township or holding scheme, 0000 for farms
 *   │ │ └ major region: registration division letters, or a 2-digit administrative district
 *   │ └ always 0
 *   └ SG office: T Pretoria, F Free State, N Pietermaritzburg, C Cape Town
 * ```
 *
 * The division letters of KwaZulu-Natal are the 14 of DOMAIN.md 1.3; JR, IR and IQ for Gauteng
 * follow DOMAIN.md 1.4. The other Transvaal divisions per province and every district code and
 * name below are assumptions: plausible, kept disjoint so no LPI can repeat across provinces,
 * but not taken from a published table. Western Cape skips district code 13, which the
 * hand-made test fixtures use (C013…).
 *
 * @module
 */
import type { ProvinceCode } from './geography.js'

/** One major region: the code written into the LPI and the name written beside it. */
export interface MajorRegion {
  /** Two characters: division letters or a 2-digit district code. */
  code: string
  /** Upper-case name (`maj_region`). */
  name: string
}

/** SG office letter per province (DOMAIN.md 1.3). */
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

const divisions = (codes: string): MajorRegion[] => codes.split(' ').map((code) => ({ code, name: code }))
const districts = (first: number, names: string[], skip: number[] = []): MajorRegion[] => {
  const out: MajorRegion[] = []
  let n = first
  for (const name of names) {
    while (skip.includes(n)) n++
    out.push({ code: String(n).padStart(2, '0'), name })
    n++
  }
  return out
}

/** Major regions per province; a township takes one by its degree square. */
export const MAJOR_REGIONS: Readonly<Record<ProvinceCode, readonly MajorRegion[]>> = {
  GP: divisions('JR IR IQ'),
  MP: divisions('IS IT IU JS JT JU KT KU'),
  LP: divisions('KQ KR KS LQ LR LS LT MS MT'),
  NW: divisions('HO HP IO IP JO JP JQ KO KP'),
  KZ: divisions('HS HT HU HV GS GT GU GV FS FT FU ER ES ET'),
  WC: districts(1, ['CAPE', 'STELLENBOSCH', 'PAARL', 'WORCESTER', 'MALMESBURY', 'CALEDON', 'SWELLENDAM', 'GEORGE', 'KNYSNA', 'OUDTSHOORN', 'BEAUFORT WEST', 'VREDENBURG', 'CLANWILLIAM', 'ROBERTSON', 'MOSSEL BAY'], [13]),
  EC: districts(20, ['PORT ELIZABETH', 'EAST LONDON', "KING WILLIAM'S TOWN", 'UITENHAGE', 'GRAHAMSTOWN', 'QUEENSTOWN', 'CRADOCK', 'GRAAFF-REINET', 'HUMANSDORP', 'UMTATA', 'ALIWAL NORTH', 'KOMGA']),
  NC: districts(40, ['KIMBERLEY', 'GORDONIA', 'KURUMAN', 'NAMAQUALAND', 'CALVINIA', 'PRIESKA', 'HAY', 'BARKLY WEST', 'CARNARVON', 'DE AAR']),
  FS: districts(60, ['BLOEMFONTEIN', 'KROONSTAD', 'BETHLEHEM', 'HARRISMITH', 'ODENDAALSRUS', 'PARYS', 'BOTHAVILLE', 'LADYBRAND', 'BETHULIE', 'SASOLBURG']),
}

/**
 * The major region of a place: registration divisions are degree squares (DOMAIN.md 1.4), so
 * every township in one degree square shares one, spread over the province's list.
 */
export function majorRegionAt(province: ProvinceCode, lon: number, lat: number): MajorRegion {
  const list = MAJOR_REGIONS[province]
  const square = Math.floor(lon) * 7 + Math.floor(-lat) * 3
  return list[((square % list.length) + list.length) % list.length]
}

/** The 21-character LPI; throws when a part does not fit its width. */
export function formatLpi(province: ProvinceCode, majorCode: string, minor: number, parcel: number, portion: number): string {
  if (majorCode.length !== 2 || minor < 0 || minor > 9999 || parcel < 0 || parcel > 99_999_999 || portion < 0 || portion > 99_999) {
    throw new Error(`LPI parts out of range: ${province} ${majorCode} ${minor} ${parcel} ${portion}`)
  }
  return `${SG_OFFICE[province]}0${majorCode}${String(minor).padStart(4, '0')}${String(parcel).padStart(8, '0')}${String(portion).padStart(5, '0')}`
}
