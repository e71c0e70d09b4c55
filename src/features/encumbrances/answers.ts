/**
 * The encumbrance service's answers as zod schemas, for the OpenAPI document only: the handlers
 * build these shapes (records.ts and the route files), so nothing here runs per request.
 */
import { z } from '@hono/zod-openapi'
import { EASE_TYPES, ENCUMBRANCE_CLASSES } from '../../data/encumbrance-format.js'

const Envelope = { message: z.string(), as_of: z.string(), dataset_version: z.string() }
const GeoJsonGeometry = z.object({ type: z.string(), coordinates: z.array(z.any()) }).openapi('EncumbranceGeometry')

export const EncumbranceRecordSchema = z
  .object({
    encumbrance_uid: z.number().int(),
    encumbrance_class: z.string().openapi({ enum: [...ENCUMBRANCE_CLASSES] }),
    ease_type_normalised: z.string().openapi({ enum: [...EASE_TYPES] }),
    ease_type: z
      .string()
      .openapi({ description: 'Raw source value, always present ("" when the source left it blank).' }),
    sg_number: z.string().optional(),
    province: z.string(),
    extent_sqm: z
      .number()
      .optional()
      .openapi({ description: 'Areas: the source `geom_area`, else the computed area. Omitted for lines.' }),
    length_m: z.number().optional().openapi({ description: 'Lines: geodesic length.' }),
    width_m: z
      .number()
      .optional()
      .openapi({
        description:
          "A dimensioned servitude line's width: the encumbrance is its strip, the line buffered by half the width each " +
          'side with flat ends, and relationships and areas come from the strip.',
      }),
    date_stamp: z.string().optional(),
    record_status: z
      .string()
      .optional()
      .openapi({ description: 'CANCELLED, WITHDRAWN, HISTORIC or PENDING; absent on current records.' }),
    relationship: z
      .string()
      .optional()
      .openapi({
        enum: ['crosses', 'within', 'contains', 'touches'],
        description:
          "The encumbrance relative to the parcel or the caller's geometry: within = inside it, contains = covers " +
          'it, crosses = shares interior, touches = boundary only. A dimensioned line is judged by its strip.',
      }),
    overlap_sqm: z
      .number()
      .nullable()
      .optional()
      .openapi({ description: 'm² (geodesic); 0 on touches; null on an undimensioned servitude line, with `note`.' }),
    overlap_pct_of_parcel: z.number().optional(),
    overlap_m: z
      .number()
      .optional()
      .openapi({
        description:
          'Lines: length of the line inside the parcel or area (along the boundary for touches); routes: route ' +
          "length inside the encumbrance (a dimensioned line's strip).",
      }),
    note: z.string().optional(),
    distance_m: z.number().optional().openapi({ description: '/at only: metres from the point (0 inside).' }),
    geometry: GeoJsonGeometry.optional().openapi({
      description:
        'In parcel answers: the part inside the parcel (the whole encumbrance when within or touching, the parcel ' +
        'when the encumbrance covers it; for a dimensioned line that crosses, the piece of its strip). Elsewhere: the ' +
        'whole encumbrance.',
    }),
  })
  .openapi('Encumbrance')

export const ParcelEnvelopeSchema = z
  .object({
    encumbrances: z.array(EncumbranceRecordSchema),
    parcel: z.object({ lpi: z.string(), parcel_type: z.string(), province: z.string(), area_sqm: z.number() }),
    ...Envelope,
  })
  .openapi('EncumbranceParcelResponse')

export const SummarySchema = z
  .object({
    lpi: z.string(),
    province: z.string(),
    parcel_type: z.string(),
    has_encumbrances: z.boolean(),
    // the classes that occur, each once: a closed set of keys (a job's CSV has a column of each)
    counts_by_class: z.partialRecord(z.enum(ENCUMBRANCE_CLASSES), z.number().int()),
    classes: z.array(z.string()),
    highest_impact_pct: z.number(),
  })
  .openapi('EncumbranceSummary')
