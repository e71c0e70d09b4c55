import { describe, expect, it } from 'vitest'
import { type Row, RowError, RowReader, type RowFormat, csvField, splitCsv } from './rows.js'

/** Reads `text` in chunks of `size` bytes; the rows read, or the RowError thrown. */
function read(format: RowFormat, text: string | Uint8Array, size = 3, known?: string[]): Row[] | RowError {
  const rows: Row[] = []
  const r = new RowReader(
    format,
    (row) => rows.push(row),
    (cols, n) => {
      for (const c of cols) if (known && !known.includes(c)) throw new RowError(n, `unknown column ${c}`, c)
    },
  )
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text
  try {
    for (let i = 0; i < bytes.length; i += size) r.push(bytes.subarray(i, i + size))
    r.end()
  } catch (err) {
    if (err instanceof RowError) return err
    throw err
  }
  return rows
}

describe('RowReader, CSV', () => {
  it('reads rows under the header whatever the chunking, CRLF and a last line without a break', () => {
    const text = 'lat,lon\r\n-25.7,28.2\r\n"-33.9","18.4"\n1,2'
    for (const size of [1, 2, 5, 100])
      expect(read('csv', text, size)).toEqual([
        { lat: '-25.7', lon: '28.2' },
        { lat: '-33.9', lon: '18.4' },
        { lat: '1', lon: '2' },
      ])
  })

  it('keeps commas, doubled quotes and line breaks inside quoted fields; leaves empty fields out', () => {
    expect(read('csv', 'a,b\n"x,""y""","l1\nl2"\n,z\n', 4)).toEqual([{ a: 'x,"y"', b: 'l1\nl2' }, { b: 'z' }])
  })

  it('strips a byte-order mark from the header', () => {
    expect(read('csv', '\uFEFFlat,lon\n1,2\n')).toEqual([{ lat: '1', lon: '2' }])
  })

  it('refuses an empty line, naming its row', () => {
    const e = read('csv', 'lat,lon\n1,2\n\n3,4\n') as RowError
    expect(e).toBeInstanceOf(RowError)
    expect(e.row).toBe(2)
    expect(e.message).toMatch(/row 2 is empty/)
  })

  it('refuses a ragged row, naming it and the counts', () => {
    const e = read('csv', 'lat,lon\n1,2\n3\n') as RowError
    expect([e.row, e.message]).toEqual([2, 'row 2 has 1 fields, the header 2'])
    expect((read('csv', 'lat,lon\n1,2,3\n') as RowError).row).toBe(1)
  })

  it('refuses bytes that are not UTF-8, naming the row they are in', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('lat,lon\n1,2\n'), 0xff, 0x2c, 0x31, 0x0a])
    const e = read('csv', bytes, 4) as RowError
    expect(e).toBeInstanceOf(RowError)
    expect(e.message).toMatch(/not valid UTF-8 \(row 2\)/)
    expect(e.row).toBe(2)
    // in the header, and in a row read in the same chunk as the header
    expect((read('csv', new Uint8Array([0x61, 0xff, 0x0a]), 10) as RowError).row).toBe(0)
    expect((read('csv', bytes, 100) as RowError).row).toBe(2)
  })

  it('refuses an unknown column through onHeader, a column named twice, no header, an open quote', () => {
    expect((read('csv', 'lat,lng\n1,2\n', 3, ['lat', 'lon']) as RowError).column).toBe('lng')
    expect((read('csv', 'lat,lat\n1,2\n') as RowError).message).toMatch(/named twice/)
    expect((read('csv', '') as RowError).message).toMatch(/no header/)
    expect((read('csv', 'a\n"x\n') as RowError).message).toMatch(/not closed/)
    expect((read('csv', 'a\nx"y"\n') as RowError).message).toMatch(/quote inside/)
  })

  it('refuses a line longer than the cap before reading on', () => {
    expect((read('csv', `a\n${'x'.repeat(20000)}`, 1000) as RowError).message).toMatch(/longer than/)
  })
})

describe('RowReader, NDJSON', () => {
  it('reads one flat object a line, numbers and booleans as text, null and "" left out', () => {
    expect(read('ndjson', '{"lat":-25.7,"lon":"28.2"}\n{"lpi":"X","ok":true,"n":null}\n', 7)).toEqual([
      { lat: '-25.7', lon: '28.2' },
      { lpi: 'X', ok: 'true' },
    ])
  })

  it('refuses an empty line, a line that is not an object, a nested value, an unknown key', () => {
    expect((read('ndjson', '{"a":"1"}\n\n') as RowError).row).toBe(2)
    expect((read('ndjson', '[1]\n') as RowError).message).toMatch(/not a JSON object/)
    expect((read('ndjson', '{"a":\n') as RowError).message).toMatch(/not valid JSON/)
    expect((read('ndjson', '{"a":{"b":1}}\n') as RowError).column).toBe('a')
    expect((read('ndjson', '{"lat":1}\n{"lng":2}\n', 3, ['lat']) as RowError).row).toBe(2)
  })
})

describe('splitCsv and csvField', () => {
  it('round-trip fields that need quoting', () => {
    const fields = ['plain', 'a,b', 'say "hi"', 'two\nlines', '']
    expect(splitCsv(fields.map(csvField).join(','), 1)).toEqual(fields)
  })
})
