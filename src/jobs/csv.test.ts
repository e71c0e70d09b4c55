import { parse } from 'csv-parse/sync'
import { describe, expect, it } from 'vitest'
import { CsvPlan, type JsonSchema, neutralised } from './csv.js'

const str: JsonSchema = { type: 'string' }
const num: JsonSchema = { type: 'number' }
const link: JsonSchema = { type: 'object', properties: { code: str, name: str } }

/** An answer with a list of records, a nullable object, a list of text, a closed map and an open one. */
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    encumbrances: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          uid: { type: 'integer' },
          overlap_sqm: { type: ['number', 'null'] },
          geometry: { type: 'object', properties: { type: str, coordinates: { type: 'array', items: {} } } },
          tags: { type: 'array', items: { type: 'object', properties: { k: str } } },
        },
      },
    },
    ward: { anyOf: [link, { type: 'null' }] },
    notes: { type: 'array', items: str },
    counts: { type: 'object', propertyNames: { enum: ['a', 'b'] }, additionalProperties: { type: 'integer' } },
    extra: { type: 'object', additionalProperties: num },
    lpi: str,
    flag: { type: 'boolean' },
    both: {
      allOf: [
        { type: 'object', properties: { x: num } },
        { type: 'object', properties: { y: num } },
      ],
    },
  },
}

const parsed = (text: string): string[][] => parse(text, { relaxQuotes: false })

describe('CsvPlan', () => {
  const plan = new CsvPlan(['lpi', 'as_at'], SCHEMA)

  it('names the columns from the schema: inputs, the lead, dotted paths, the list under its name', () => {
    expect(plan.header).toEqual([
      'lpi',
      'as_at',
      'row',
      'status',
      'error_code',
      'error_message',
      'item',
      'encumbrances.uid',
      'encumbrances.overlap_sqm',
      'encumbrances.geometry.type',
      'encumbrances.geometry.coordinates',
      'encumbrances.tags',
      'ward.code',
      'ward.name',
      'notes',
      'counts.a',
      'counts.b',
      'extra',
      'result.lpi',
      'flag',
      'both.x',
      'both.y',
    ])
    expect(plan.list).toEqual(['encumbrances'])
  })

  it('writes one line per record of the list, the rest repeated; an empty list or an error is one line', () => {
    const result = {
      encumbrances: [
        { uid: 7, overlap_sqm: null, geometry: { type: 'Point', coordinates: [1, 2] }, tags: [{ k: 'v' }] },
        { uid: 8, overlap_sqm: 12.5 },
      ],
      ward: null,
      notes: ['one', 'two'],
      counts: { b: 3 },
      extra: { q: 1 },
      lpi: 'L1',
      flag: false,
      both: { x: 1, y: 2 },
    }
    const text =
      plan.headerLine() +
      plan.lines({ row: 1, input: { lpi: 'L1' }, status: 200, result }) +
      plan.lines({ row: 2, input: { lpi: 'L2' }, status: 200, result: { ...result, encumbrances: [] } }) +
      plan.lines({ row: 3, input: { lpi: 'L3' }, status: 404, error: { error: 'ParcelNotFound', message: 'no L3' } })
    const rows = parsed(text)
    expect(rows.length).toBe(5)
    const col = (r: string[], name: string) => r[plan.header.indexOf(name)]
    expect(rows[1]!.slice(0, 7)).toEqual(['L1', '', '1', '200', '', '', '1'])
    expect(col(rows[1]!, 'encumbrances.overlap_sqm')).toBe('')
    expect(col(rows[1]!, 'encumbrances.geometry.coordinates')).toBe('[1,2]')
    expect(col(rows[1]!, 'encumbrances.tags')).toBe('[{"k":"v"}]')
    expect(col(rows[2]!, 'item')).toBe('2')
    expect(col(rows[2]!, 'encumbrances.overlap_sqm')).toBe('12.5')
    for (const r of rows.slice(1, 3)) {
      expect(col(r, 'notes')).toBe('one; two')
      expect(col(r, 'counts.a')).toBe('')
      expect(col(r, 'counts.b')).toBe('3')
      expect(col(r, 'extra')).toBe('{"q":1}')
      expect(col(r, 'result.lpi')).toBe('L1')
      expect(col(r, 'flag')).toBe('false')
      expect(col(r, 'both.y')).toBe('2')
    }
    expect(col(rows[3]!, 'item')).toBe('')
    expect(col(rows[3]!, 'encumbrances.uid')).toBe('')
    expect(col(rows[3]!, 'notes')).toBe('one; two')
    expect(rows[4]!.slice(0, 6)).toEqual(['L3', '', '3', '404', 'ParcelNotFound', 'no L3'])
    expect(rows[4]!.slice(6).every((c) => c === '')).toBe(true)
  })

  it('round-trips a value with a comma, a quote and line breaks through a CSV parser', () => {
    const v = 'a, "b"\nc\r\nd'
    const p = new CsvPlan(['q'], { type: 'object', properties: { text: str } })
    const rows = parsed(p.headerLine() + p.lines({ row: 1, input: { q: v }, status: 200, result: { text: v } }))
    expect(rows[1]).toEqual([v, '1', '200', '', '', v])
  })

  it('neutralises a cell a spreadsheet would run as a formula, and leaves numbers alone', () => {
    for (const v of ['=HYPERLINK("x")', '+1+2', '-2+3', '@SUM(A1)', '\tx', '\rx', '-', '=1'])
      expect(neutralised(v)).toBe(`'${v}`)
    for (const v of ['-26.1704468', '+27.5', '-1e-7', '12', 'plain', '', 'a=b']) expect(neutralised(v)).toBe(v)
    const p = new CsvPlan([], { type: 'object', properties: { name: str } })
    const rows = parsed(p.lines({ row: 1, input: {}, status: 200, result: { name: '=cmd|"/c calc"!A1' } }))
    expect(rows[0]![4]).toBe(`'=cmd|"/c calc"!A1`)
  })

  it('writes an answer it has no object schema for as JSON text in one column, and a recursive one to a depth', () => {
    const p = new CsvPlan(['x'], {})
    expect(p.header).toEqual(['x', 'row', 'status', 'error_code', 'error_message', 'result'])
    expect(parsed(p.lines({ row: 1, input: { x: '1' }, status: 200, result: { a: [1] } }))[0]![5]).toBe('{"a":[1]}')
    const tree: JsonSchema = {
      $defs: { Node: { type: 'object', properties: { name: str, child: { $ref: '#/$defs/Node' } } } },
      $ref: '#/$defs/Node',
    }
    const deep = new CsvPlan([], tree)
    // nine levels of `name`, then the tenth `child` as JSON text
    expect(deep.header.slice(4, 6)).toEqual(['name', 'child.name'])
    expect(deep.header.at(-1)).toBe(Array(9).fill('child').join('.'))
    expect(deep.header.length).toBe(4 + 10)
  })
})
