/**
 * The boundaries by type and code: `GET /jurisdiction/boundaries/{boundary_type}` (the list),
 * `…/{code}` (one record), `…/{code}/geometry` and `…/{code}/children`.
 */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import { BOUNDARY_TYPES } from '../../../data/jurisdiction-format.js'
import type { AppEnv } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import { geoJsonReply, isGeoJson } from '../../../http/geojson.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { toGeoJson, toWkt } from '../../../geo/polygon-output.js'
import { simplifyPreserveTopology } from '../../../geo/simplify.js'
import { boundariesGeoJson, boundaryFeature } from '../geojson.js'
import type { JurisdictionQueries } from '../queries.js'
import { ChildrenEnvelopeSchema, DetailEnvelopeSchema, GeometryEnvelopeSchema, ListEnvelopeSchema } from '../answers.js'
import {
  AsAtQuerySchema,
  BoundaryParamsSchema,
  BoundaryTypeParamsSchema,
  GeometryQuerySchema,
  ListQuerySchema,
} from '../schemas.js'
import { boundaryAt, envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

type BoundaryParams = z.infer<typeof BoundaryParamsSchema>

export function registerBoundaryRoutes(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}',
      operationId: 'getBoundaries',
      tags: TAG,
      summary: 'List boundaries of a type',
      description:
        `\`boundary_type\`: ${BOUNDARY_TYPES.join(', ')}. ` +
        'Boundaries in force on `as_at` (default today), ordered by code, `limit` at a time from offset `cursor`; ' +
        '`next_cursor` is present while more remain. ' +
        'Filters: `province` (family code), `municipality` (a local, metro or district code above the boundary), ' +
        '`parent` (a code at any level above).',
      request: { params: BoundaryTypeParamsSchema, query: ListQuerySchema },
      geojson: true,
      responses: { 200: { description: 'One page.', schema: ListEnvelopeSchema } },
    },
    guards,
    (c, { params, query }) => boundaryList(c, service(c), params, query),
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}/{code}',
      operationId: 'getBoundary',
      tags: TAG,
      summary: 'One boundary with its attributes',
      description:
        'The record of that type and code in force on `as_at` (default today), with its ancestors up to the ' +
        'province, how many children it has, and its other versions. None in force: 404 BoundaryNotFound.',
      request: { params: BoundaryParamsSchema, query: AsAtQuerySchema },
      geojson: true,
      responses: {
        200: { description: 'The boundary.', schema: DetailEnvelopeSchema },
        404: { description: 'BoundaryNotFound.' },
      },
    },
    guards,
    (c, { params, query }) => boundaryDetail(c, service(c), params, query.as_at),
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}/{code}/geometry',
      operationId: 'getBoundaryGeometry',
      tags: TAG,
      summary: 'Boundary polygon',
      description:
        'GeoJSON MultiPolygon (longitude first, RFC 7946 winding; default) or WKT, at full resolution or ' +
        'simplified with a topology-preserving tolerance of `simplify` metres (1–10000).',
      request: { params: BoundaryParamsSchema, query: GeometryQuerySchema },
      responses: {
        200: { description: 'The geometry.', schema: GeometryEnvelopeSchema },
        404: { description: 'BoundaryNotFound (also for a record published without geometry).' },
      },
    },
    guards,
    (c, { params, query }) => boundaryGeometry(c, service(c), params, query),
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}/{code}/children',
      operationId: 'getBoundaryChildren',
      tags: TAG,
      summary: 'Boundaries one level down',
      description:
        'Wards of a municipality, municipalities of a district, districts (and metro records) of a province, ' +
        "townships of a registration division, suburbs of a township; a metro's district-file record lists the " +
        'metro itself. In force on `as_at` (default today).',
      request: { params: BoundaryParamsSchema, query: AsAtQuerySchema },
      geojson: true,
      responses: {
        200: { description: 'Children.', schema: ChildrenEnvelopeSchema },
        404: { description: 'BoundaryNotFound.' },
      },
    },
    guards,
    (c, { params, query }) => boundaryChildren(c, service(c), params, query.as_at),
  )
}

