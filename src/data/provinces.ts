/** South African provinces: the specs' codes, the upper-case names returned, and accepted aliases. */
export const PROVINCES = {
  EC: 'EASTERN CAPE',
  FS: 'FREE STATE',
  GP: 'GAUTENG',
  KZ: 'KWAZULU-NATAL',
  LP: 'LIMPOPO',
  MP: 'MPUMALANGA',
  NC: 'NORTHERN CAPE',
  NW: 'NORTH WEST',
  WC: 'WESTERN CAPE',
} as const
export type ProvinceCode = keyof typeof PROVINCES

// MDB and older ISO codes accepted on input (docs/decisions.md "Ingest")
const ALIASES: Record<string, ProvinceCode> = { GT: 'GP', KZN: 'KZ', NL: 'KZ', LIM: 'LP', NP: 'LP' }

function squash(s: string): string {
  return s.toUpperCase().replace(/[^A-Z]/g, '')
}
const BY_NAME = new Map<string, ProvinceCode>(
  Object.entries(PROVINCES).map(([code, name]) => [squash(name), code as ProvinceCode]),
)
BY_NAME.set(squash('KwaZulu Natal'), 'KZ')
BY_NAME.set(squash('Northern Province'), 'LP')

/** Resolves a province code, alias or name (any case, spaces or hyphens) to its code, or null. */
export function provinceCode(value: string): ProvinceCode | null {
  const v = value.trim().toUpperCase()
  if (v in PROVINCES) return v as ProvinceCode
  if (v in ALIASES) return ALIASES[v]
  return BY_NAME.get(squash(v)) ?? null
}
