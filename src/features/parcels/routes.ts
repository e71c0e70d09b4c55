import { requireCountry, requireProduct } from '../../auth/middleware.js'
import type { ParcelType } from '../../data/parcels-format.js'
import { ApiError } from '../../http/errors.js'
import { requireService } from '../../http/service-guard.js'
import { plural } from '../../http/text.js'
import type { ApiRouter } from '../../http/openapi.js'
import { simplifyPreserveTopology, toGeoJson, toWkt } from '../../geo/polygon.js'
import type { Filter, ParcelQueries } from './queries.js'
import {
  AtQuerySchema,
  BATCH_MAX,
  BatchBodySchema,
  BatchEnvelopeSchema,
  BeaconsEnvelopeSchema,
  CoverageEnvelopeSchema,
  GeneralPlansEnvelopeSchema,
  GeometryEnvelopeSchema,
  GeometryQuerySchema,
  LookupEnvelopeSchema,
  LpiParamsSchema,
  NEAREST_MAX_M,
  NearestParcelSchema,
  NeighboursEnvelopeSchema,
  NeighboursQuerySchema,
  SourceKeyParamsSchema,
  StatusQuerySchema,
  WithinQuerySchema,
} from './schemas.js'
import { JsonBytes } from '../../http/json-bytes.js'
import { json, reply } from '../../http/reply.js'

/** The /parcels/at and batch answers are written by this one writer (synchronously, so requests never share it). */
const writer = new JsonBytes()

const TAG = ['Parcel cadastre']
const filterOf = (q: { include_status?: string; parcel_type?: string }): Filter => ({
  all: q.include_status === 'all',
  ...(q.parcel_type ? { type: q.parcel_type as ParcelType } : {}),
})

const NOT_FOUND = { description: 'ParcelNotFound: no parcel (visible under the status filter) carries this identifier.' }

/** Opaque /within cursor: the last id served, bound to the dataset, box and filter it was issued for. */
function encodeCursor(state: { v: string; q: string; after: number }): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url')
}
function decodeCursor(cursor: string, v: string, q: string): number {
  let state: unknown
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    state = null
  }
  const s = state as { v?: unknown; q?: unknown; after?: unknown } | null
  if (!s || typeof s.after !== 'number' || !Number.isSafeInteger(s.after) || s.after < 0) {
    throw new ApiError('ValidationError', 'invalid request: cursor', [{ field: 'cursor', message: 'cursor is not one this service issued' }])
  }
  if (s.v !== v || s.q !== q) {
    throw new ApiError('ValidationError', 'invalid request: cursor', [
      { field: 'cursor', message: 'cursor belongs to another query or dataset; send it with the same box and filters, or start again without it' },
    ])
  }
  return s.after
}

