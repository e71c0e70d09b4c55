/**
 * The flattened CSV of a job's results (docs/api.md "Bulk jobs", "Results as CSV"). The columns
 * come from the operation's answer schema (its 200 response, as JSON Schema), never from the
 * rows, so a CSV fetched while the job runs has the header every later fetch has:
 *
 * - the input columns, `row`, `status`, `error_code`, `error_message`;
 * - every field of the answer under its dotted JSON path (`jurisdiction.ward.name`);
 * - the answer's list of records (the first array of objects: `parcels`, `encumbrances`,
 *   `plots`) gives one CSV line per record, with `item` (its place in the list, from 1) and
 *   its fields under the list's name (`encumbrances.encumbrance_class`); the input columns
 *   and the answer's other fields repeat on each line. A row whose list is empty, or that
 *   failed, is one line.
 * - a list of text or numbers is one cell, the values joined by `; `; anything deeper (a
 *   geometry's coordinates, a second list of records, a map with open keys) is its JSON text;
 * - a field whose dotted name is already a column (an input column such as `lpi`) is named
 *   `result.<path>`.
 *
 * Cells are quoted as RFC 4180 says, and a cell a spreadsheet would run as a formula (it starts
 * with `=`, `+`, `-`, `@`, a tab or a carriage return, and is not a number) is prefixed with `'`.
 *
 * @module
 */
import { csvField } from './rows.js'

/** A JSON Schema, as `z.toJSONSchema` writes it (the parts read here). */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  additionalProperties?: JsonSchema | boolean
  propertyNames?: JsonSchema
  enum?: unknown[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  $ref?: string
  $defs?: Record<string, JsonSchema>
}

/** How a column's cell is written from its value. */
type Cell = 'value' | 'joined' | 'json'

interface Column {
  name: string
  /** the path from the answer's root, or from a record of the list */
  path: readonly string[]
  cell: Cell
  /** true: read from the list's record, not from the answer */
  inList: boolean
}

/** The columns before the answer's. */
export const LEAD_COLUMNS = ['row', 'status', 'error_code', 'error_message'] as const

/** The column of a record's place in its list. */
export const ITEM_COLUMN = 'item'

/** A result line of the NDJSON (schemas.ts ResultLineSchema). */
export interface ResultLine {
  row: number
  input: Record<string, string>
  status: number
  result?: unknown
  error?: { error?: string; message?: string }
}

/** Fields nested deeper than this are written as JSON text (a schema that refers to itself). */
const MAX_DEPTH = 8

const SCALARS = new Set(['string', 'number', 'integer', 'boolean'])

/** The schema's types but null (`["number","null"]` is a number). */
function typesOf(s: JsonSchema): string[] {
  const t = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]
  return t.filter((x) => x !== 'null')
}

