import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isIsoDate, readExportJson } from './export-json.js'

let root: string
let count = 0

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'export-json-'))
})

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

// a fresh source folder holding export.json with the given text
function source(text: string | null): string {
  const dir = join(root, `source-${++count}`)
  mkdirSync(dir)
  if (text !== null) writeFileSync(join(dir, 'export.json'), text)
  return dir
}

function errorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected a throw')
}

describe('readExportJson', () => {
  it('returns every named export and ignores unknown keys', () => {
    const dir = source(
      JSON.stringify({
        plots: { export_id: 'plots-2026-11-01', as_of: '2026-11-01' },
        cadastre: { export_id: 'csg-2026q3', as_of: '2026-09-30', note: 'ignored' },
        encumbrances: { export_id: 'csg-enc-2026w46', as_of: '2026-11-14' },
        boundaries: { export_id: 'mdb-2026-10', as_of: '2026-10-01' },
        generator: { version: 3 },
      }),
    )
    expect(readExportJson(dir)).toEqual({
      plots: { export_id: 'plots-2026-11-01', as_of: '2026-11-01' },
      cadastre: { export_id: 'csg-2026q3', as_of: '2026-09-30' },
      encumbrances: { export_id: 'csg-enc-2026w46', as_of: '2026-11-14' },
      boundaries: { export_id: 'mdb-2026-10', as_of: '2026-10-01' },
    })
  })

  it('leaves out exports that are absent or null, and accepts a BOM', () => {
    const dir = source('\uFEFF{"plots": {"export_id": "p1", "as_of": "2024-02-29"}, "cadastre": null}')
    expect(readExportJson(dir)).toEqual({ plots: { export_id: 'p1', as_of: '2024-02-29' } })
    expect(readExportJson(source('{}'))).toEqual({})
  })

  it('names the file and every bad field, one per line', () => {
    const dir = source(
      JSON.stringify({
        plots: { export_id: 'p', as_of: '2026-1-01' },
        cadastre: { export_id: '  ', as_of: '2026-02-29' },
        encumbrances: 'enc-1',
        boundaries: { as_of: 20261001 },
      }),
    )
    const file = join(dir, 'export.json')
    expect(errorOf(() => readExportJson(dir)).split('\n')).toEqual([
      `${file}: plots.as_of: expected YYYY-MM-DD (a real date), got "2026-1-01"`,
      `${file}: cadastre.export_id: expected a non-empty string`,
      `${file}: cadastre.as_of: expected YYYY-MM-DD (a real date), got "2026-02-29"`,
      `${file}: encumbrances: expected an object with export_id and as_of`,
      `${file}: boundaries.export_id: expected a non-empty string`,
      `${file}: boundaries.as_of: expected YYYY-MM-DD`,
    ])
  })

  it('throws naming the file when it is missing, not JSON, or not an object', () => {
    const missing = source(null)
    expect(errorOf(() => readExportJson(missing))).toBe(
      `${join(missing, 'export.json')}: missing; a source export must name its exports in export.json`,
    )
    const broken = source('{"plots": ')
    expect(errorOf(() => readExportJson(broken))).toMatch(new RegExp(`^${join(broken, 'export.json')}: invalid JSON: `))
    const array = source('[]')
    expect(errorOf(() => readExportJson(array))).toBe(`${join(array, 'export.json')}: expected a JSON object`)
  })
})

describe('isIsoDate', () => {
  it('accepts real calendar dates only', () => {
    expect(['2026-11-01', '2024-02-29', '1999-12-31'].map(isIsoDate)).toEqual([true, true, true])
    expect(
      ['2026-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '20261101', '2026-11-01T00:00', ' 2026-11-01'].map(
        isIsoDate,
      ),
    ).toEqual([false, false, false, false, false, false, false])
  })
})
