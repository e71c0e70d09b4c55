import { z } from '@hono/zod-openapi'
import { LPI_PATTERN, PARCEL_TYPES, SOURCE_KEY_PATTERN } from '../../data/parcels-format.js'
import {
  BatchPointSchema,
  boundedFloatParam,
  intParam,
  LatitudeParam,
  LongitudeParam,
  LpiParam,
  nameListParam,
  upperEnumParam,
} from '../../http/params.js'
import { PARCEL_TILE_LAYERS } from './tiles.js'

export const BATCH_MAX = 1000
export const NEAREST_MAX_M = 2000
export const WITHIN_MAX_DEG = 0.05
export const PAGE_SIZE_MAX = 500
export const PAGE_SIZE_DEFAULT = 100

const ParcelTypeParam = upperEnumParam('parcel_type', PARCEL_TYPES as [string, ...string[]])
  .optional()
  .openapi({ type: 'string', enum: PARCEL_TYPES, description: 'Restrict to one layer (case-insensitive).' })

export const IncludeStatusParam = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .refine((s) => s === 'all', { message: 'include_status must be all (or omitted for the default filter)' })
  .optional()
  .openapi({
    type: 'string',
    enum: ['all'],
    description:
      'Omitted: records with legal status A or W, or work status H, are hidden (a blank work status counts as ' +
      'current). `all`: every record, history included.',
  })

export const LpiParamsSchema = z.object({ lpi: LpiParam })

/** `/parcels/tiles` and its TileJSON: the layers (lower-case parcel types), default all. */
export const TileQuerySchema = z.object({
  layers: nameListParam('layers', PARCEL_TILE_LAYERS, PARCEL_TILE_LAYERS, {
    example: 'erf,street',
    description: `Comma list of layers (${PARCEL_TILE_LAYERS.join(', ')}), case-insensitive. Default: all.`,
  }),
})

/** A 26-character Surveyor-General parcel key, in the path or the query. */
const sourceKeyParam = (where: 'path' | 'query') =>
  z
    .string()
    .transform((s) => s.trim().toUpperCase())
    .refine((s) => SOURCE_KEY_PATTERN.test(s), { message: 'source_key must be 26 letters or digits' })
    .openapi({
      param: { name: 'source_key', in: where },
      type: 'string',
      description: '26-character Surveyor-General parcel key.',
    })

/** `/parcels/by-key/{source_key}`: the spec's form, answered but not in the OpenAPI document. */
export const SourceKeyParamsSchema = z.object({ source_key: sourceKeyParam('path') })

export const AtQuerySchema = z.object({
  latitude: LatitudeParam,
  longitude: LongitudeParam,
  parcel_type: ParcelTypeParam,
  include_status: IncludeStatusParam,
})

export const StatusQuerySchema = z.object({ include_status: IncludeStatusParam })

/** `/parcels/by-key?source_key=`: the documented form of the lookup by Surveyor-General key. */
export const SourceKeyQuerySchema = z.object({
  source_key: sourceKeyParam('query'),
  include_status: IncludeStatusParam,
})

export const GeometryQuerySchema = z.object({
  format: upperEnumParam('format', ['GEOJSON', 'WKT'] as const)
    .optional()
    .openapi({ type: 'string', enum: ['geojson', 'wkt'], default: 'geojson' }),
  simplify: intParam('simplify', 1, 1000)
    .optional()
    .openapi({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      description:
        'Tolerance in metres; topology-preserving (never an empty, collapsed or self-intersecting ring). Omitted: ' +
        'full resolution.',
    }),
  include_status: IncludeStatusParam,
})

/** The most neighbours one answer lists. */
export const NEIGHBOURS_LIMIT_MAX = 500

export const NeighboursQuerySchema = z.object({
  mode: upperEnumParam('mode', ['TOUCHING', 'WITHIN'] as const)
    .optional()
    .openapi({
      type: 'string',
      enum: ['touching', 'within'],
      default: 'touching',
      description:
        '`touching`: sharing a boundary segment of positive length (one shared vertex does not count). `within`: ' +
        'within `distance` metres.',
    }),
  distance: intParam('distance', 1, 5000, 100).openapi({
    type: 'integer',
    minimum: 1,
    maximum: 5000,
    default: 100,
    description: 'For `within`: metres, geodesic.',
  }),
  limit: intParam('limit', 1, NEIGHBOURS_LIMIT_MAX, 100).openapi({
    type: 'integer',
    minimum: 1,
    maximum: NEIGHBOURS_LIMIT_MAX,
    default: 100,
  }),
  include_status: IncludeStatusParam,
})

