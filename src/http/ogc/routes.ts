/**
 * OGC API - Features Part 1 (core, GeoJSON) over the API's own lists, read-only, under
 * `/api/v1/ogc` (docs/api.md "OGC API - Features (GDAL, QGIS)"): the landing page, the
 * conformance classes, the collections and their items, a page at a time along `next` links.
 * GDAL's OAPIF driver (so QGIS) reads a collection whole this way, where its GeoJSON driver reads
 * one page. Every route is an ordinary API route: the key, the rate limit and the error envelope
 * as everywhere; the collections are handed in by the features (collection.ts).
 *
 * @module
 */
import type { Context } from 'hono'
import type { AppEnv } from '../env.js'
import { ApiError } from '../errors.js'
import { GEOJSON_TYPE, requestUrlWith, type Feature } from '../geojson.js'
import { type ApiRouter, type ApiTag, ErrorBodySchema } from '../openapi.js'
import { json, reply } from '../reply.js'
import { requestOrigin } from '../request-origin.js'
import type { OgcCollection } from './collection.js'
import {
  CONFORMANCE,
  CRS84,
  CollectionParamsSchema,
  CollectionSchema,
  CollectionsSchema,
  ConformanceSchema,
  FeatureSchema,
  ItemParamsSchema,
  ItemsQuerySchema,
  ItemsSchema,
  LandingPageSchema,
} from './schemas.js'

/** The facade's root under the API root. */
export const OGC_ROOT = '/ogc'

const TAG: readonly ApiTag[] = [
  {
    name: 'OGC API - Features',
    description:
      'A read-only OGC API - Features (Part 1: core, GeoJSON) view of the parcel and encumbrance lists, for GDAL ' +
      '(`ogrinfo OAPIF:…`) and QGIS: collections, and their features a page at a time along `next` links.',
  },
]

const JSON_TYPE = 'application/json'
/** The OpenAPI document's media type (it is OpenAPI 3.1: the facade claims no oas30 conformance). */
const OPENAPI_TYPE = 'application/vnd.oai.openapi+json;version=3.1'

type Link = { href: string; rel: string; type?: string; title?: string }

