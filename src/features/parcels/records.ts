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
  /** the field's value (an object's: the value whose absence leaves the object out) */
  readonly read: (r: Row) => string | number | null
  readonly omit: Absence
  readonly places: number
  readonly fields: readonly Field[]
  /** `{"key":` for the first field of an object, `,"key":` after it: written before the value */
  readonly prefix: string
}

type FieldSpec = Omit<Field, 'prefix'>
const NONE: readonly Field[] = []

function noValue(): null {
  return null
}
function field(
  key: string,
  form: Form,
  read: Field['read'],
  omit: Absence = 'never',
  places = 0,
  fields = NONE,
): FieldSpec {
  return { key, form, read, omit, places, fields }
}
function int(key: string, read: (r: Row) => number | null, omit: Absence = 'never'): FieldSpec {
  return field(key, 'int', read, omit)
}
function text(key: string, read: (r: Row) => string | null, omit: Absence = 'never'): FieldSpec {
  return field(key, 'text', read, omit)
}
function name(key: string, read: (r: Row) => string): FieldSpec {
  return field(key, 'name', read)
}
function rounded(key: string, read: (r: Row) => number, places: number): FieldSpec {
  return field(key, 'rounded', read, 'never', places)
}
function version(key: string): FieldSpec {
  return field(key, 'version', noValue)
}
function object(key: string, read: Field['read'], omit: Absence, fields: readonly FieldSpec[]): FieldSpec {
  return field(key, 'object', read, omit, 0, listOf(fields))
}

/** Fields with their prefixes; the first is never left out, as it opens the object. */
function listOf(specs: readonly FieldSpec[]): readonly Field[] {
  if (specs[0].omit !== 'never') throw new Error(`field ${specs[0].key} opens its object and so may not be left out`)
  // every field the same shape (one hidden class): the loops over them stay monomorphic
  return specs.map((s, k) => ({
    key: s.key,
    form: s.form,
    read: s.read,
    omit: s.omit,
    places: s.places,
    fields: s.fields,
    prefix: `${k ? ',' : '{'}${JSON.stringify(s.key)}:`,
  }))
}

/** The record's fields in the order the spec lists them; absent fields are omitted, never null. */
const FIELDS = listOf([
  int('id', (r) => r.id),
  name('parcel_type', (r) => r.parcel_type),
  text('province', (r) => PROVINCES[r.province]),
  text('source_key', (r) => r.source_key, 'empty'),
  version('dataset_version'),
  text('lpi', (r) => r.lpi),
  int('parcel_number', (r) => r.parcel_number, 'null'),
  int('portion', (r) => r.portion, 'null'),
  text('tag_value', (r) => r.tag_value, 'empty'),
  text('major_region', (r) => r.major_region, 'empty'),
  text('major_code', (r) => r.major_code, 'empty'),
  text('minor_region', (r) => r.minor_region, 'empty'),
  text('minor_code', (r) => r.minor_code, 'empty'),
  object('legal_status', (r) => r.lstatus, 'never', [
    text('code', (r) => r.lstatus),
    text('label', (r) => LEGAL_STATUS[r.lstatus] ?? r.lstatus),
  ]),
  object('work_status', (r) => r.wstatus, 'empty', [
    text('code', (r) => r.wstatus),
    text('label', (r) => WORK_STATUS[r.wstatus!] ?? r.wstatus),
  ]),
  rounded('extent_sqm', (r) => r.extent_sqm, 2),
  object('label_point', noValue, 'never', [
    rounded('latitude', (r) => r.label_lat, 7),
    rounded('longitude', (r) => r.label_lon, 7),
  ]),
  text('date_stamp', (r) => r.date_stamp, 'empty'),
])

function absent(f: Field, v: string | number | null): boolean {
  return f.omit === 'empty' ? !v : f.omit === 'null' && v === null
}

/** The record of a row, `version` the dataset's. */
export function toRecord(r: Row, version: string): ParcelRecord {
  return objectOf(FIELDS, r, version) as unknown as ParcelRecord
}

/** The records of rows, in their order. */
export function recordsOf(rows: Row[], version: string): ParcelRecord[] {
  const out: ParcelRecord[] = []
  for (let k = 0; k < rows.length; k++) out.push(toRecord(rows[k], version))
  return out
}

function objectOf(fields: readonly Field[], r: Row, version: string): Record<string, unknown> {
  const p: Record<string, unknown> = {}
  for (let k = 0; k < fields.length; k++) {
    const f = fields[k]
    const v = f.read(r)
    if (absent(f, v)) continue
    switch (f.form) {
      case 'rounded':
        p[f.key] = round(v as number, f.places)
        break
      case 'version':
        p[f.key] = version
        break
      case 'object':
        p[f.key] = objectOf(f.fields, r, version)
        break
      default:
        p[f.key] = v
    }
  }
  return p
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
  writeFields(w, FIELDS, r, versionJson)
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

/** One object of the table: each field present, its prefix then its value; no allocation. */
function writeFields(w: JsonBytes, fields: readonly Field[], r: Row, versionJson: string): void {
  for (let k = 0; k < fields.length; k++) {
    const f = fields[k]
    const v = f.read(r)
    if (absent(f, v)) continue
    w.ascii(f.prefix)
    switch (f.form) {
      case 'int':
        w.int(v as number)
        break
      case 'text':
        w.string(v as string)
        break
      case 'name':
        w.ascii('"')
          .ascii(v as string)
          .ascii('"')
        break
      case 'rounded':
        w.rounded(v as number, f.places)
        break
      case 'version':
        w.ascii(versionJson)
        break
      case 'object':
        writeFields(w, f.fields, r, versionJson)
        break
    }
  }
  w.ascii('}')
}