/** The parcel cadastre service (spec 001): South Africa only, `parcels` product. */
export function registerParcelRoutes(router: ApiRouter, queries: () => ParcelQueries | null): void {
  const mw = [requireProduct('parcels'), requireCountry('SOUTH_AFRICA')]
  const q = requireService(queries, 'ParcelDataUnavailable', 'the parcel dataset is not installed on this deployment')
  const notFound = (what: string) => new ApiError('ParcelNotFound', `no parcel carries ${what}`)

  router.add(
    {
      method: 'get',
      path: '/parcels/at',
      tags: TAG,
      summary: 'Every parcel containing a point, most specific first',
      description:
        'Point-in-polygon over the six layers; a point on a boundary is inside (closed sets). Order: ERF, PUBLIC_PLACE and STREET first, then HOLDING, FARM_PORTION, PARENT_FARM; within a layer the smaller parcel first; versions of one LPI current first. ' +
        `None: 404 NoParcelAtPoint with \`details.nearest\` (a parcel record plus \`distance_meters\`, geodesic to its boundary) when a parcel obeying the same filters lies within ${NEAREST_MAX_M} m.`,
      request: { query: AtQuerySchema },
      responses: {
        200: { description: 'Containing parcels.', schema: LookupEnvelopeSchema },
        404: { description: 'NoParcelAtPoint; `details.nearest` when a parcel lies within 2 km.', schema: NearestParcelSchema },
      },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const f = filterOf(query)
      const parcels = s.found(query.longitude, query.latitude, f)
      if (!parcels.count) {
        const nearest = s.nearest(query.longitude, query.latitude, NEAREST_MAX_M, f)
        throw new ApiError(
          'NoParcelAtPoint',
          nearest ? `no parcel contains the point; the nearest is ${nearest.distance_meters} m away` : `no parcel contains the point, and none lies within ${NEAREST_MAX_M} m`,
          nearest ? { nearest } : undefined,
        )
      }
      // { parcels, message, dataset_version } written as bytes: JSON.stringify and the record
      // objects were a tenth of this route's CPU under load
      writer.start().ascii('{"parcels":')
      parcels.write(writer)
      writer.ascii(',"message":').string(`${plural(parcels.count, 'parcel')} contain the point; the first is the most specific`)
      writer.ascii(',"dataset_version":').string(s.version).ascii('}')
      return reply(c, writer.take(), 200, 'application/json')
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/within',
      tags: TAG,
      summary: 'Parcels intersecting a bounding box, cursor paginated',
      description:
        'The box spans at most 0.05 degrees per side. Parcels are returned by `id`, `page_size` at a time; when more exist the answer carries `next_cursor`: send it back as `cursor` with the same box and filters for the next page. A cursor from another query or dataset is a 400.',
      request: { query: WithinQuerySchema },
      responses: { 200: { description: 'One page of parcels.', schema: LookupEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const f = filterOf(query)
      const box = { minX: query.min_lng, minY: query.min_lat, maxX: query.max_lng, maxY: query.max_lat }
      const signature = JSON.stringify([box.minX, box.minY, box.maxX, box.maxY, f.all, f.type ?? null])
      const after = query.cursor ? decodeCursor(query.cursor, s.version, signature) : 0
      const page = s.within(box, after, query.page_size, f)
      const body: Record<string, unknown> = {
        parcels: page.parcels,
        message: page.parcels.length ? `${plural(page.parcels.length, 'parcel')} in the box${page.more ? ' (more: use next_cursor)' : ''}` : 'No parcel intersects the box',
        dataset_version: s.version,
      }
      if (page.more) body.next_cursor = encodeCursor({ v: s.version, q: signature, after: page.lastId })
      return json(c, body)
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/coverage',
      tags: TAG,
      summary: 'Load ledger: what this deployment holds, per province and layer',
      description:
        'One row per province and layer (the six parcel layers, BEACON and GENERAL_PLAN), including layers the export does not have (`present: false`, e.g. holdings outside FS, GP, KZN, LP, MP and NW). `loaded_at` is when this server loaded the dataset; `geometries_repaired` counts geometries repaired on ingest.',
      request: {},
      responses: { 200: { description: 'The ledger.', schema: CoverageEnvelopeSchema } },
    },
    mw,
    (c) => {
      const s = q()
      const coverage = s.coverage()
      const total = coverage.filter((r) => r.layer !== 'BEACON' && r.layer !== 'GENERAL_PLAN').reduce((a, r) => a + r.records, 0)
      return json(c, { coverage, as_of: s.asOf, dataset_version: s.version, message: `${total} parcel records loaded` })
    },
  )

  router.add(
    {
      method: 'post',
      path: '/parcels/batch',
      tags: TAG,
      summary: `Resolve up to ${BATCH_MAX} points or LPIs in one call`,
      description:
        'Results are in input order, null where nothing matched (or the LPI is hidden by the default status filter). Counts as one request against the rate limit. Send `include_status: "all"` in the body to lift the status filter. A body over 2 MB is a 413.',
      request: { body: BatchBodySchema },
      responses: { 200: { description: 'Results in input order.', schema: BatchEnvelopeSchema } },
    },
    mw,
    (c, { body }) => {
      const s = q()
      const f: Filter = { all: body.include_status === 'all' }
      // { results, found, not_found, dataset_version, message } written as bytes, record by record
      writer.start().ascii('{"results":[')
      let found = 0
      const n = body.points ? body.points.length : body.lpis!.length
      for (let k = 0; k < n; k++) {
        if (k) writer.ascii(',')
        const hit = body.points ? s.writeFirstAt(writer, body.points[k].longitude, body.points[k].latitude, f) : s.writeCurrent(writer, body.lpis![k], f)
        if (hit) found++
      }
      writer.ascii('],"found":').int(found).ascii(',"not_found":').int(n - found)
      writer.ascii(',"dataset_version":').string(s.version)
      writer.ascii(',"message":').string(`${found} of ${n} ${body.points ? 'points' : 'LPIs'} resolved`).ascii('}')
      return reply(c, writer.take(), 200, 'application/json')
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/by-key/{source_key}',
      tags: TAG,
      summary: "Records for a Surveyor-General parcel key",
      request: { params: SourceKeyParamsSchema, query: StatusQuerySchema },
      responses: { 200: { description: 'Records, current version first.', schema: LookupEnvelopeSchema }, 404: NOT_FOUND },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const parcels = s.bySourceKey(params.source_key, filterOf(query))
      if (!parcels.length) throw notFound(`the source key ${params.source_key}`)
      return json(c, { parcels, message: `${plural(parcels.length, 'record')} for source key ${params.source_key}`, dataset_version: s.version })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/geometry',
      tags: TAG,
      summary: 'Boundary of the current version',
      description: 'GeoJSON MultiPolygon (longitude first, RFC 7946 winding) or WKT, optionally simplified with a topology-preserving tolerance in metres.',
      request: { params: LpiParamsSchema, query: GeometryQuerySchema },
      responses: { 200: { description: 'The boundary.', schema: GeometryEnvelopeSchema }, 404: NOT_FOUND },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const g = s.geometry(params.lpi, filterOf(query))
      if (!g) throw notFound(`the LPI ${params.lpi}`)
      const mp = query.simplify ? simplifyPreserveTopology(g.geometry, query.simplify) : g.geometry
      const wkt = query.format === 'WKT'
      return json(c, {
        parcel: g.parcel,
        format: wkt ? 'wkt' : 'geojson',
        geometry: wkt ? toWkt(mp) : toGeoJson(mp),
        dataset_version: s.version,
        message: query.simplify ? `Boundary simplified at ${query.simplify} m` : 'Boundary as surveyed',
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/neighbours',
      tags: TAG,
      summary: 'Adjacent parcels',
      description:
        'Never includes the parcel itself, its other versions, or a parcel that contains it or that it contains. Streets and public places count. `touching` neighbours come largest shared boundary first; `within` neighbours nearest first.',
      request: { params: LpiParamsSchema, query: NeighboursQuerySchema },
      responses: { 200: { description: 'Neighbours of the current version.', schema: NeighboursEnvelopeSchema }, 404: NOT_FOUND },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const mode = query.mode === 'WITHIN' ? 'within' : 'touching'
      const r = s.neighbours(params.lpi, mode, query.distance, query.limit, filterOf(query))
      if (!r) throw notFound(`the LPI ${params.lpi}`)
      const what = mode === 'touching' ? 'touching' : `within ${query.distance} m`
      return json(c, { parcel: r.parcel, mode, neighbours: r.neighbours, dataset_version: s.version, message: r.neighbours.length ? `${plural(r.neighbours.length, 'neighbour')} ${what}` : `No neighbour ${what}` })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/beacons',
      tags: TAG,
      summary: 'Survey beacons on the boundary, ordered around the ring',
      description: 'Beacons within 0.5 m of the exterior ring, ordered by `ring_position` (0 to 1 along the ring from its first vertex, exterior counter-clockwise). Empty when none was captured.',
      request: { params: LpiParamsSchema, query: StatusQuerySchema },
      responses: { 200: { description: 'Beacons.', schema: BeaconsEnvelopeSchema }, 404: NOT_FOUND },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const r = s.beacons(params.lpi, filterOf(query))
      if (!r) throw notFound(`the LPI ${params.lpi}`)
      return json(c, { ...r, dataset_version: s.version, message: r.beacons.length ? `${plural(r.beacons.length, 'beacon')} on the boundary` : 'No beacon captured for this parcel' })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}/general-plan',
      tags: TAG,
      summary: 'General Plans covering the parcel',
      description: 'Every General Plan sharing interior area with the current version, with its SG number `<number>/<year>`.',
      request: { params: LpiParamsSchema, query: StatusQuerySchema },
      responses: { 200: { description: 'General Plans.', schema: GeneralPlansEnvelopeSchema }, 404: NOT_FOUND },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const r = s.generalPlans(params.lpi, filterOf(query))
      if (!r) throw notFound(`the LPI ${params.lpi}`)
      return json(c, { ...r, dataset_version: s.version, message: r.general_plans.length ? `${plural(r.general_plans.length, 'General Plan')} ${r.general_plans.length === 1 ? 'covers' : 'cover'} the parcel` : 'No General Plan covers this parcel' })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/parcels/{lpi}',
      tags: TAG,
      summary: 'Records for an LPI, current version first',
      description: 'An LPI whose every version is hidden by the default status filter is a 404; `include_status=all` shows its versions.',
      request: { params: LpiParamsSchema, query: StatusQuerySchema },
      responses: { 200: { description: 'Records, current version first.', schema: LookupEnvelopeSchema }, 404: NOT_FOUND },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const parcels = s.byLpi(params.lpi, filterOf(query))
      if (!parcels.length) throw notFound(`the LPI ${params.lpi}`)
      return json(c, { parcels, message: `${plural(parcels.length, 'record')} for LPI ${params.lpi}`, dataset_version: s.version })
    },
  )
}
