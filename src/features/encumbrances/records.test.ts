import { describe, expect, it } from 'vitest'
import { COLUMNS, ROW_COLUMNS, toRow } from './records.js'

describe('the row field table (records.ts)', () => {
  it('toRow reads each column into the field the table names, from any first column', () => {
    expect(COLUMNS.split(', ')).toEqual(ROW_COLUMNS.map(([column]) => column))
    for (const k of [0, 6]) {
      // each cell holds the name of its column, after k leading cells
      const row = toRow(
        [...Array.from({ length: k }, () => 'lead'), ...ROW_COLUMNS.map(([column]) => column)],
        k,
      ) as unknown as Record<string, unknown>
      const read = (path: string) =>
        path.split('.').reduce<unknown>((o, key) => (o as Record<string, unknown>)[key], row)
      for (const [column, field] of ROW_COLUMNS) expect(read(field), field).toBe(column)
      // and no field the table does not name
      const fields = new Set(ROW_COLUMNS.map(([, field]) => field.split('.')[0]))
      expect(Object.keys(row).sort()).toEqual([...fields].sort())
    }
  })
})
