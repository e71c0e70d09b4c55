/**
 * Boundary records from any source form: the docs/source-formats.md boundary fields (`code`, `name`,
 * `category`, `province`, `parent`, `effective_from`, `effective_to`) or the Demarcation Board's
 * own published field names, which differ by vintage (docs/domain.md 2.5):
 *
 * | type     | code                         | name                        | parent                          | province
 * |
 * |----------|------------------------------|-----------------------------|---------------------------------|---------------------|
 * | ward     | Code, WardID, WARD_ID, WARD  | (built: `<muni> Ward <n>`)  | Parent_cod, CAT_B               | Province
 * (name/code) or the ward digit |
 * | local    | Code, CAT_B                  | Name, MUNICNAME             | Parent_cod, DISTRICT (metro: province) |
 * PROVINCE     |
 * | district | Code, DISTRICT               | Name, MUNICNAME, DISTRICT_N | Parent_cod, PROVINCE            | PROVINCE
 * |
 * | province | Code, CODE                   | Name, PROVINCE              | —                               | the code
 * |
 *
 * Properties arrive with lower-cased keys (sources/properties.ts), so matching is
 * case-insensitive as docs/source-formats.md requires. Pure: no I/O.
 */
import { categoryFromCode, type BoundaryType } from '../../src/data/jurisdiction-format.js'
import { PROVINCES, provinceCode, type ProvinceCode } from '../../src/data/provinces.js'
import { blankReason } from './required.js'
import type { SourceProperties } from '../sources/source-row.js'
import { normaliseDate } from './dates.js'

/** A boundary record before geometry and parent resolution. */
export interface BoundaryAttributes {
  code: string
  /** Null for wards published without a name: the build names them after their municipality. */
  name: string | null
  category: string | null
  province: ProvinceCode | null
  parentCode: string | null
  /** Ward number (wards only). */
  wardNumber: number | null
  effectiveFrom: string | null
  effectiveTo: string | null
}

export type BoundaryResult = { ok: true; rec: BoundaryAttributes } | { ok: false; reason: string }

const text = (v: unknown): string | null => {
  if (v === null || v === undefined) return null
  const s = String(v).trim()
  return s === '' ? null : s
}

function first(props: SourceProperties, names: readonly string[]): string | null {
  for (const n of names) {
    const v = text(props[n])
    if (v !== null) return v
  }
  return null
}

/** Province digits of MDB ward ids (docs/domain.md 2.1). */
const WARD_DIGIT: Record<string, ProvinceCode> = {
  '1': 'WC',
  '2': 'EC',
  '3': 'NC',
  '4': 'FS',
  '5': 'KZ',
  '6': 'NW',
  '7': 'GP',
  '8': 'MP',
  '9': 'LP',
}

const CODE_FIELDS: Record<BoundaryType, readonly string[]> = {
  ward: ['code', 'wardid', 'ward_id', 'ward'],
  local_municipality: ['code', 'cat_b'],
  district_municipality: ['code', 'district'],
  province: ['code'],
  registration_division: ['code'],
  deeds_office: ['code'],
  township: ['code'],
  suburb: ['code'],
  pre1994_municipal: ['code'],
}
const NAME_FIELDS: Record<BoundaryType, readonly string[]> = {
  ward: ['name'],
  local_municipality: ['name', 'municname'],
  district_municipality: ['name', 'municname', 'district_n'],
  province: ['name', 'province'],
  registration_division: ['name'],
  deeds_office: ['name'],
  township: ['name'],
  suburb: ['name'],
  pre1994_municipal: ['name'],
}
const PARENT_FIELDS: Record<BoundaryType, readonly string[]> = {
  ward: ['parent', 'parent_cod', 'cat_b'],
  local_municipality: ['parent', 'parent_cod', 'district'],
  district_municipality: ['parent', 'parent_cod', 'province'],
  province: [],
  registration_division: ['parent'],
  deeds_office: ['parent'],
  township: ['parent'],
  suburb: ['parent'],
  pre1994_municipal: ['parent'],
}

const MUNICIPAL: ReadonlySet<BoundaryType> = new Set(['local_municipality', 'district_municipality'])

