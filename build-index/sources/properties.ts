// property normalisation: lower-case keys, trailing padding removed, blank -> null.
import type { SourceProperties, SourceValue } from './source-row.js'

/** Trims trailing whitespace (DBF pads fields with spaces) and maps a blank string to null. */
export function cleanString(value: string): string | null {
  const trimmed = value.trimEnd()
  return trimmed === '' ? null : trimmed
}

/**
 * Normalises one property value. Dates (DBF `D` fields) become `YYYY-MM-DD`, big integers become
 * numbers, non-finite numbers and binary values become null, nested JSON becomes its JSON text.
 */
export function normaliseValue(value: unknown): SourceValue {
  switch (typeof value) {
    case 'string':
      return cleanString(value)
    case 'number':
      return Number.isFinite(value) ? value : null
    case 'boolean':
      return value
    case 'bigint':
      return Number(value)
    case 'object':
      return normaliseObject(value)
    default:
      return null
  }
}

function normaliseObject(value: object | null): SourceValue {
  if (value === null || value instanceof Uint8Array) return null
  if (value instanceof Date) return isoDate(value)
  return JSON.stringify(value)
}

// the shapefile package builds dbf dates in local time, so read them back the same way. it turns
// a blank or zero date into new Date(0, -1, 0), i.e. 1899-11-30, which no real record carries.
function isoDate(date: Date): string | null {
  if (Number.isNaN(date.getTime())) return null
  if (date.getFullYear() === 1899 && date.getMonth() === 10 && date.getDate() === 30) return null
  const y = String(date.getFullYear()).padStart(4, '0')
  const m = String(date.getMonth() + 1).padStart(2, '0')
  const d = String(date.getDate()).padStart(2, '0')
  return `${y}-${m}-${d}`
}

/** Lower-cases keys and normalises values; on a key clash after lower-casing the first wins. */
export function normaliseProperties(raw: Readonly<Record<string, unknown>> | null | undefined): SourceProperties {
  const out: SourceProperties = {}
  if (!raw) return out
  for (const key of Object.keys(raw)) {
    const name = key.trim().toLowerCase()
    if (name === '' || Object.hasOwn(out, name)) continue
    out[name] = normaliseValue(raw[key])
  }
  return out
}
