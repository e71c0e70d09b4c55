import { z } from '@hono/zod-openapi'
import { LPI_PATTERN } from '../data/parcels-format.js'
import { provinceCode } from '../data/provinces.js'
import type { BBox } from '../geo/polygon.js'
import { withFastPath } from './fast-params.js'

// Query strings are text: a strict number grammar, so '', ' ', '0x10', '1e', 'Infinity' and
// '12abc' are rejected rather than coerced the way Number() or z.coerce would.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const INTEGER = /^[+-]?\d+$/

function requiredMessage(name: string) {
  return (iss: { input?: unknown }) => (iss.input === undefined ? `${name} is required` : undefined)
}

/** A decimal query parameter within [min, max]; required unless a default is given. */
export function floatParam(name: string, min: number, max: number) {
  const schema = z
    .string({ error: requiredMessage(name) })
    .refine((s) => DECIMAL.test(s.trim()), { message: `${name} must be a number` })
    .transform((s) => Number(s))
    .refine((n) => Number.isFinite(n) && n >= min && n <= max, { message: `${name} must be between ${min} and ${max}` })
  return withFastPath(schema, (raw) => {
    if (raw === undefined || !DECIMAL.test(raw.trim())) return undefined
    const n = Number(raw)
    return Number.isFinite(n) && n >= min && n <= max ? { value: n } : undefined
  })
}

/** A whole-number query parameter within [min, max] with a default. */
export function intParam(name: string, min: number, max: number, dflt?: number) {
  const base = z
    .string({ error: requiredMessage(name) })
    .refine((s) => INTEGER.test(s.trim()), { message: `${name} must be a whole number` })
    .transform((s) => Number(s))
    .refine((n) => Number.isSafeInteger(n) && n >= min && n <= max, {
      message: `${name} must be a whole number from ${min} to ${max}`,
    })
  const twin = (raw: string | undefined) => {
    if (raw === undefined || !INTEGER.test(raw.trim())) return undefined
    const n = Number(raw)
    return Number.isSafeInteger(n) && n >= min && n <= max ? { value: n } : undefined
  }
  if (dflt === undefined) return withFastPath(base, twin)
  return withFastPath(
    base.optional().transform((n) => n ?? dflt),
    (raw) => (raw === undefined ? { value: dflt } : twin(raw)),
  )
}

/** A case-insensitive enumeration; the value is returned upper-case. */
export function upperEnumParam<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  const schema = z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .refine((s): s is T[number] => (values as readonly string[]).includes(s), {
      message: `${name} must be one of ${values.join(', ')} (case-insensitive)`,
    })
    .transform((s) => s as T[number])
  return withFastPath(schema, (raw) => {
    if (raw === undefined) return undefined
    const v = raw.trim().toUpperCase()
    return (values as readonly string[]).includes(v) ? { value: v } : undefined
  })
}

export const LatitudeParam = floatParam('latitude', -90, 90).openapi({
  type: 'number',
  minimum: -90,
  maximum: 90,
  example: -24.6282,
})
export const LongitudeParam = floatParam('longitude', -180, 180).openapi({
  type: 'number',
  minimum: -180,
  maximum: 180,
  example: 25.9231,
})

/** A decimal query parameter within [min, max], described with its bounds in the OpenAPI document. */
export const boundedFloatParam = (name: string, min: number, max: number) =>
  floatParam(name, min, max).openapi({ type: 'number', minimum: min, maximum: max })

/** One `{latitude, longitude}` of a batch body (JSON numbers, not query text). */
export const BatchPointSchema = z
  .object({
    latitude: z
      .number({ error: 'latitude must be a number' })
      .min(-90, 'latitude must be between -90 and 90')
      .max(90, 'latitude must be between -90 and 90'),
    longitude: z
      .number({ error: 'longitude must be a number' })
      .min(-180, 'longitude must be between -180 and 180')
      .max(180, 'longitude must be between -180 and 180'),
  })
  .openapi('BatchPoint')

/** The 21-character SG key of a parcel, as a path parameter (case-insensitive, returned upper-case). */
export const LpiParam = z
  .string()
  .transform((s) => s.trim().toUpperCase())
  .refine((s) => s.length === 21 && LPI_PATTERN.test(s), {
    message: 'lpi must be a 21-character SG key such as C01300240000106800000',
  })
  .openapi({
    param: { name: 'lpi', in: 'path' },
    type: 'string',
    example: 'C01300240000106800000',
    description: '21-character land parcel identifier (SG21), case-insensitive.',
  })

/** A South African province by code, alias or name (any case), returned as the spec's code. */
export const ProvinceParam = z.string().transform((s, ctx) => {
  const p = provinceCode(s)
  if (!p) {
    ctx.addIssue({
      code: 'custom',
      message: 'province must be a province code (EC, FS, GP, KZ, LP, MP, NC, NW, WC; GT, KZN, LIM accepted) or name',
    })
    return z.NEVER
  }
  return p
})

/**
 * A comma list of names from `allowed` (case-insensitive, duplicates dropped, order kept), as
 * the layers of a tile or heat map are chosen; absent or blank: `dflt`. Every unknown member is
 * named in the error, with the accepted list.
 */
export function nameListParam<const T extends string>(
  name: string,
  allowed: readonly T[],
  dflt: readonly T[],
  doc: { example: string; description: string },
) {
  const accepted = allowed.join(', ')
  return z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined || s.trim() === '') return [...dflt]
      const parts = s
        .split(',')
        .map((p) => p.trim().toLowerCase())
        .filter(Boolean)
      const bad = parts.filter((p) => !(allowed as readonly string[]).includes(p))
      if (bad.length) {
        ctx.addIssue({ code: 'custom', message: `unknown ${name}: ${bad.join(', ')}; accepted: ${accepted}` })
        return z.NEVER
      }
      return [...new Set(parts)] as T[]
    })
    .openapi({ type: 'string', ...doc })
}

/** `minlon,minlat,maxlon,maxlat`: four numbers in range, min below max; `maxSpan` bounds each side. */
export function bboxParam(name: string, maxSpan = Infinity) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${name} is required` : `${name} must be text`) })
    .transform((s, ctx): BBox => {
      const parts = s.split(',').map((p) => p.trim())
      const nums = parts.map((p) => (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(p) ? Number(p) : Number.NaN))
      const fail = (message: string) => {
        ctx.addIssue({ code: 'custom', message })
        return z.NEVER
      }
      if (parts.length !== 4 || nums.some((n) => !Number.isFinite(n)))
        return fail(`${name} must be four numbers minlon,minlat,maxlon,maxlat`)
      const [minX, minY, maxX, maxY] = nums
      if (minX < -180 || maxX > 180 || minY < -90 || maxY > 90)
        return fail(`${name} longitudes must be within -180..180 and latitudes within -90..90`)
      if (minX >= maxX || minY >= maxY)
        return fail(`${name} minimums must be below maximums (minlon,minlat,maxlon,maxlat)`)
      if (maxX - minX > maxSpan || maxY - minY > maxSpan)
        return fail(`${name} sides must be at most ${maxSpan}° (use /search with bbox, or /heatmap, for wider areas)`)
      return { minX, minY, maxX, maxY }
    })
    .openapi({
      type: 'string',
      example: '28.03,-26.21,28.06,-26.19',
      description: `minlon,minlat,maxlon,maxlat in WGS84 degrees${Number.isFinite(maxSpan) ? `; each side at most ${maxSpan}°` : ''}.`,
    })
}