/** Maps one source record of `type` to boundary attributes, or says why it cannot be used. */
export function normaliseBoundary(props: SourceProperties, type: BoundaryType): BoundaryResult {
  let code = first(props, CODE_FIELDS[type])
  if (!code) {
    // a name is required too (not of a province, named by its code, nor of a ward): both said at once
    const noName = type !== 'province' && type !== 'ward' && !first(props, NAME_FIELDS[type])
    const looked = [CODE_FIELDS[type], ...(noName ? [NAME_FIELDS[type]] : [])].map((f) => f.join(', '))
    const reason = blankReason(
      noName
        ? [
            ['code', null],
            ['name', null],
          ]
        : [['code', null]],
    )
    return { ok: false, reason: `${reason} (looked for ${looked.join('; ')})` }
  }
  code = code.toUpperCase()
  // province boundaries use the specs' codes (GP, KZ, LP), the Board's GT, KZN, LIM accepted
  if (type === 'province') {
    const p = provinceCode(code)
    if (!p) return { ok: false, reason: `province code ${code} is not a South African province` }
    code = p
  }
  if (type === 'ward' && /^\d+(\.0+)?$/.test(code)) code = String(Number.parseInt(code, 10))

  // docs/decisions.md: province names are returned upper-case, as every service returns them
  let name = type === 'province' ? PROVINCES[code as ProvinceCode] : first(props, NAME_FIELDS[type])
  // the 2020 ward layer repeats the code as its name
  if (type === 'ward' && name !== null && name.toUpperCase() === code) name = null
  if (!name && type !== 'ward')
    return { ok: false, reason: `name is blank (looked for ${NAME_FIELDS[type].join(', ')})` }

  let category = first(props, ['category'])?.toUpperCase() ?? null
  if (MUNICIPAL.has(type) && (!category || !/^[ABC]$/.test(category))) category = categoryFromCode(code)
  if (type === 'district_municipality' && category === 'B') category = categoryFromCode(code)
  if (type === 'registration_division' && !category) category = 'ADMIN'

  const provText = first(props, ['province'])
  let province: ProvinceCode | null =
    type === 'province' ? (code as ProvinceCode) : provText ? provinceCode(provText) : null
  if (!province && type === 'ward' && /^\d{8}$/.test(code)) province = WARD_DIGIT[code[0]] ?? null

  let parentCode = first(props, PARENT_FIELDS[type])?.toUpperCase() ?? null
  if (type === 'district_municipality' && parentCode) parentCode = provinceCode(parentCode) ?? parentCode
  if (!province && type === 'district_municipality' && parentCode) province = provinceCode(parentCode)
  // docs/decisions.md: a metro's parent is its province (the Board's files point metros at themselves)
  if (type === 'local_municipality' && category === 'A') parentCode = province
  if (type === 'district_municipality' && !parentCode) parentCode = province
  if (parentCode === code) parentCode = type === 'province' ? null : province

  let wardNumber: number | null = null
  if (type === 'ward') {
    const n = first(props, ['wardno', 'ward_no'])
    wardNumber =
      n && /^\d+(\.0+)?$/.test(n)
        ? Number.parseInt(n, 10)
        : /^\d{8}$/.test(code)
          ? Number.parseInt(code.slice(5), 10)
          : null
  }

  return {
    ok: true,
    rec: {
      code,
      name,
      category: MUNICIPAL.has(type) || type === 'registration_division' ? category : null,
      province,
      parentCode,
      wardNumber,
      effectiveFrom: normaliseDate(props.effective_from),
      effectiveTo: normaliseDate(props.effective_to),
    },
  }
}

/** A set folder's `set.json` (docs/source-formats.md), every part optional. */
export interface SetDefaults {
  vintage: string | Record<string, string> | null
  effectiveFrom: string | null
  effectiveTo: string | null
  types: Record<string, { effective_from?: string | null; effective_to?: string | null }>
  source: string | null
  /** False when the set is published without geometry (attribute tables only). */
  geometry: boolean
}

/** Parses `set.json`; returns the problem as a string when it is not usable. */
export function parseSetJson(raw: unknown, folder: string): SetDefaults | string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return `${folder}/set.json is not a JSON object`
  const o = raw as Record<string, unknown>
  const date = (v: unknown, field: string): string | null | Error => {
    if (v === null || v === undefined || v === '') return null
    const d = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null
    return d ?? new Error(`${folder}/set.json: ${field} must be a YYYY-MM-DD date or null`)
  }
  const from = date(o.effective_from, 'effective_from')
  const to = date(o.effective_to, 'effective_to')
  if (from instanceof Error) return from.message
  if (to instanceof Error) return to.message
  let vintage: SetDefaults['vintage'] = null
  if (typeof o.vintage === 'string') vintage = o.vintage
  else if (o.vintage && typeof o.vintage === 'object') {
    vintage = {}
    for (const [k, v] of Object.entries(o.vintage as Record<string, unknown>)) if (typeof v === 'string') vintage[k] = v
  } else if (o.vintage !== undefined && o.vintage !== null)
    return `${folder}/set.json: vintage must be a string or an object of strings per type`
  const types: SetDefaults['types'] = {}
  if (o.types && typeof o.types === 'object') {
    for (const [k, v] of Object.entries(o.types as Record<string, unknown>)) {
      if (!v || typeof v !== 'object') continue
      const t = v as Record<string, unknown>
      const f = date(t.effective_from, `types.${k}.effective_from`)
      const e = date(t.effective_to, `types.${k}.effective_to`)
      if (f instanceof Error) return f.message
      if (e instanceof Error) return e.message
      types[k] = {
        ...(t.effective_from !== undefined ? { effective_from: f } : {}),
        ...(t.effective_to !== undefined ? { effective_to: e } : {}),
      }
    }
  }
  return {
    vintage,
    effectiveFrom: from,
    effectiveTo: to,
    types,
    source: typeof o.source === 'string' ? o.source : null,
    geometry: o.geometry !== false,
  }
}

/** The vintage label of `type` in a set, from its metadata; the folder name when none is given. */
export function vintageOf(set: SetDefaults, type: BoundaryType, folder: string): string {
  if (typeof set.vintage === 'string') return set.vintage
  return set.vintage?.[type] ?? folder
}

/** A feature's dates: its own, else its type's in set.json, else the set's (docs/decisions.md). */
export function datesOf(
  set: SetDefaults,
  type: BoundaryType,
  rec: BoundaryAttributes,
): { from: string | null; to: string | null } {
  const t = set.types[type]
  const from = rec.effectiveFrom ?? (t && 'effective_from' in t ? (t.effective_from ?? null) : set.effectiveFrom)
  const to = rec.effectiveTo ?? (t && 'effective_to' in t ? (t.effective_to ?? null) : set.effectiveTo)
  return { from, to }
}
