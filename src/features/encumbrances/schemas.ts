import { z } from '@hono/zod-openapi'
import { EASE_TYPES, ENCUMBRANCE_CLASSES, RECORD_STATUSES } from '../../data/encumbrance-format.js'
import { LPI_PATTERN } from '../../data/parcels-format.js'
import { bboxParam, boundedFloatParam, intParam, LpiParam, nameListParam, ProvinceParam } from '../../http/params.js'
import { IntersectGeometrySchema } from './geometry-input.js'

export const BATCH_MAX = 500
export const PAGE_LIMIT_MAX = 1000
export const PAGE_LIMIT_DEFAULT = 100
export const AT_RADIUS_MAX_M = 1000
/** /within: the widest box side accepted, degrees (wider: /search with `bbox`, or /heatmap). */
export const WITHIN_MAX_DEG = 1

const CLASS_LIST = ENCUMBRANCE_CLASSES.join(', ')

/** A comma list of classes (case-insensitive); every unknown member is named. */
export function classesParam(name: string) {
  return nameListParam(name, ENCUMBRANCE_CLASSES, ENCUMBRANCE_CLASSES, {
    example: 'servitude_area,servitude_line',
    description: `Comma list of classes (${CLASS_LIST}), case-insensitive. Default: all.`,
  })
}

const cursorParam = intParam('cursor', 0, Number.MAX_SAFE_INTEGER, 0).openapi({
  type: 'integer',
  minimum: 0,
  default: 0,
  description: "Send the previous answer's `next_cursor` for the next page (records are in source order).",
})
const limitParam = intParam('limit', 1, PAGE_LIMIT_MAX, PAGE_LIMIT_DEFAULT).openapi({
  type: 'integer',
  minimum: 1,
  maximum: PAGE_LIMIT_MAX,
  default: PAGE_LIMIT_DEFAULT,
})

export const EncLpiParamsSchema = z.object({ lpi: LpiParam })
export const UidParamsSchema = z.object({
  encumbrance_uid: z
    .string()
    .refine((s) => /^\d{1,15}$/.test(s.trim()) && Number(s) >= 1, {
      message: 'encumbrance_uid must be a positive whole number',
    })
    .transform((s) => Number(s))
    .openapi({ param: { name: 'encumbrance_uid', in: 'path' }, type: 'integer', minimum: 1, example: 1 }),
})

export const AtQuerySchema = z.object({
  latitude: boundedFloatParam('latitude', -90, 90).openapi({ example: -26.2041 }),
  longitude: boundedFloatParam('longitude', -180, 180).openapi({ example: 28.0473 }),
  radius_m: intParam('radius_m', 0, AT_RADIUS_MAX_M, 0).openapi({
    type: 'integer',
    minimum: 0,
    maximum: AT_RADIUS_MAX_M,
    default: 0,
    description:
      'Metres around the point (geodesic). 0: only encumbrances containing the point (a dimensioned line by its ' +
      'strip; an undimensioned line only when the point lies on it).',
  }),
  encumbrance_class: classesParam('encumbrance_class'),
})

export const WithinQuerySchema = z.object({
  bbox: bboxParam('bbox', WITHIN_MAX_DEG),
  encumbrance_class: classesParam('encumbrance_class'),
  limit: limitParam,
  cursor: cursorParam,
})

const SG_PATTERN = /^[A-Za-z0-9/ .\-*]+$/
export const SearchQuerySchema = z.object({
  province: ProvinceParam.optional().openapi({ type: 'string', example: 'GP' }),
  encumbrance_class: classesParam('encumbrance_class'),
  ease_type: z
    .string()
    .refine((s) => s.trim().length >= 1 && s.length <= 60, { message: 'ease_type must be 1 to 60 characters' })
    .optional()
    .openapi({
      type: 'string',
      example: 'PIPELINE',
      description: 'Raw source value, matched trimmed and case-insensitively.',
    }),
  ease_type_normalised: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .refine((s) => (EASE_TYPES as readonly string[]).includes(s), {
      message: `ease_type_normalised must be one of ${EASE_TYPES.join(', ')}`,
    })
    .optional()
    .openapi({ type: 'string', enum: [...EASE_TYPES] }),
  sg_number: z
    .string()
    .transform((s) => s.trim())
    .refine((s) => s.length >= 1 && s.length <= 40, { message: 'sg_number must be 1 to 40 characters' })
    .refine((s) => SG_PATTERN.test(s), {
      message: 'sg_number may hold letters, digits, / - . space and * wildcards only',
    })
    .refine((s) => (s.match(/\*/g) ?? []).length <= 3, { message: 'sg_number may hold at most 3 * wildcards' })
    .refine((s) => !s.includes('*') || s.replace(/\*/g, '').length >= 2, {
      message: 'a sg_number wildcard needs at least 2 other characters',
    })
    .optional()
    .openapi({
      type: 'string',
      example: '*/1987',
      description:
        'Exact, or with `*` wildcards (any run of characters), e.g. `1234/*` or `*/1987`. Case-sensitive as stored.',
    }),
  record_status: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .refine((s) => s === 'ANY' || s === 'CURRENT' || (RECORD_STATUSES as readonly string[]).includes(s), {
      message: `record_status must be any, current or one of ${RECORD_STATUSES.join(', ')}`,
    })
    .transform((s) => (s === 'ANY' ? 'any' : s === 'CURRENT' ? 'current' : s))
    .optional()
    .openapi({
      type: 'string',
      enum: ['any', 'current', ...RECORD_STATUSES],
      default: 'current',
      description:
        'Omitted or `current`: current records only. `any`: every record, cancelled, withdrawn, historic and ' +
        'pending included. A status: only those.',
    }),
  bbox: bboxParam('bbox').optional(),
  limit: limitParam,
  cursor: cursorParam,
})

