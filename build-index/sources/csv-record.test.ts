import { describe, expect, it } from 'vitest'
import { splitCsvRecord } from './csv-record.js'

describe('splitCsvRecord', () => {
  it('splits plain and quoted fields', () => {
    expect(splitCsvRecord('a,b,,c')).toEqual(['a', 'b', '', 'c'])
    expect(splitCsvRecord('"a,1","b ""x"" y",c')).toEqual(['a,1', 'b "x" y', 'c'])
    expect(splitCsvRecord('"",x,""')).toEqual(['', 'x', ''])
    expect(splitCsvRecord('x,"line 1\nline 2"')).toEqual(['x', 'line 1\nline 2'])
    expect(splitCsvRecord('""""')).toEqual(['"'])
    expect(splitCsvRecord('a,')).toEqual(['a', ''])
  })

  it('returns null while a quoted field is still open', () => {
    expect(splitCsvRecord('x,"open')).toBeNull()
    expect(splitCsvRecord('x,"open ""quoted"" text')).toBeNull()
    expect(splitCsvRecord('"a",""')).toEqual(['a', ''])
  })

  it('is lenient with quotes RFC 4180 does not allow', () => {
    expect(splitCsvRecord('5\'10",b')).toEqual(['5\'10"', 'b'])
    expect(splitCsvRecord('"ab"cd,e')).toEqual(['abcd', 'e'])
  })
})