/** One schema of `s`'s anyOf/oneOf/allOf, `$ref` resolved, null left out; objects merged. */
function resolve(s: JsonSchema, defs: Record<string, JsonSchema>, seen: ReadonlySet<string>): JsonSchema | null {
  if (s.$ref !== undefined) {
    const name = s.$ref.replace(/^#\/\$defs\//, '')
    const target = defs[name]
    // a recursive schema has no columns to list: its JSON text
    if (!target || seen.has(name)) return null
    return resolve(target, defs, new Set([...seen, name]))
  }
  const parts = s.allOf ?? s.anyOf ?? s.oneOf
  if (!parts) return s
  const kept = parts.map((p) => resolve(p, defs, seen)).filter((p): p is JsonSchema => p !== null)
  const real = kept.filter((p) => !(typesOf(p).length === 0 && p.type !== undefined))
  if (real.length === 1) return real[0]!
  if (real.length > 1 && real.every((p) => p.properties !== undefined)) {
    // the union or intersection of objects: every property any of them has, in order
    const properties: Record<string, JsonSchema> = {}
    for (const p of real) for (const [k, v] of Object.entries(p.properties!)) properties[k] ??= v
    return { type: 'object', properties }
  }
  if (real.length > 1 && real.every((p) => typesOf(p).every((t) => SCALARS.has(t)) && typesOf(p).length))
    return { type: 'string' }
  return null
}

/** The keys of an object schema: its properties, or a map's closed set of keys. */
function keysOf(s: JsonSchema): [string, JsonSchema][] | null {
  if (s.properties) return Object.entries(s.properties)
  const names = s.propertyNames?.enum
  if (names && typeof s.additionalProperties === 'object')
    return names.map((n) => [String(n), s.additionalProperties as JsonSchema])
  return null
}

/**
 * The columns of an operation's answer (`schema`, its 200 response as JSON Schema) after the
 * input columns `input`: the whole CSV header.
 */
export class CsvPlan {
  readonly header: string[]
  private readonly columns: Column[]
  /** the path of the list of records that gives one line each, or null */
  readonly list: readonly string[] | null

  constructor(
    readonly input: readonly string[],
    schema: JsonSchema,
  ) {
    const defs = schema.$defs ?? {}
    const columns: Column[] = []
    let list: string[] | null = null
    // `path` is read from the answer, or from a record of the list (`inList`); `name` is the
    // dotted path from the answer's root either way
    const walk = (s: JsonSchema, path: string[], name: string[], inList: boolean) => {
      const add = (cell: Cell) => columns.push({ name: name.join('.'), path, cell, inList })
      // a schema that refers to itself: its JSON text below this depth
      if (name.length > MAX_DEPTH) return add('json')
      const r = resolve(s, defs, new Set())
      const keys = r && keysOf(r)
      const types = r ? typesOf(r) : []
      if (keys && (types.length === 0 || types.includes('object'))) {
        for (const [k, v] of keys) walk(v, [...path, k], [...name, k], inList)
        return
      }
      if (r === null || types.length === 0) return add('json')
      if (!types.includes('array')) return add(types.every((t) => SCALARS.has(t)) ? 'value' : 'json')
      const item = r.items ? resolve(r.items, defs, new Set()) : null
      const itemTypes = item ? typesOf(item) : []
      const itemKeys = item && keysOf(item)
      if (itemTypes.length && itemTypes.every((t) => SCALARS.has(t))) return add('joined')
      if (!itemKeys || list !== null || inList) return add('json')
      list = path
      columns.push({ name: ITEM_COLUMN, path: [], cell: 'value', inList: true })
      for (const [k, v] of itemKeys) walk(v, [k], [...name, k], true)
    }
    walk(schema, [], [], false)
    // an answer that is not an object: one column of it
    if (columns.length === 1 && columns[0]!.path.length === 0 && !columns[0]!.inList) columns[0]!.name = 'result'
    const taken = new Set<string>([...input, ...LEAD_COLUMNS])
    for (const c of columns) {
      if (taken.has(c.name)) c.name = `result.${c.name}`
      taken.add(c.name)
    }
    this.columns = columns
    this.list = list
    this.header = [...input, ...LEAD_COLUMNS, ...columns.map((c) => c.name)]
  }

  /** The header line, with its CRLF. */
  headerLine(): string {
    return csvLine(this.header)
  }

  /** The CSV lines of one result line (one or more, each with its CRLF). */
  lines(r: ResultLine): string {
    const lead = [...this.input.map((k) => r.input[k] ?? ''), String(r.row), String(r.status)]
    if (r.status >= 400 || r.result === undefined) {
      const cells = [...lead, r.error?.error ?? '', r.error?.message ?? '', ...this.columns.map(() => '')]
      return csvLine(cells)
    }
    lead.push('', '')
    const records = this.list ? at(r.result, this.list) : undefined
    const items = Array.isArray(records) && records.length ? records : [undefined]
    let out = ''
    items.forEach((record, i) => {
      const cells = [...lead]
      for (const c of this.columns) {
        if (!c.inList) cells.push(cellOf(at(r.result, c.path), c.cell))
        else if (c.path.length === 0) cells.push(record === undefined ? '' : String(i + 1))
        else cells.push(record === undefined ? '' : cellOf(at(record, c.path), c.cell))
      }
      out += csvLine(cells)
    })
    return out
  }
}

/** The value at `path` of `v`, or undefined. */
function at(v: unknown, path: readonly string[]): unknown {
  let x = v
  for (const k of path) {
    if (x === null || typeof x !== 'object') return undefined
    x = (x as Record<string, unknown>)[k]
  }
  return x
}

/** The text of a cell: nothing for null or absent, numbers and booleans as JSON writes them. */
function cellOf(v: unknown, cell: Cell): string {
  if (v === undefined || v === null) return ''
  if (cell === 'joined' && Array.isArray(v)) return v.map((x) => (x === null ? '' : String(x))).join('; ')
  if (cell === 'json' || typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/

/**
 * A cell a spreadsheet would not run: one that starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return is prefixed with `'`, unless it is a number (`-26.17`), which stays a number.
 */
export function neutralised(v: string): string {
  return /^[=+\-@\t\r]/.test(v) && !NUMBER.test(v) ? `'${v}` : v
}

/** One CSV line of `cells`, neutralised and quoted, with its CRLF. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map((c) => csvField(neutralised(c))).join(',')}\r\n`
}