const lonLat = boundedFloatParam
export const HEATMAP_VIEWS = ['auto', 'density', 'boundaries'] as const
export const HeatmapQuerySchema = z
  .object({
    north: lonLat('north', -90, 90),
    south: lonLat('south', -90, 90),
    east: lonLat('east', -180, 180),
    west: lonLat('west', -180, 180),
    view: z
      .string()
      .transform((s) => s.trim().toLowerCase())
      .refine((s) => (HEATMAP_VIEWS as readonly string[]).includes(s), {
        message: `view must be one of ${HEATMAP_VIEWS.join(', ')}`,
      })
      .transform((s) => s as (typeof HEATMAP_VIEWS)[number])
      .optional()
      .openapi({ type: 'string', enum: [...HEATMAP_VIEWS], default: 'auto' }),
    classes: classesParam('classes'),
  })
  .superRefine((q, ctx) => {
    if (q.south >= q.north) ctx.addIssue({ code: 'custom', path: ['south'], message: 'south must be below north' })
    if (q.west >= q.east) ctx.addIssue({ code: 'custom', path: ['west'], message: 'west must be below east' })
  })

export const TileQuerySchema = z.object({ classes: classesParam('classes') })

// ---- bodies
const finite = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .refine((n) => Number.isFinite(n), { message: `${name} must be finite` })
const BatchItemSchema = z
  .object({
    lpi: z
      .string({ error: 'lpi must be a string' })
      .transform((s) => s.trim().toUpperCase())
      .refine((s) => LPI_PATTERN.test(s), { message: 'lpi must be a 21-character SG key' })
      .optional(),
    latitude: finite('latitude')
      .refine((n) => n >= -90 && n <= 90, { message: 'latitude must be between -90 and 90' })
      .optional(),
    longitude: finite('longitude')
      .refine((n) => n >= -180 && n <= 180, { message: 'longitude must be between -180 and 180' })
      .optional(),
  })
  .superRefine((it, ctx) => {
    const point = it.latitude !== undefined || it.longitude !== undefined
    if (it.lpi !== undefined && point)
      ctx.addIssue({ code: 'custom', message: 'give either lpi or latitude and longitude, not both' })
    else if (it.lpi === undefined && !point)
      ctx.addIssue({ code: 'custom', message: 'each item needs lpi, or latitude and longitude' })
    else if (point && it.latitude === undefined)
      ctx.addIssue({ code: 'custom', path: ['latitude'], message: 'latitude is required with longitude' })
    else if (point && it.longitude === undefined)
      ctx.addIssue({ code: 'custom', path: ['longitude'], message: 'longitude is required with latitude' })
  })
  .openapi('EncumbranceBatchItem', { description: '`{lpi}` or `{latitude, longitude}`.' })

const itemsArray = z
  .array(BatchItemSchema, { error: 'the body must be a JSON array of items, or {"items": [...]}' })
  .min(1, 'send at least one item')
  .max(BATCH_MAX, `at most ${BATCH_MAX} items per call`)
// a bare array or {"items": [...]}: unwrapped before validation, so item errors read `3.lpi` either way
export const BatchBodySchema = z
  .preprocess(
    (b) => (b && typeof b === 'object' && !Array.isArray(b) && 'items' in b ? (b as { items: unknown }).items : b),
    itemsArray,
  )
  .openapi({
    description:
      `A JSON array of 1 to ${BATCH_MAX} items (or \`{"items": [...]}\`), each \`{"lpi": "…"}\` or ` +
      `\`{"latitude": …, "longitude": …}\`.`,
    example: [{ lpi: 'T0IR00010000000100000' }, { latitude: -26.2041, longitude: 28.0473 }],
  })

/**
 * The /intersect body. Its geometry is checked in geometry-input.ts: the form here, the rest by
 * the route with parseInputGeometry (GeoJSON problems need their own messages).
 */
export const IntersectBodySchema = z
  .object({
    geometry: IntersectGeometrySchema,
    encumbrance_class: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .openapi({ description: 'Classes to screen (comma list or array); default all.' }),
    include_geometry: z
      .boolean({ error: 'include_geometry must be true or false' })
      .optional()
      .openapi({
        description:
          'Default true: each encumbrance carries its whole geometry, as its record does elsewhere. false leaves ' +
          'the geometries out (a 200 km route can meet hundreds of corridor strips: megabytes); fetch one with ' +
          '/encumbrances/{uid}.',
      }),
  })
  .openapi('EncumbranceIntersectRequest', {
    example: {
      geometry: {
        type: 'LineString',
        coordinates: [
          [28.0, -26.2],
          [28.1, -26.25],
        ],
      },
    },
  })