export const SummaryEnvelopeSchema = SummarySchema.extend(Envelope).openapi('EncumbranceSummaryResponse')

export const ListEnvelopeSchema = z
  .object({
    encumbrances: z.array(EncumbranceRecordSchema),
    count: z.number().int(),
    limit: z.number().int().optional(),
    next_cursor: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'Send as `cursor` for the next page; absent on the last page.' }),
    ...Envelope,
  })
  .openapi('EncumbranceList')

export const IntersectEnvelopeSchema = z
  .object({
    encumbrances: z.array(EncumbranceRecordSchema),
    parcels: z.array(
      z.object({
        lpi: z.string(),
        parcel_type: z.string(),
        province: z.string(),
        extent_sqm: z.number(),
        overlap_m: z.number().optional().openapi({ description: 'LineString: route length inside the parcel.' }),
        overlap_sqm: z.number().optional().openapi({ description: 'Polygon: area of the parcel inside the polygon.' }),
      }),
    ),
    geometry_type: z.string(),
    length_m: z.number().optional(),
    area_sqm: z.number().optional(),
    encumbrances_truncated: z.boolean(),
    parcels_truncated: z.boolean(),
    ...Envelope,
  })
  .openapi('EncumbranceIntersectResponse')

export const BatchEnvelopeSchema = z
  .object({
    results: z.array(SummarySchema.nullable()),
    found: z.number().int(),
    not_found: z.number().int(),
    ...Envelope,
  })
  .openapi('EncumbranceBatchResponse')

export const DetailEnvelopeSchema = z
  .object({
    encumbrance: EncumbranceRecordSchema,
    affected_parcels: z.array(
      z.object({
        lpi: z.string(),
        parcel_type: z.string(),
        province: z.string(),
        relationship: z.string(),
        overlap_sqm: z.number().nullable(),
        overlap_m: z.number().optional(),
        overlap_pct_of_parcel: z.number().optional(),
        note: z.string().optional(),
      }),
    ),
    ...Envelope,
  })
  .openapi('EncumbranceDetailResponse')

export const CoverageEnvelopeSchema = z
  .object({
    provinces: z.array(
      z.object({
        province: z.string(),
        classes: z.record(
          z.string(),
          z.object({
            records: z.number().int(),
            current: z.number().int(),
            not_current: z.number().int(),
            unspecified: z.number().int(),
            unlisted: z.number().int(),
            repaired: z.number().int(),
            rejected: z.number().int(),
            reoriented: z.number().int().openapi({
              description: 'Rows with rings wound clockwise (the ESRI convention), turned; not counted as repaired.',
            }),
            duplicates: z.number().int().openapi({
              description: 'Exact duplicates of an earlier row (same uid, fields and geometry), loaded once.',
            }),
          }),
        ),
        missing_classes: z.array(z.string()),
      }),
    ),
    totals: z.object({
      records: z.number().int(),
      current: z.number().int(),
      unspecified_share_of_servitude_areas: z.number(),
    }),
    caveats: z.array(z.string()),
    ...Envelope,
  })
  .openapi('EncumbranceCoverage')

export const HeatmapEnvelopeSchema = z
  .object({
    view: z.string().openapi({ enum: ['density', 'boundaries'] }),
    cell_deg: z.number().optional(),
    cells: z
      .array(
        z.object({
          west: z.number(),
          south: z.number(),
          east: z.number(),
          north: z.number(),
          count: z.number().int(),
          counts_by_class: z.record(z.string(), z.number().int()),
        }),
      )
      .optional(),
    type: z.string().optional(),
    features: z.array(z.any()).optional(),
    omitted: z
      .array(z.object({ encumbrance_class: z.string(), reason: z.string(), max_span_degrees: z.number() }))
      .optional(),
    truncated: z.boolean(),
    ...Envelope,
  })
  .openapi('EncumbranceHeatmap')