const coord = boundedFloatParam

export const WithinQuerySchema = z
  .object({
    min_lat: coord('min_lat', -90, 90),
    min_lng: coord('min_lng', -180, 180),
    max_lat: coord('max_lat', -90, 90),
    max_lng: coord('max_lng', -180, 180),
    page_size: intParam('page_size', 1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT).openapi({
      type: 'integer',
      minimum: 1,
      maximum: PAGE_SIZE_MAX,
      default: PAGE_SIZE_DEFAULT,
      description: 'Parcels per page.',
    }),
    cursor: z.string().max(512, 'cursor is not one this service issued').optional().openapi({
      type: 'string',
      description: 'The `next_cursor` of the previous page, sent with the same box and filters.',
    }),
    parcel_type: ParcelTypeParam,
    include_status: IncludeStatusParam,
  })
  .superRefine((q, ctx) => {
    if (q.min_lat > q.max_lat)
      ctx.addIssue({ code: 'custom', path: ['min_lat'], message: 'min_lat must not be greater than max_lat' })
    if (q.min_lng > q.max_lng)
      ctx.addIssue({ code: 'custom', path: ['min_lng'], message: 'min_lng must not be greater than max_lng' })
    if (q.max_lat - q.min_lat > WITHIN_MAX_DEG + 1e-12)
      ctx.addIssue({
        code: 'custom',
        path: ['max_lat'],
        message: `the box may span at most ${WITHIN_MAX_DEG} degrees of latitude`,
      })
    if (q.max_lng - q.min_lng > WITHIN_MAX_DEG + 1e-12)
      ctx.addIssue({
        code: 'custom',
        path: ['max_lng'],
        message: `the box may span at most ${WITHIN_MAX_DEG} degrees of longitude`,
      })
  })

export const BatchBodySchema = z
  .object({
    points: z
      .array(BatchPointSchema, { error: 'points must be an array of {latitude, longitude}' })
      .min(1, 'send at least one point')
      .max(BATCH_MAX, `at most ${BATCH_MAX} items per call`)
      .optional(),
    lpis: z
      .array(
        z
          .string({ error: 'each lpi must be a string' })
          .transform((s) => s.trim().toUpperCase())
          .refine((s) => LPI_PATTERN.test(s), { message: 'not a 21-character LPI' }),
        { error: 'lpis must be an array of strings' },
      )
      .min(1, 'send at least one LPI')
      .max(BATCH_MAX, `at most ${BATCH_MAX} items per call`)
      .optional(),
    include_status: z.literal('all', { error: 'include_status must be "all" or omitted' }).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.points && b.lpis)
      ctx.addIssue({ code: 'custom', path: ['lpis'], message: 'send either points or lpis, not both' })
    if (!b.points && !b.lpis) ctx.addIssue({ code: 'custom', path: ['points'], message: 'send points or lpis' })
  })
  .openapi('ParcelBatchRequest', {
    description:
      `Either \`points\` or \`lpis\`, 1 to ${BATCH_MAX} items. Points resolve to the most specific ` +
      `published parcel containing them; LPIs to their current record.`,
    example: { points: [{ latitude: -33.9249, longitude: 18.4241 }] },
  })

// ---- responses

const Status = z.object({ code: z.string(), label: z.string() })

export const ParcelSchema = z
  .object({
    id: z.number().int(),
    parcel_type: z.enum(PARCEL_TYPES as [string, ...string[]]),
    province: z.string().openapi({ description: 'Province name, upper-case.' }),
    source_key: z.string().optional().openapi({ description: '26 characters; omitted when the source has none.' }),
    dataset_version: z.string(),
    lpi: z.string(),
    parcel_number: z.number().int().optional(),
    portion: z.number().int().optional(),
    tag_value: z.string().optional(),
    major_region: z.string().optional(),
    major_code: z.string().optional(),
    minor_region: z.string().optional().openapi({ description: 'Township; omitted for parcels without one.' }),
    minor_code: z.string().optional(),
    legal_status: Status,
    work_status: Status.optional().openapi({
      description: 'Omitted when the source recorded none (treated as current).',
    }),
    extent_sqm: z.number(),
    label_point: z.object({ latitude: z.number(), longitude: z.number() }),
    date_stamp: z.string().optional(),
  })
  .openapi('Parcel')