export function registerOgcRoutes(router: ApiRouter, collections: readonly OgcCollection[]): void {
  const trusted = router.trustedProxies
  const byId = new Map(collections.map((col) => [col.id, col]))
  const names = collections.map((col) => col.id).join(', ')
  const codes = (which: 'notFound' | 'unavailable') => collections.map((col) => col.codes[which]).join(', ')
  const UNAVAILABLE = {
    description: `${codes('unavailable')}: the dataset lacks the collection’s domain.`,
    schema: ErrorBodySchema,
  }
  /** The facade's absolute root, as the client reached it. */
  const rootOf = (c: Context<AppEnv>) => `${requestOrigin(c, trusted)}${router.basePath}${OGC_ROOT}`
  /** The collection of the path, once the key passes its guards; 404 when there is none. */
  const collectionOf = (c: Context<AppEnv>, id: string): OgcCollection => {
    const col = byId.get(id)
    if (!col) throw new ApiError('CollectionNotFound', `no collection ${id}; the collections are ${names}`)
    for (const guard of col.guards) guard(c)
    return col
  }
  const describe = (c: Context<AppEnv>, col: OgcCollection) => collectionDocument(rootOf(c), col, col.extent(c))

  router.add(
    {
      method: 'get',
      path: OGC_ROOT,
      operationId: 'getOgcLandingPage',
      tags: TAG,
      summary: 'OGC API - Features landing page',
      description: 'Open it in GDAL as `OAPIF:<this URL>`, or add it in QGIS as a WFS / OGC API - Features connection.',
      request: {},
      responses: { 200: { description: 'The landing page.', schema: LandingPageSchema } },
    },
    [],
    (c) => {
      const root = rootOf(c)
      const origin = requestOrigin(c, trusted)
      const links: Link[] = [
        { href: root, rel: 'self', type: JSON_TYPE, title: 'This document' },
        {
          href: `${origin}${router.basePath}/openapi.json`,
          rel: 'service-desc',
          type: OPENAPI_TYPE,
          title: 'The API definition',
        },
        { href: `${origin}/docs`, rel: 'service-doc', type: 'text/html', title: 'The API documentation' },
        { href: `${root}/conformance`, rel: 'conformance', type: JSON_TYPE, title: 'Conformance classes' },
        { href: `${root}/collections`, rel: 'data', type: JSON_TYPE, title: 'The collections' },
      ]
      return json(c, {
        title: 'Land-data API: OGC API - Features',
        description: `Read-only OGC API - Features view of the land-data lists. Collections: ${names}.`,
        links,
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: `${OGC_ROOT}/conformance`,
      operationId: 'getOgcConformance',
      tags: TAG,
      summary: 'The OGC API - Features conformance classes implemented',
      request: {},
      responses: { 200: { description: 'The conformance declaration.', schema: ConformanceSchema } },
    },
    [],
    (c) => json(c, { conformsTo: [...CONFORMANCE] }),
  )

  router.add(
    {
      method: 'get',
      path: `${OGC_ROOT}/collections`,
      operationId: 'getOgcCollections',
      tags: TAG,
      summary: 'The collections this key may read',
      description:
        `The collections (${names}) whose product and country the key covers and whose data this deployment's ` +
        'dataset holds.',
      request: {},
      responses: { 200: { description: 'The collections.', schema: CollectionsSchema } },
    },
    [],
    (c) => {
      const root = rootOf(c)
      const documents = []
      for (const col of collections) {
        const doc = readable(() => {
          for (const guard of col.guards) guard(c)
          return describe(c, col)
        })
        if (doc) documents.push(doc)
      }
      const self: Link = { href: `${root}/collections`, rel: 'self', type: JSON_TYPE, title: 'The collections' }
      return json(c, { links: [self], collections: documents })
    },
  )

  router.add(
    {
      method: 'get',
      path: `${OGC_ROOT}/collections/{collectionId}`,
      operationId: 'getOgcCollection',
      tags: TAG,
      summary: 'One collection: its extent, CRS and links',
      request: { params: CollectionParamsSchema },
      responses: {
        200: { description: 'The collection.', schema: CollectionSchema },
        404: { description: `CollectionNotFound: the collections are ${names}.`, schema: ErrorBodySchema },
        503: UNAVAILABLE,
      },
    },
    [],
    (c, { params }) => json(c, describe(c, collectionOf(c, params.collectionId))),
  )

  router.add(
    {
      method: 'get',
      path: `${OGC_ROOT}/collections/{collectionId}/items`,
      operationId: 'getOgcItems',
      tags: TAG,
      summary: 'A page of a collection’s features',
      description:
        'GeoJSON, `limit` features at a time in the collection’s order; the `next` link (absent on the last ' +
        'page) names the page after. `bbox` keeps the features whose geometry meets the box.',
      request: { params: CollectionParamsSchema, query: ItemsQuerySchema },
      responses: {
        200: { description: 'One page of features.', schema: ItemsSchema, contentType: GEOJSON_TYPE },
        404: { description: `CollectionNotFound: the collections are ${names}.`, schema: ErrorBodySchema },
        503: UNAVAILABLE,
      },
    },
    [],
    (c, { params, query }) => {
      const col = collectionOf(c, params.collectionId)
      const page = col.items(c, { bbox: query.bbox ?? null, limit: query.limit, cursor: query.cursor })
      const links: Link[] = [{ href: requestUrlWith(c, trusted, [], []), rel: 'self', type: GEOJSON_TYPE }]
      if (page.next !== null)
        links.push({
          href: requestUrlWith(c, trusted, ['cursor'], [`cursor=${encodeURIComponent(page.next)}`]),
          rel: 'next',
          type: GEOJSON_TYPE,
          title: 'The next page',
        })
      links.push({ href: `${rootOf(c)}/collections/${col.id}`, rel: 'collection', type: JSON_TYPE, title: col.title })
      const body = {
        type: 'FeatureCollection',
        features: page.features,
        numberReturned: page.features.length,
        ...(page.matched !== undefined ? { numberMatched: page.matched } : {}),
        timeStamp: new Date().toISOString(),
        links,
      }
      return reply(c, JSON.stringify(body), 200, GEOJSON_TYPE)
    },
  )

  router.add(
    {
      method: 'get',
      path: `${OGC_ROOT}/collections/{collectionId}/items/{featureId}`,
      operationId: 'getOgcItem',
      tags: TAG,
      summary: 'One feature of a collection, by its id',
      request: { params: ItemParamsSchema },
      responses: {
        200: { description: 'The feature.', schema: FeatureSchema, contentType: GEOJSON_TYPE },
        404: {
          description:
            `CollectionNotFound (the collections are ${names}), or the collection's own code for an id that ` +
            `names none of its features: ${codes('notFound')}.`,
          schema: ErrorBodySchema,
        },
        503: UNAVAILABLE,
      },
    },
    [],
    (c, { params }) => {
      const col = collectionOf(c, params.collectionId)
      const found = col.item(c, params.featureId)
      if (!found) throw col.notFound(params.featureId)
      const href = `${rootOf(c)}/collections/${col.id}`
      const feature: Feature = {
        ...found,
        links: [
          {
            href: `${href}/items/${encodeURIComponent(String(found.id ?? params.featureId))}`,
            rel: 'self',
            type: GEOJSON_TYPE,
          },
          { href, rel: 'collection', type: JSON_TYPE, title: col.title },
        ],
      }
      return reply(c, JSON.stringify(feature), 200, GEOJSON_TYPE)
    },
  )
}

/** A collection's document: its extent (when it holds data), its CRS, its links. */
export function collectionDocument(
  root: string,
  col: Pick<OgcCollection, 'id' | 'title' | 'description'>,
  extent: [number, number, number, number] | null,
) {
  const href = `${root}/collections/${col.id}`
  return {
    id: col.id,
    title: col.title,
    description: col.description,
    ...(extent ? { extent: { spatial: { bbox: [extent], crs: CRS84 } } } : {}),
    itemType: 'feature',
    crs: [CRS84],
    links: [
      { href, rel: 'self', type: JSON_TYPE, title: col.title },
      { href: `${href}/items`, rel: 'items', type: GEOJSON_TYPE, title: `${col.title}: the features` },
    ],
  }
}

/** `read()`, or null when the key may not read the collection (403) or the dataset lacks it (503). */
function readable<T>(read: () => T): T | null {
  try {
    return read()
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 503)) return null
    throw err
  }
}
