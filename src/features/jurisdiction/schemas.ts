import { z } from '@hono/zod-openapi'
import { isValidIsoDate } from '../../auth/dates.js'
import { BOUNDARY_TYPES, type BoundaryType } from '../../data/jurisdiction-format.js'
import { LPI_PATTERN } from '../../data/parcels-format.js'
import {
  BatchPointSchema,
  boundedFloatParam,
  floatParam,
  intParam,
  nameListParam,
  ProvinceParam,
  upperEnumParam,
} from '../../http/params.js'

export const BATCH_MAX = 5000
export const LIST_LIMIT_MAX = 1000
export const LIST_LIMIT_DEFAULT = 100
export const SEARCH_LIMIT_MAX = 100
export const SEARCH_LIMIT_DEFAULT = 20
export const SIMPLIFY_MAX_M = 10_000
/** The municipal chain drawn when `types` is omitted from /heatmap. */
export const HEATMAP_DEFAULT_TYPES: readonly BoundaryType[] = [
  'province',
  'district_municipality',
  'local_municipality',
]
/** /tiles without `layers`. */
export const TILE_DEFAULT_LAYERS: readonly BoundaryType[] = [
  'province',
  'district_municipality',
  'local_municipality',
  'ward',
]

const TYPE_LIST = BOUNDARY_TYPES.join(', ')
const TYPE_DOC = `One of ${BOUNDARY_TYPES.map((t) => `\`${t}\``).join(', ')} (case-insensitive).`

export const AsAtParam = z
  .string()
  .refine((s) => isValidIsoDate(s.trim()), { message: 'as_at must be a real calendar date written YYYY-MM-DD' })
  .transform((s) => s.trim())
  .optional()
  .openapi({
    type: 'string',
    format: 'date',
    example: '2019-06-01',
    description:
      'The date the answer applies to (boundaries whose `effective_from` ≤ date < `effective_to`). Omitted: today ' +
      'in South Africa (Africa/Johannesburg).',
  })

export const BoundaryTypeParam = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .refine((s): s is BoundaryType => (BOUNDARY_TYPES as readonly string[]).includes(s), {
    message: `boundary_type must be one of ${TYPE_LIST}`,
  })
  .transform((s) => s as BoundaryType)
  .openapi({
    param: { name: 'boundary_type', in: 'path' },
    type: 'string',
    enum: [...BOUNDARY_TYPES],
    description: TYPE_DOC,
  })

/** A comma list of boundary types; every unknown member is named. */
export function typesParam(name: string, dflt: readonly BoundaryType[]) {
  return nameListParam(name, BOUNDARY_TYPES, dflt, {
    example: dflt.join(','),
    description: `Comma list of boundary types (${TYPE_LIST}). Default: ${dflt.join(',')}.`,
  })
}

export const CodeParam = z
  .string()
  .transform((s) => s.trim().toUpperCase())
  .refine((s) => /^[A-Z0-9][A-Z0-9_-]{0,39}$/.test(s), { message: 'code must be 1 to 40 letters, digits, - or _' })
  .openapi({
    param: { name: 'code', in: 'path' },
    type: 'string',
    example: 'JHB',
    description: 'Boundary code (ward id, municipality code, division code…), case-insensitive.',
  })

export const AtQuerySchema = z.object({
  lat: floatParam('lat', -90, 90).openapi({ type: 'number', minimum: -90, maximum: 90, example: -26.2041 }),
  lon: floatParam('lon', -180, 180).openapi({ type: 'number', minimum: -180, maximum: 180, example: 28.0473 }),
  as_at: AsAtParam,
})

export const LpiParamsSchema = z.object({
  lpi: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .refine((s) => s.length === 21 && LPI_PATTERN.test(s), {
      message: 'lpi must be a 21-character SG key such as T0IR00010000000100000',
    })
    .openapi({
      param: { name: 'lpi', in: 'path' },
      type: 'string',
      description: '21-character land parcel identifier (SG21).',
    }),
})
export const AsAtQuerySchema = z.object({ as_at: AsAtParam })

export const BatchBodySchema = z.object({
  points: z
    .array(BatchPointSchema, { error: 'points must be an array of {latitude, longitude}' })
    .min(1, 'send at least one point')
    .max(BATCH_MAX, `at most ${BATCH_MAX} points per call`),
  as_at: z
    .string({ error: 'as_at must be a YYYY-MM-DD string' })
    .refine((s) => isValidIsoDate(s), { message: 'as_at must be a real calendar date written YYYY-MM-DD' })
    .optional(),
})

export const BoundaryTypeParamsSchema = z.object({ boundary_type: BoundaryTypeParam })
export const BoundaryParamsSchema = z.object({ boundary_type: BoundaryTypeParam, code: CodeParam })

export const ListQuerySchema = z.object({
  province: ProvinceParam.optional().openapi({
    type: 'string',
    example: 'GP',
    description: 'Province family code: only boundaries in this province.',
  }),
  municipality: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .optional()
    .openapi({
      type: 'string',
      example: 'JHB',
      description: 'Parent municipality code (local, metro or district): only boundaries below it.',
    }),
  parent: z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .optional()
    .openapi({ type: 'string', example: 'DC48', description: 'A parent code at any level: only boundaries below it.' }),
  as_at: AsAtParam,
  limit: intParam('limit', 1, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT).openapi({
    type: 'integer',
    minimum: 1,
    maximum: LIST_LIMIT_MAX,
    default: LIST_LIMIT_DEFAULT,
  }),
  cursor: intParam('cursor', 0, Number.MAX_SAFE_INTEGER, 0).openapi({
    type: 'integer',
    minimum: 0,
    default: 0,
    description: 'Offset into the list (ordered by code). The answer carries `next_cursor` while more remain.',
  }),
})

export const GeometryQuerySchema = z.object({
  format: upperEnumParam('format', ['GEOJSON', 'WKT'] as const)
    .optional()
    .openapi({ type: 'string', enum: ['geojson', 'wkt'], default: 'geojson' }),
  simplify: intParam('simplify', 1, SIMPLIFY_MAX_M).optional().openapi({
    type: 'integer',
    minimum: 1,
    maximum: SIMPLIFY_MAX_M,
    description: 'Topology-preserving tolerance in metres; omitted: full resolution.',
  }),
  as_at: AsAtParam,
})

export const SearchQuerySchema = z.object({
  q: z
    .string({ error: 'q is required' })
    .refine((s) => [...s.trim()].length >= 2, { message: 'q must be at least 2 characters' })
    .refine((s) => [...s.trim()].length <= 120, { message: 'q must be at most 120 characters' })
    .transform((s) => s.trim())
    .openapi({ type: 'string', minLength: 2, maxLength: 120, example: 'tshwan' }),
  types: typesParam('types', BOUNDARY_TYPES),
  as_at: AsAtParam,
  limit: intParam('limit', 1, SEARCH_LIMIT_MAX, SEARCH_LIMIT_DEFAULT).openapi({
    type: 'integer',
    minimum: 1,
    maximum: SEARCH_LIMIT_MAX,
    default: SEARCH_LIMIT_DEFAULT,
  }),
})

const lonLat = boundedFloatParam
export const HeatmapQuerySchema = z
  .object({
    north: lonLat('north', -90, 90),
    south: lonLat('south', -90, 90),
    east: lonLat('east', -180, 180),
    west: lonLat('west', -180, 180),
    types: typesParam('types', HEATMAP_DEFAULT_TYPES),
    as_at: AsAtParam,
  })
  .superRefine((q, ctx) => {
    if (q.south > q.north)
      ctx.addIssue({ code: 'custom', path: ['south'], message: 'south must not be greater than north' })
    if (q.west > q.east) ctx.addIssue({ code: 'custom', path: ['west'], message: 'west must not be greater than east' })
  })

export const TileQuerySchema = z.object({ layers: typesParam('layers', TILE_DEFAULT_LAYERS), as_at: AsAtParam })
