/**
 * The OGC API - Features Part 1 documents (OGC 17-069r4) as the facade answers them, and its
 * parameters: zod schemas that are at once the validation and the OpenAPI description.
 *
 * @module
 */
import { z } from '@hono/zod-openapi'
import { withFastPath } from '../fast-params.js'
import { FeatureCollectionSchema, GEOJSON_TYPE } from '../geojson.js'
import { bboxParam } from '../params.js'

/** `limit` when absent: the value of the standard's own OpenAPI building block. */
export const OGC_LIMIT_DEFAULT = 10
/** The most features a page holds; a larger `limit` is answered as this (OGC: not an error). */
export const OGC_LIMIT_MAX = 1000

/** The CRS of every position: WGS84 longitude, latitude (OGC API Features' default). */
export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84'

/** The conformance classes the facade implements (Part 1: core and GeoJSON). */
export const CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
] as const

const INTEGER = /^[+-]?\d+$/
const LIMIT_MESSAGE = 'limit must be a whole number of at least 1'
const limitOf = (raw: string): number | undefined => {
  const n = INTEGER.test(raw.trim()) ? Number(raw) : Number.NaN
  return Number.isSafeInteger(n) && n >= 1 ? Math.min(n, OGC_LIMIT_MAX) : undefined
}

/** `limit`: a whole number from 1; above {@link OGC_LIMIT_MAX} it is that maximum; absent {@link OGC_LIMIT_DEFAULT}. */
export const LimitParam = withFastPath(
  z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return OGC_LIMIT_DEFAULT
      const n = limitOf(s)
      if (n === undefined) {
        ctx.addIssue({ code: 'custom', message: LIMIT_MESSAGE })
        return z.NEVER
      }
      return n
    }),
  (raw) => {
    if (raw === undefined) return { value: OGC_LIMIT_DEFAULT }
    const n = limitOf(raw)
    return n === undefined ? undefined : { value: n }
  },
).openapi({
  type: 'integer',
  minimum: 1,
  // OGC API Features' convention, as its own OpenAPI building block: a larger value is not an
  // error, it is answered as the maximum (clients such as GDAL read the maximum as a page size)
  maximum: OGC_LIMIT_MAX,
  default: OGC_LIMIT_DEFAULT,
  description:
    `Features per page, from 1. A value above ${OGC_LIMIT_MAX} is not an error: it is answered as ${OGC_LIMIT_MAX} ` +
    '(OGC API Features); `numberReturned` says how many came.',
})

export const ItemsQuerySchema = z.object({
  limit: LimitParam,
  bbox: bboxParam('bbox').optional().openapi({
    type: 'string',
    example: '27.75,-26.175,27.76,-26.165',
    description:
      'minlon,minlat,maxlon,maxlat (CRS84, WGS84 degrees): only features whose geometry meets the box. Any size.',
  }),
  cursor: z
    .string()
    .max(512, 'cursor is not one this service issued')
    .optional()
    .openapi({
      type: 'string',
      description:
        'Where the page starts: opaque, issued in the `next` link of the previous page (follow that link rather ' +
        'than building it).',
    }),
})

const COLLECTION_ID = z
  .string()
  .max(64)
  .openapi({ param: { name: 'collectionId', in: 'path' }, type: 'string', example: 'parcels' })

export const CollectionParamsSchema = z.object({ collectionId: COLLECTION_ID })
export const ItemParamsSchema = z.object({
  collectionId: COLLECTION_ID,
  featureId: z
    .string()
    .max(64)
    .openapi({
      param: { name: 'featureId', in: 'path' },
      type: 'string',
      example: 'T0IR00010000001800001',
      description: 'The feature’s `id`: a parcel’s LPI, an encumbrance’s `encumbrance_uid`.',
    }),
})

export const OgcLinkSchema = z
  .object({
    href: z.string().openapi({ description: 'Absolute URL.' }),
    rel: z.string().openapi({ example: 'self' }),
    type: z.string().optional(),
    title: z.string().optional(),
  })
  .openapi('OgcLink')

const links = z.array(OgcLinkSchema)

export const LandingPageSchema = z
  .object({ title: z.string(), description: z.string(), links })
  .openapi('OgcLandingPage', {
    description:
      'Links: `self`, `service-desc` (this OpenAPI document), `service-doc` (/docs), `conformance`, `data` ' +
      '(the collections).',
  })

export const ConformanceSchema = z
  .object({ conformsTo: z.array(z.string()) })
  .openapi('OgcConformance', { description: `The classes implemented: ${CONFORMANCE.join(', ')}.` })

export const CollectionSchema = z
  .object({
    id: z.string().openapi({ example: 'parcels' }),
    title: z.string(),
    description: z.string(),
    extent: z
      .object({
        spatial: z.object({
          bbox: z
            .array(z.array(z.number()).length(4))
            .openapi({ description: 'west, south, east, north of the data.' }),
          crs: z.literal(CRS84),
        }),
      })
      .optional()
      .openapi({ description: 'Absent while the collection holds no feature.' }),
    itemType: z.literal('feature'),
    crs: z.array(z.literal(CRS84)),
    links,
  })
  .openapi('OgcCollection', { description: 'Links: `self`, `items` (GeoJSON).' })

export const CollectionsSchema = z.object({ links, collections: z.array(CollectionSchema) }).openapi('OgcCollections', {
  description: 'The collections this key may read and this deployment’s dataset holds.',
})

/** One Feature, as the GeoJSON answers give it (geojson.ts). */
export const FeatureSchema = FeatureCollectionSchema.shape.features.element

/** A page of items: a GeoJSON FeatureCollection with the members OGC API Features adds. */
export const ItemsSchema = z
  .object({
    type: z.literal('FeatureCollection'),
    features: z.array(FeatureSchema),
    numberReturned: z.number().int().openapi({ description: 'The features on this page.' }),
    numberMatched: z
      .number()
      .int()
      .optional()
      .openapi({
        description:
          'Every feature the query matches, on all pages: given only when it is known exactly and cheaply (the ' +
          'encumbrances without `bbox`).',
      }),
    timeStamp: z.string().openapi({ description: 'When the page was answered (RFC 3339, UTC).' }),
    links: links.openapi({
      description: `\`self\`, \`next\` while more remain (type ${GEOJSON_TYPE}), \`collection\`.`,
    }),
  })
  .openapi('OgcFeatureCollection', {
    description:
      'RFC 7946 FeatureCollection of one page: each Feature’s `id` is the record’s (a parcel’s LPI, an ' +
      'encumbrance’s uid), its properties the record’s fields made flat, as in the GeoJSON answers of the lists.',
  })
