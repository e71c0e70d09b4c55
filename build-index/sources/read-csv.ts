// csv point layers: a header row, then one point per record built from latitude/longitude.
import { listOf } from '../transform/required.js'
import { splitCsvRecord } from './csv-record.js'
import { readLineBatches } from './lines.js'
import { cleanString } from './properties.js'
import { checkedPosition, GeometryProblem } from './source-geometry.js'
import type { SourcePosition, SourceProperties, SourceRow } from './source-row.js'

/** Accepted names of the coordinate columns, in order of preference (matched lower-cased). */
export const LATITUDE_COLUMNS = ['latitude', 'lat'] as const
export const LONGITUDE_COLUMNS = ['longitude', 'lon', 'lng', 'long'] as const

// a quoted field still open after this many characters is a stray quote, not data
const MAX_RECORD_CHARS = 1 << 20
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

interface CsvHeader {
  /** property name per column; null for a blank or repeated name */
  names: (string | null)[]
  lat: number
  lon: number
}

/**
 * Streams the records of a CSV point layer; refs are `<file>:<line>` where the record starts
 * (the header is line 1). Cells stay strings (trailing spaces trimmed, blank -> null) except the
 * coordinate columns, which hold the parsed numbers.
 * @throws when the file has no header, or the header lacks a coordinate column or one of
 *   `required` (all of those it lacks named in one message)
 */
export async function* readCsv(file: string, required: readonly string[] = []): AsyncGenerator<SourceRow> {
  let header: CsvHeader | null = null
  let lineNo = 0
  let open: string | null = null
  let openLine = 0
  for await (const lines of readLineBatches(file)) {
    for (const line of lines) {
      lineNo++
      let fields: string[] | null
      let start = lineNo
      if (open === null) {
        // fast path: a line without quotes is a whole record
        fields = line.indexOf('"') < 0 ? line.split(',') : splitCsvRecord(line)
        if (fields === null) {
          open = line
          openLine = lineNo
          continue
        }
      } else {
        open += '\n' + line
        // the open quoted field can only close on a line holding a quote
        fields = line.indexOf('"') < 0 ? null : splitCsvRecord(open)
        if (fields === null) {
          if (open.length > MAX_RECORD_CHARS) {
            yield { ok: false, ref: `${file}:${openLine}`, reason: 'unterminated quoted field' }
            open = null
          }
          continue
        }
        start = openLine
        open = null
      }
      if (fields.length === 1 && fields[0].trim() === '') continue
      if (header === null) header = readHeader(file, fields, required)
      else yield csvRow(`${file}:${start}`, header, fields)
    }
  }
  if (open !== null) yield { ok: false, ref: `${file}:${openLine}`, reason: 'unterminated quoted field' }
  if (header === null) throw new Error(`${file}: empty file, expected a CSV header`)
}

function readHeader(file: string, fields: string[], required: readonly string[]): CsvHeader {
  const seen = new Set<string>()
  const names = fields.map((field) => {
    const name = field.trim().toLowerCase()
    if (name === '' || seen.has(name)) return null
    seen.add(name)
    return name
  })
  const lat = findColumn(names, LATITUDE_COLUMNS)
  const lon = findColumn(names, LONGITUDE_COLUMNS)
  // every column missing, in one message
  const missing = [...(lat < 0 ? ['latitude'] : []), ...(lon < 0 ? ['longitude'] : [])]
  const expected = [
    ...(lat < 0 ? [LATITUDE_COLUMNS.join(' or ')] : []),
    ...(lon < 0 ? [LONGITUDE_COLUMNS.join(' or ')] : []),
  ]
  missing.push(...required.filter((r) => !seen.has(r)))
  if (missing.length)
    throw new Error(
      `${file}: no ${listOf(missing)} column${missing.length > 1 ? 's' : ''} in the CSV header` +
        (expected.length ? ` (expected ${expected.join('; ')})` : ''),
    )
  return { names, lat, lon }
}

function findColumn(names: (string | null)[], accepted: readonly string[]): number {
  for (const name of accepted) {
    const index = names.indexOf(name)
    if (index >= 0) return index
  }
  return -1
}

function csvRow(ref: string, header: CsvHeader, fields: string[]): SourceRow {
  if (fields.length !== header.names.length) {
    return { ok: false, ref, reason: `expected ${header.names.length} fields, found ${fields.length}` }
  }
  const lat = readCoordinate(fields[header.lat], 'latitude')
  if (typeof lat === 'string') return { ok: false, ref, reason: lat }
  const lon = readCoordinate(fields[header.lon], 'longitude')
  if (typeof lon === 'string') return { ok: false, ref, reason: lon }
  let position: SourcePosition
  try {
    position = checkedPosition(lon, lat)
  } catch (error) {
    if (error instanceof GeometryProblem) return { ok: false, ref, reason: error.message }
    throw error
  }
  const properties: SourceProperties = {}
  for (let i = 0; i < fields.length; i++) {
    const name = header.names[i]
    if (name !== null) properties[name] = cleanString(fields[i])
  }
  properties[header.names[header.lat] as string] = lat
  properties[header.names[header.lon] as string] = lon
  return { ok: true, ref, properties, geometry: { type: 'Point', coordinates: position } }
}

// returns the number, or the reject reason
function readCoordinate(raw: string, name: string): number | string {
  const text = raw.trim()
  if (text === '') return `${name} is not a number (blank)`
  if (!DECIMAL.test(text)) return `${name} is not a number (${JSON.stringify(text)})`
  return Number(text)
}
