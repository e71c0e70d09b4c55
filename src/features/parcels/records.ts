/**
 * A parcel as read (the row of table `parcel`) and as answered (the `ParcelRecord`), with the one
 * field table that both answer forms come from: `toRecord` builds the object, `writeRecord`
 * writes the bytes `JSON.stringify` gives for it. A field is added, dropped or moved in FIELDS
 * alone, so the two forms cannot drift (a test holds them equal).
 */
import {
  LEGAL_STATUS,
  PARCEL_TYPES,
  FLAG_HIDDEN,
  FLAG_LAYER_MASK,
  WORK_STATUS,
  type ParcelType,
} from '../../data/parcels-format.js'
import { PROVINCES, type ProvinceCode } from '../../data/provinces.js'
import type { JsonBytes } from '../../http/json-bytes.js'
import { round } from '../../geo/round.js'

export interface ParcelRecord {
  id: number
  parcel_type: ParcelType
  province: string
  source_key?: string
  dataset_version: string
  lpi: string
  parcel_number?: number
  portion?: number
  tag_value?: string
  major_region?: string
  major_code?: string
  minor_region?: string
  minor_code?: string
  legal_status: { code: string; label: string }
  work_status?: { code: string; label: string }
  extent_sqm: number
  label_point: { latitude: number; longitude: number }
  date_stamp?: string
}

export interface Row {
  id: number
  parcel_type: ParcelType
  province: ProvinceCode
  lpi: string
  source_key: string | null
  parcel_number: number | null
  portion: number | null
  tag_value: string | null
  major_region: string | null
  major_code: string | null
  minor_region: string | null
  minor_code: string | null
  lstatus: string
  wstatus: string | null
  extent_sqm: number
  label_lat: number
  label_lon: number
  date_stamp: string | null
  hidden: number
  /** true for rows held by the row cache (see ParcelStore.rowOf): only those keep their record's JSON */
  cached?: boolean
  /** the record's JSON, kept on cached rows once written (see writeRecord) */
  json?: Uint8Array
}

export const COLUMNS = `id, parcel_type, province, lpi, source_key, parcel_number, portion, tag_value, major_region, major_code,
  minor_region, minor_code, lstatus, wstatus, extent_sqm, label_lat, label_lon, date_stamp, hidden`
/**
 * COLUMNS less those known without SQLite (the id; parcel_type and hidden are in the flags): each
 * column read costs ~0.2 us a row.
 */
export const ROW_COLUMNS = `province, lpi, source_key, parcel_number, portion, tag_value, major_region, major_code,
  minor_region, minor_code, lstatus, wstatus, extent_sqm, label_lat, label_lon, date_stamp`

/**
 * The row of parcel `id` from its ROW_COLUMNS (a raw array: better-sqlite3 builds row objects
 * property by property, slower than this literal, 3.8 vs 6.5 us a row at national scale) and its
 * flags byte.
 */
export function rowOfColumns(id: number, fl: number, a: unknown[]): Row {
  // the order of ROW_COLUMNS
  return {
    id,
    parcel_type: PARCEL_TYPES[fl & FLAG_LAYER_MASK],
    province: a[0] as ProvinceCode,
    lpi: a[1] as string,
    source_key: a[2] as string | null,
    parcel_number: a[3] as number | null,
    portion: a[4] as number | null,
    tag_value: a[5] as string | null,
    major_region: a[6] as string | null,
    major_code: a[7] as string | null,
    minor_region: a[8] as string | null,
    minor_code: a[9] as string | null,
    lstatus: a[10] as string,
    wstatus: a[11] as string | null,
    extent_sqm: a[12] as number,
    label_lat: a[13] as number,
    label_lon: a[14] as number,
    date_stamp: a[15] as string | null,
    hidden: fl & FLAG_HIDDEN ? 1 : 0,
    cached: false,
  }
}

/**
 * How a field's value is written: `int`, `text` (a JSON string), `name` (a string needing no
 * escaping: written without the escape check), `rounded` (to `places` decimals), `version` (the
 * dataset version, not a column) and `object` (its own `fields`, read from the same row).
 */
type Form = 'int' | 'text' | 'name' | 'rounded' | 'version' | 'object'

/** When a field is left out of the record: never, when its value is null, or when it is null or ''. */
type Absence = 'never' | 'null' | 'empty'