/** One page of the boundaries of a type in force on the date, with the filters. */
function boundaryList(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  params: z.infer<typeof BoundaryTypeParamsSchema>,
  query: z.infer<typeof ListQuerySchema>,
): Response {
  const d = query.as_at ?? today()
  const list = s.list(params.boundary_type, {
    asAt: d,
    province: query.province,
    municipality: query.municipality,
    parent: query.parent,
  })
  const page = list.slice(query.cursor, query.cursor + query.limit)
  const next = query.cursor + page.length
  const body = {
    boundary_type: params.boundary_type,
    boundaries: page.map((r) => s.record(r)),
    total: list.length,
    cursor: query.cursor,
    limit: query.limit,
    ...(next < list.length ? { next_cursor: next } : {}),
    as_at: d,
    message: list.length
      ? `${plural(list.length, params.boundary_type)} in force on ${d}; ${page.length} on this page`
      : `No ${params.boundary_type} in force on ${d} matches`,
    ...envOf(s),
  }
  return isGeoJson(c) ? boundariesGeoJson(c, s, body, 'boundaries', page) : json(c, body)
}

/** The record in force on the date, with its ancestors, children count and other versions. */
function boundaryDetail(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  params: BoundaryParams,
  asAt: string | undefined,
): Response {
  const d = asAt ?? today()
  const r = boundaryAt(s, params.boundary_type, params.code, d)
  const others = s.versionsOf(r.type, r.code).filter((v) => v.id !== r.id)
  const body = {
    boundary: {
      ...s.record(r),
      ancestors: s.ancestorsOf(r).map((a) => ({ boundary_type: a.type, code: a.code, name: a.name })),
      children_count: s.childrenOf(r, d).length,
      other_versions: others.map((v) => ({
        set: v.setName,
        vintage: v.vintage,
        ...(v.from ? { effective_from: v.from } : {}),
        ...(v.to ? { effective_to: v.to } : {}),
      })),
    },
    as_at: d,
    message: `${r.type} ${r.code} (${r.name}), ${r.vintage}`,
    ...envOf(s),
  }
  return isGeoJson(c) ? geoJsonReply(c, body, 'boundary', [boundaryFeature(s, r, body.boundary)]) : json(c, body)
}

/** The record's polygon as GeoJSON or WKT, at full resolution or simplified. */
function boundaryGeometry(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  params: BoundaryParams,
  query: z.infer<typeof GeometryQuerySchema>,
): Response {
  const d = query.as_at ?? today()
  const r = boundaryAt(s, params.boundary_type, params.code, d)
  const g = s.geometry(r)
  if (!g)
    throw new ApiError(
      'BoundaryNotFound',
      `${r.type} ${r.code} (${r.vintage}) is installed without geometry: the source published only its attributes`,
    )
  const mp = query.simplify ? simplifyPreserveTopology(g, query.simplify) : g
  let vertices = 0
  for (const p of mp) for (const ring of p) vertices += ring.length
  const wkt = query.format === 'WKT'
  return json(c, {
    boundary: s.record(r),
    format: wkt ? 'wkt' : 'geojson',
    geometry: wkt ? toWkt(mp) : toGeoJson(mp),
    ...(query.simplify ? { simplified_m: query.simplify } : {}),
    vertices,
    as_at: d,
    message: query.simplify
      ? `Boundary simplified at ${query.simplify} m (${vertices} vertices)`
      : `Boundary at full resolution (${vertices} vertices)`,
    ...envOf(s),
  })
}

/** The records one level below the record in force on the date. */
function boundaryChildren(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  params: BoundaryParams,
  asAt: string | undefined,
): Response {
  const d = asAt ?? today()
  const r = boundaryAt(s, params.boundary_type, params.code, d)
  const kids = s.childrenOf(r, d)
  const body = {
    boundary: s.record(r),
    children: kids.map((k) => s.record(k)),
    as_at: d,
    message: kids.length
      ? `${plural(kids.length, 'boundary', 'boundaries')} one level below ${r.code}`
      : `Nothing in force on ${d} lies one level below ${r.code}`,
    ...envOf(s),
  }
  return isGeoJson(c) ? boundariesGeoJson(c, s, body, 'children', kids) : json(c, body)
}