export const NearestParcelSchema = ParcelSchema.extend({ distance_meters: z.number() }).openapi('NearestParcel')

export const LookupEnvelopeSchema = z
  .object({
    parcels: z.array(ParcelSchema),
    message: z.string(),
    dataset_version: z.string(),
    next_cursor: z.string().optional(),
  })
  .openapi('ParcelLookup')

export const GeometryEnvelopeSchema = z
  .object({
    parcel: ParcelSchema,
    format: z.enum(['geojson', 'wkt']),
    geometry: z.union([
      z.object({ type: z.literal('MultiPolygon'), coordinates: z.array(z.array(z.array(z.array(z.number())))) }),
      z.string(),
    ]),
    dataset_version: z.string(),
    message: z.string(),
  })
  .openapi('ParcelGeometry')

export const NeighboursEnvelopeSchema = z
  .object({
    parcel: ParcelSchema,
    mode: z.enum(['touching', 'within']),
    neighbours: z.array(
      z.object({
        parcel: ParcelSchema,
        distance_meters: z.number().openapi({ description: 'Geodesic gap between the boundaries; 0 when they touch.' }),
        shared_boundary_meters: z
          .number()
          .openapi({ description: 'Length of boundary the two share; 0 for `within` neighbours that do not touch.' }),
      }),
    ),
    dataset_version: z.string(),
    message: z.string(),
  })
  .openapi('ParcelNeighbours')

export const BeaconsEnvelopeSchema = z
  .object({
    parcel: ParcelSchema,
    beacons: z.array(
      z.object({
        beacon_id: z.string(),
        name: z.string().optional(),
        description: z.string().optional(),
        latitude: z.number(),
        longitude: z.number(),
        ring_position: z.number().openapi({
          description: 'Fraction (0 to 1) of the exterior ring length from its first vertex, RFC 7946 winding.',
        }),
        date_stamp: z.string().optional(),
      }),
    ),
    dataset_version: z.string(),
    message: z.string(),
  })
  .openapi('ParcelBeacons')

export const GeneralPlansEnvelopeSchema = z
  .object({
    parcel: ParcelSchema,
    general_plans: z.array(
      z.object({
        sg_number: z.string().openapi({ example: '1234/1987' }),
        description: z.string().optional(),
        date_stamp: z.string().optional(),
      }),
    ),
    dataset_version: z.string(),
    message: z.string(),
  })
  .openapi('ParcelGeneralPlans')

export const CoverageEnvelopeSchema = z
  .object({
    coverage: z.array(
      z.object({
        province: z.string().openapi({ description: 'Province code (EC, FS, GP, KZ, LP, MP, NC, NW, WC).' }),
        province_name: z.string(),
        layer: z.string().openapi({ description: 'A parcel_type, or BEACON / GENERAL_PLAN.' }),
        present: z.boolean().openapi({
          description: 'false: the export has no such layer for the province (e.g. holdings in the Western Cape).',
        }),
        records: z.number().int(),
        geometries_repaired: z.number().int(),
        rows_rejected: z.number().int(),
        rings_reoriented: z
          .number()
          .int()
          .openapi({
            description:
              'Rows whose rings were wound clockwise (the ESRI convention) and turned; not repairs, and not counted in ' +
              'geometries_repaired.',
          }),
        duplicates_dropped: z.number().int().openapi({
          description: 'Exact duplicates of an earlier row (every field and the geometry), loaded once.',
        }),
        dataset_version: z.string(),
        loaded_at: z.string().openapi({
          description:
            "When the served build was written by build-index (its manifest's time, ISO 8601); not the server's start.",
        }),
      }),
    ),
    as_of: z.string(),
    dataset_version: z.string(),
    message: z.string(),
  })
  .openapi('ParcelCoverage')

export const BatchEnvelopeSchema = z
  .object({
    results: z.array(ParcelSchema.nullable()),
    found: z.number().int(),
    not_found: z.number().int(),
    dataset_version: z.string(),
    message: z.string(),
  })
  .openapi('ParcelBatch')