interface Field {
  readonly key: string
  readonly form: Form
  /**
   * The field's value as a JavaScript expression over the row `r` and the tables in LOOKUPS (an
   * object's: the value whose absence leaves the object out). Compiled into the two forms below.
   */
  readonly value: string
  readonly omit: Absence
  readonly places: number
  readonly fields: readonly Field[]
}

const NONE: readonly Field[] = []
const field = (key: string, form: Form, value: string, omit: Absence = 'never', places = 0, fields = NONE): Field => ({
  key,
  form,
  value,
  omit,
  places,
  fields,
})
const int = (key: string, value: string, omit: Absence = 'never') => field(key, 'int', value, omit)
const text = (key: string, value: string, omit: Absence = 'never') => field(key, 'text', value, omit)
const name = (key: string, value: string) => field(key, 'name', value)
const rounded = (key: string, value: string, places: number) => field(key, 'rounded', value, 'never', places)
const version = (key: string) => field(key, 'version', 'null')
const object = (key: string, value: string, omit: Absence, fields: readonly Field[]) =>
  field(key, 'object', value, omit, 0, fields)

/** The record's fields in the order the spec lists them; absent fields are omitted, never null. */
const FIELDS: readonly Field[] = [
  int('id', 'r.id'),
  name('parcel_type', 'r.parcel_type'),
  text('province', 'PROVINCES[r.province]'),
  text('source_key', 'r.source_key', 'empty'),
  version('dataset_version'),
  text('lpi', 'r.lpi'),
  int('parcel_number', 'r.parcel_number', 'null'),
  int('portion', 'r.portion', 'null'),
  text('tag_value', 'r.tag_value', 'empty'),
  text('major_region', 'r.major_region', 'empty'),
  text('major_code', 'r.major_code', 'empty'),
  text('minor_region', 'r.minor_region', 'empty'),
  text('minor_code', 'r.minor_code', 'empty'),
  object('legal_status', 'r.lstatus', 'never', [
    text('code', 'r.lstatus'),
    text('label', 'LEGAL_STATUS[r.lstatus] ?? r.lstatus'),
  ]),
  object('work_status', 'r.wstatus', 'empty', [
    text('code', 'r.wstatus'),
    text('label', 'WORK_STATUS[r.wstatus] ?? r.wstatus'),
  ]),
  rounded('extent_sqm', 'r.extent_sqm', 2),
  object('label_point', 'null', 'never', [
    rounded('latitude', 'r.label_lat', 7),
    rounded('longitude', 'r.label_lon', 7),
  ]),
  text('date_stamp', 'r.date_stamp', 'empty'),
]

/** What the value expressions may name besides the row. */
const LOOKUPS = { PROVINCES, LEGAL_STATUS, WORK_STATUS, round }

/**
 * The two forms are compiled once, at load, from FIELDS into straight-line functions, the code a
 * hand-written writer would be. Why not a loop over the table: its reader call per field is a
 * call site that sees every field's reader, and /parcels/at took about 15 % longer that way (the
 * parcels bench, same run). The sources are built from the constant table above only.
 */
function compile<T>(source: string): T {
  return new Function(...Object.keys(LOOKUPS), `'use strict'; return ${source}`)(...Object.values(LOOKUPS)) as T
}

/** `if (<present>) { … }` around `body`, per the field's absence rule on `v`. */
function guarded(f: Field, v: string, body: string): string {
  if (f.omit === 'never') return body
  return `{ const ${v} = ${f.value}; if (${f.omit === 'empty' ? v : `${v} !== null`}) { ${body} } }`
}

/** The value of a field that is never left out, as an expression (an object as a literal). */
function valueSource(f: Field, value: string, d: number): string {
  switch (f.form) {
    case 'version':
      return 'version'
    case 'rounded':
      return `round(${value}, ${f.places})`
    case 'object':
      return objectLiteral(f.fields, d + 1)
    default:
      return value
  }
}

/**
 * An object literal of `fields` when none may be left out; else a literal of the leading ones
 * and the others added one by one (so the object starts with its usual shape, as a hand-written
 * literal would), as statements ending in the object `o${d}`.
 */
function objectLiteral(fields: readonly Field[], d: number): string {
  if (fields.some((f) => f.omit !== 'never')) throw new Error('a nested object may not leave fields out')
  return `{ ${fields.map((f) => `${JSON.stringify(f.key)}: ${valueSource(f, f.value, d)}`).join(', ')} }`
}

