/**
 * The jurisdiction service's answers as zod schemas, for the OpenAPI document only: the handlers
 * build these shapes (records.ts and the route files), so nothing here runs per request.
 */
import { z } from '@hono/zod-openapi'
import { CHAIN_TYPES } from '../../data/jurisdiction-format.js'

const LinkSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    category: z
      .string()
      .optional()
      .openapi({ description: '`A`/`B`/`C` on municipalities, `ADMIN` on registration divisions; absent otherwise.' }),
    vintage: z.string().openapi({ example: '2018 demarcation' }),
    effective_from: z
      .string()
      .optional()
      .openapi({ description: 'On demarcation and delimitation layers: the date the boundary took force.' }),
  })
  .openapi('JurisdictionLink')

export const ChainSchema = z
  .object(
    Object.fromEntries(CHAIN_TYPES.map((t) => [t, LinkSchema.nullable()])) as Record<
      (typeof CHAIN_TYPES)[number],
      z.ZodNullable<typeof LinkSchema>
    >,
  )
  .openapi('JurisdictionChain')

const Envelope = { message: z.string(), as_of: z.string(), dataset_version: z.string() }
export const ChainEnvelopeSchema = z
  .object({ jurisdiction: ChainSchema, notes: z.array(z.string()), as_at: z.string(), ...Envelope })
  .openapi('JurisdictionChainResponse')
export const ParcelChainEnvelopeSchema = z
  .object({
    lpi: z.string(),
    label_point: z.object({ latitude: z.number(), longitude: z.number() }),
    jurisdiction: ChainSchema,
    notes: z.array(z.string()),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('JurisdictionParcelResponse')
export const BatchEnvelopeSchema = z
  .object({
    results: z.array(z.object({ jurisdiction: ChainSchema, notes: z.array(z.string()) }).nullable()),
    found: z.number().int(),
    not_found: z.number().int(),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('JurisdictionBatchResponse')

export const BoundaryRecordSchema = z
  .object({
    boundary_type: z.string(),
    code: z.string(),
    name: z.string(),
    category: z.string().optional(),
    province: z.string().optional().openapi({ description: 'Province code (EC, FS, GP, KZ, LP, MP, NC, NW, WC).' }),
    parent: z.object({ boundary_type: z.string(), code: z.string(), name: z.string() }).optional(),
    vintage: z.string(),
    set: z.string().openapi({ description: 'The source set folder (e.g. `2011`, `2020`, `register`).' }),
    effective_from: z.string().optional(),
    effective_to: z.string().optional().openapi({ description: 'Exclusive; absent while in force.' }),
    ward_number: z.number().int().optional(),
    area_sqm: z.number().optional().openapi({ description: 'Geodesic area, square metres.' }),
    bbox: z.array(z.number()).optional().openapi({ description: '[west, south, east, north]' }),
    label_point: z.object({ latitude: z.number(), longitude: z.number() }).optional(),
    has_geometry: z
      .boolean()
      .openapi({ description: 'False for records published without geometry (the 2016 ward delimitation).' }),
  })
  .openapi('BoundaryRecord')

export const ListEnvelopeSchema = z
  .object({
    boundary_type: z.string(),
    boundaries: z.array(BoundaryRecordSchema),
    total: z.number().int(),
    cursor: z.number().int(),
    limit: z.number().int(),
    next_cursor: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Present while more remain: send it as `cursor`.' }),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('BoundaryList')
export const DetailEnvelopeSchema = z
  .object({
    boundary: BoundaryRecordSchema.extend({
      ancestors: z.array(z.object({ boundary_type: z.string(), code: z.string(), name: z.string() })),
      children_count: z.number().int(),
      other_versions: z.array(
        z.object({
          set: z.string(),
          vintage: z.string(),
          effective_from: z.string().optional(),
          effective_to: z.string().optional(),
        }),
      ),
    }),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('BoundaryDetail')
export const GeometryEnvelopeSchema = z
  .object({
    boundary: BoundaryRecordSchema,
    format: z.enum(['geojson', 'wkt']),
    geometry: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .openapi({ description: 'GeoJSON MultiPolygon (longitude first) or WKT text.' }),
    simplified_m: z.number().int().optional(),
    vertices: z.number().int(),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('BoundaryGeometry')
export const ChildrenEnvelopeSchema = z
  .object({ boundary: BoundaryRecordSchema, children: z.array(BoundaryRecordSchema), as_at: z.string(), ...Envelope })
  .openapi('BoundaryChildren')
export const SearchEnvelopeSchema = z
  .object({
    query: z.string(),
    matches: z.array(
      BoundaryRecordSchema.extend({
        similarity: z.number().openapi({ description: 'pg_trgm similarity 0–1 (1 for an exact code).' }),
      }),
    ),
    threshold: z.number(),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('BoundarySearch')
export const CoverageEnvelopeSchema = z
  .object({
    layers: z.array(
      z.object({
        boundary_type: z.string(),
        in_force: z.number().int().openapi({ description: 'Boundaries of this type in force today.' }),
        provinces: z.array(z.string()),
        sets: z.array(
          z.object({
            set: z.string(),
            vintage: z.string(),
            count: z.number().int(),
            effective_from: z.string().optional(),
            effective_to: z.string().optional(),
            geometry: z.boolean(),
            source: z.string().optional(),
            rejected: z.number().int(),
            repaired: z.number().int(),
          }),
        ),
      }),
    ),
    known_gaps: z.array(z.string()),
    earliest_as_at: z.string().optional(),
    ...Envelope,
  })
  .openapi('JurisdictionCoverage')
export const HeatmapEnvelopeSchema = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(z.record(z.string(), z.unknown())),
    types: z.array(z.string()),
    omitted: z.array(z.object({ boundary_type: z.string(), reason: z.string(), max_span_degrees: z.number() })),
    simplified_m: z.number(),
    truncated: z.boolean(),
    as_at: z.string(),
    ...Envelope,
  })
  .openapi('JurisdictionHeatmap')