/** Statements making the object `o` of `fields` (leading fields in its literal, the rest added). */
function objectSource(fields: readonly Field[], o: string, d: number): string {
  const lead = fields.findIndex((f) => f.omit !== 'never')
  const n = lead < 0 ? fields.length : lead
  const literal = fields
    .slice(0, n)
    .map((f) => `${JSON.stringify(f.key)}: ${valueSource(f, f.value, d)}`)
    .join(', ')
  const rest = fields.slice(n).map((f) => {
    const v = `v${d}`
    const value = f.omit === 'never' ? f.value : v
    return guarded(f, v, `${o}[${JSON.stringify(f.key)}] = ${valueSource(f, value, d)};`)
  })
  return `const ${o} = { ${literal} };\n${rest.join('\n')}`
}

/** Statements writing `fields` as one JSON object into `w` (the first field opens it). */
function writerSource(fields: readonly Field[], d: number): string {
  if (fields[0].omit !== 'never') throw new Error(`field ${fields[0].key} opens its object and so may not be left out`)
  const parts = fields.map((f, k) => {
    const v = `v${d}`
    const value = f.omit === 'never' ? f.value : v
    const prefix = `w.ascii(${JSON.stringify(`${k ? ',' : '{'}${JSON.stringify(f.key)}:`)});`
    switch (f.form) {
      case 'int':
        return guarded(f, v, `${prefix} w.int(${value});`)
      case 'text':
        return guarded(f, v, `${prefix} w.string(${value});`)
      case 'name':
        return guarded(f, v, `${prefix} w.ascii('"').ascii(${value}).ascii('"');`)
      case 'rounded':
        return guarded(f, v, `${prefix} w.rounded(${value}, ${f.places});`)
      case 'version':
        return `${prefix} w.ascii(versionJson);`
      case 'object':
        return guarded(f, v, `${prefix} ${writerSource(f.fields, d + 1)}`)
      default:
        throw new Error(`field ${f.key}: unknown form ${f.form}`)
    }
  })
  return `${parts.join('\n')}\nw.ascii("}");`
}

const recordOfRow = compile<(r: Row, version: string) => Record<string, unknown>>(
  `function recordOfRow(r, version) { ${objectSource(FIELDS, 'o0', 0)} return o0 }`,
)
/** Adjacent writes of constant text made one (`,"legal_status":` and `{"code":`, say). */
function mergedWrites(source: string): string {
  const pair = /w\.ascii\(("(?:[^"\\]|\\.)*")\);\s*w\.ascii\(("(?:[^"\\]|\\.)*")\);/
  let out = source
  for (let m = pair.exec(out); m; m = pair.exec(out)) {
    const joined = JSON.stringify(JSON.parse(m[1]) + JSON.parse(m[2]))
    out = out.slice(0, m.index) + `w.ascii(${joined});` + out.slice(m.index + m[0].length)
  }
  return out
}

const writeFields = compile<(w: JsonBytes, r: Row, versionJson: string) => void>(
  `function writeFields(w, r, versionJson) { ${mergedWrites(writerSource(FIELDS, 0))} }`,
)

/** The record of a row, `version` the dataset's. */
export function toRecord(r: Row, version: string): ParcelRecord {
  return recordOfRow(r, version) as unknown as ParcelRecord
}

/** The records of rows, in their order. */
export function recordsOf(rows: Row[], version: string): ParcelRecord[] {
  const out: ParcelRecord[] = []
  for (let k = 0; k < rows.length; k++) out.push(toRecord(rows[k], version))
  return out
}

/**
 * `JSON.stringify(toRecord(r))` written as bytes, field for field; `versionJson` is the dataset
 * version as JSON. Rows of the row cache (farms, portions and the other shared parcels, repeated
 * in answer after answer) keep their bytes, so they are written once per cache generation.
 */
export function writeRecord(w: JsonBytes, r: Row, versionJson: string): void {
  if (r.json) {
    w.bytes(r.json)
    return
  }
  const mark = w.mark()
  writeFields(w, r, versionJson)
  // a row read for one answer only (an erf, a lookup by LPI) is not kept, so neither are its bytes
  if (r.cached) r.json = w.since(mark)
}

/** The record of `r` as `writeRecord` writes it, or `null`; true when there was a row. */
export function writeRecordOrNull(w: JsonBytes, r: Row | null, versionJson: string): boolean {
  if (!r) {
    w.ascii('null')
    return false
  }
  writeRecord(w, r, versionJson)
  return true
}
