import { johannesburgDate } from '../../auth/dates.js'
import { requireCountry, requireProduct } from '../../auth/middleware.js'
import { BOUNDARY_TYPES, type BoundaryType } from '../../data/jurisdiction-format.js'
import { ApiError } from '../../http/errors.js'
import { requireService } from '../../http/service-guard.js'
import { tileAnswer } from '../../http/tile-answer.js'
import { plural } from '../../http/text.js'
import type { ApiRouter } from '../../http/openapi.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileLayer } from '../../geo/mvt/encode.js'
import { simplifyPreserveTopology, toGeoJson, toWkt, type MultiPolygon } from '../../geo/polygon.js'
import { tileBBox } from '../../geo/tiles.js'
import { parseTileParams } from '../../http/tile-params.js'
import { inForce, type BatchItem, type BoundaryRow, type JurisdictionQueries } from './queries.js'
import {
  AtQuerySchema,
  AsAtQuerySchema,
  BATCH_MAX,
  BatchBodySchema,
  BatchEnvelopeSchema,
  BoundaryParamsSchema,
  BoundaryTypeParamsSchema,
  ChainEnvelopeSchema,
  ChildrenEnvelopeSchema,
  CoverageEnvelopeSchema,
  DetailEnvelopeSchema,
  GeometryEnvelopeSchema,
  GeometryQuerySchema,
  HeatmapEnvelopeSchema,
  HeatmapQuerySchema,
  ListEnvelopeSchema,
  ListQuerySchema,
  LpiParamsSchema,
  ParcelChainEnvelopeSchema,
  SearchEnvelopeSchema,
  SearchQuerySchema,
  TileParamsSchema,
  TileQuerySchema,
} from './schemas.js'
import { json, reply } from '../../http/reply.js'
import { round } from '../../geo/round.js'

const TAG = ['Jurisdiction']
const today = () => johannesburgDate(new Date())
/** The tails of `/jurisdiction/at` answers per open dataset (see atAnswer). */
const AT_TAILS = new WeakMap<JurisdictionQueries, Map<string, Buffer>>()

/** Heat-map scale gates: the widest viewport side (degrees) at which a type is still drawn. */
export const HEATMAP_MAX_SPAN: Record<BoundaryType, number> = {
  province: Infinity,
  district_municipality: Infinity,
  local_municipality: Infinity,
  registration_division: Infinity,
  deeds_office: Infinity,
  pre1994_municipal: 4,
  ward: 2,
  township: 0.5,
  suburb: 0.5,
}
/** Tile scale gates: the lowest zoom at which a layer carries features. */
export const TILE_MIN_ZOOM: Record<BoundaryType, number> = {
  province: 0,
  district_municipality: 4,
  deeds_office: 4,
  local_municipality: 5,
  registration_division: 5,
  pre1994_municipal: 7,
  ward: 8,
  township: 10,
  suburb: 11,
}
/** Below this zoom tiles are cut from the overview geometry (100 m), from it upward at full resolution. */
const TILE_FULL_RES_ZOOM = 8
/** At most this many features in one heat-map answer. */
export const HEATMAP_MAX_FEATURES = 4000

/** A boundary record as the list, detail, children and search operations return it. */
function recordOf(s: JurisdictionQueries, r: BoundaryRow): Record<string, unknown> {
  const o: Record<string, unknown> = { boundary_type: r.type, code: r.code, name: r.name }
  if (r.category) o.category = r.category
  if (r.province) o.province = r.province
  const p = r.parentId !== null ? s.byId(r.parentId) : undefined
  if (p) o.parent = { boundary_type: p.type, code: p.code, name: p.name }
  o.vintage = r.vintage
  o.set = r.setName
  if (r.from) o.effective_from = r.from
  if (r.to) o.effective_to = r.to
  if (r.wardNumber !== null) o.ward_number = r.wardNumber
  if (r.areaSqm !== null) o.area_sqm = r.areaSqm
  if (r.bbox) o.bbox = r.bbox.map((v) => round(v, 7))
  if (r.label) o.label_point = { latitude: round(r.label[1], 7), longitude: round(r.label[0], 7) }
  o.has_geometry = r.bbox !== null
  return o
}

/** The jurisdiction service (spec 002): South Africa only, `jurisdiction` product. */
export function registerJurisdictionRoutes(router: ApiRouter, queries: () => JurisdictionQueries | null): void {
  const mw = [requireProduct('jurisdiction'), requireCountry('SOUTH_AFRICA')]
  const q = requireService(queries, 'JurisdictionDataUnavailable', 'the boundary (jurisdiction) dataset is not installed on this deployment')
  const env = (s: JurisdictionQueries) => ({ as_of: s.asOf, dataset_version: s.version })

  /** The boundary in force on `d`, or 404 BoundaryNotFound naming the dates it was in force. */
  const boundaryAt = (s: JurisdictionQueries, type: BoundaryType, code: string, d: string): BoundaryRow => {
    const r = s.byCode(type, code, d)
    if (r) return r
    const versions = s.versionsOf(type, code)
    const when = versions.map((v) => `${v.vintage} (${v.from ?? '…'} to ${v.to ?? 'today'})`).join(', ')
    throw new ApiError(
      'BoundaryNotFound',
      versions.length ? `no ${type} ${code} was in force on ${d}; it is known in ${when}` : `no ${type} carries the code ${code}`,
    )
  }

  const chainMessage = (found: boolean, d: string) =>
    found ? `Jurisdiction chain on ${d}` : `No boundary in force on ${d} contains the point`

  /**
   * `GET /jurisdiction/at`'s answer `{"jurisdiction":…,"notes":[…],"as_at":…,"message":…,"as_of":…,"dataset_version":…}`:
   * the item's bytes with their closing brace dropped, then the tail `,"as_at":…}` cached per
   * dataset, date and found (the same text JSON.stringify gives for the whole answer).
   */
  const atAnswer = (s: JurisdictionQueries, item: BatchItem, d: string): Uint8Array => {
    let tails = AT_TAILS.get(s)
    if (!tails) AT_TAILS.set(s, (tails = new Map()))
    const key = item.found ? `+${d}` : `-${d}`
    let tail = tails.get(key)
    if (!tail) {
      if (tails.size >= 1000) tails.clear()
      const text = JSON.stringify({ as_at: d, message: chainMessage(item.found, d), ...env(s) })
      tails.set(key, (tail = Buffer.from(`,${text.slice(1)}`, 'utf8')))
    }
    const head = item.bytes.length - 1
    const out = Buffer.allocUnsafe(head + tail.length)
    item.bytes.copy(out, 0, 0, head)
    tail.copy(out, head)
    return out
  }

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/at',
      tags: TAG,
      summary: 'Chain of administrative authority at a point',
      description:
        'Province, district municipality, local municipality, ward, registration division, Deeds Office and township, each a link object or null. ' +
        'Without `as_at`, today\'s boundaries (Africa/Johannesburg) answer; with it, only boundary sets in force on that date (`effective_from` inclusive, `effective_to` exclusive). ' +
        'The ward is found by point-in-polygon on the ward layer in force and its municipality, district and province follow from its codes; the municipal layer answers where no ward does. ' +
        'A point on a shared edge takes the boundary with the lowest code, so a coordinate always gives the same chain. ' +
        'A metro (category A) answers `district_municipality` null with a note; a null Deeds Office outside the published areas (FS, GP, NC) carries a note; between the 2016 and 2021 elections the ward is null with a note (the 2016 delimitation has no geometry here). ' +
        'An `as_at` earlier than the earliest installed set answers an empty chain with a note. Outside every boundary: 404 NoJurisdictionAtPoint with `details.nearest`.',
      request: { query: AtQuerySchema },
      responses: {
        200: { description: 'The chain.', schema: ChainEnvelopeSchema },
        404: { description: 'NoJurisdictionAtPoint: `details.nearest` = {boundary_type, code, name, distance_meters}.' },
        503: { description: 'JurisdictionDataUnavailable.' },
      },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const d = query.as_at ?? today()
      // the chain and notes as cached UTF-8 bytes (shared with the batch), the rest of the
      // answer as cached bytes per date: the same text JSON.stringify gives, without building it
      const item = s.resolveItem(query.lon, query.lat, d)
      if (item) return reply(c, atAnswer(s, item, d), 200, 'application/json')
      const r = s.resolve(query.lon, query.lat, d)
      if (!r.found && s.earliest !== null && d >= s.earliest) {
        const nearest = s.nearest(query.lon, query.lat, d)
        throw new ApiError(
          'NoJurisdictionAtPoint',
          nearest ? `no boundary in force on ${d} contains the point; the nearest is ${nearest.boundary_type} ${nearest.code} (${nearest.name}), ${nearest.distance_meters} m away` : `no boundary in force on ${d} contains the point`,
          nearest ? { nearest } : undefined,
        )
      }
      return json(c, { jurisdiction: r.jurisdiction, notes: r.notes, as_at: d, message: chainMessage(r.found, d), ...env(s) })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/parcel/{lpi}',
      tags: TAG,
      summary: 'Chain for a parcel, from its label point',
      description:
        'The parcel is the current published version of the LPI (the parcel service\'s default status filter); its label point is resolved as /at does. ' +
        'A note names every boundary the parcel straddles (judged from its vertices and edge midpoints: a sample outside the label\'s boundary but inside another of the same type). Unknown or hidden LPI: 404 ParcelNotFound.',
      request: { params: LpiParamsSchema, query: AsAtQuerySchema },
      responses: {
        200: { description: 'The chain.', schema: ParcelChainEnvelopeSchema },
        404: { description: 'ParcelNotFound, or NoJurisdictionAtPoint when the label point lies outside every boundary.' },
        503: { description: 'JurisdictionDataUnavailable, or ParcelDataUnavailable when the cadastre is not installed.' },
      },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const r = s.resolveParcel(params.lpi, d)
      if (r === 'no-parcels') throw new ApiError('ParcelDataUnavailable', 'the parcel dataset is not installed on this deployment, so parcels cannot be resolved')
      if (!r) throw new ApiError('ParcelNotFound', `no published parcel carries the LPI ${params.lpi}`)
      if (!r.found && s.earliest !== null && d >= s.earliest) {
        const nearest = s.nearest(r.label[0], r.label[1], d)
        throw new ApiError('NoJurisdictionAtPoint', `no boundary in force on ${d} contains the label point of ${params.lpi}`, nearest ? { nearest } : undefined)
      }
      return json(c, {
        lpi: r.lpi,
        label_point: { latitude: round(r.label[1], 7), longitude: round(r.label[0], 7) },
        jurisdiction: r.jurisdiction,
        notes: r.notes,
        as_at: d,
        message: chainMessage(r.found, d) + ` for parcel ${r.lpi}`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'post',
      path: '/jurisdiction/batch',
      tags: TAG,
      summary: `Chains for up to ${BATCH_MAX} points`,
      description:
        `Body \`{"points": [{"latitude": …, "longitude": …}, …], "as_at"?: "YYYY-MM-DD"}\` with 1 to ${BATCH_MAX} points. ` +
        '`results` is in input order: a `{jurisdiction, notes}` item per point, or null where the point lies outside the demarcated area. `found` + `not_found` = the number of points. Counts as one request.',
      request: { body: BatchBodySchema },
      responses: { 200: { description: 'Results in input order.', schema: BatchEnvelopeSchema }, 413: { description: 'PayloadTooLarge.' } },
    },
    mw,
    (c, { body }) => {
      const s = q()
      const d = body.as_at ?? today()
      // items arrive as UTF-8 bytes (shared by points with the same chain), so the answer is
      // written around them into one buffer rather than serialised as one object or joined as
      // text and encoded again (a few megabytes for 5000 points)
      const { items, found } = s.resolveBatch(body.points, d)
      const notFound = body.points.length - found
      const tail = JSON.stringify({
        found,
        not_found: notFound,
        as_at: d,
        message: `${plural(found, 'point')} resolved, ${notFound} outside every boundary in force on ${d}`,
        ...env(s),
      })
      return reply(c, batchAnswer(items, tail), 200, 'application/json')
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}',
      tags: TAG,
      summary: 'List boundaries of a type',
      description:
        `\`boundary_type\`: ${BOUNDARY_TYPES.join(', ')}. Boundaries in force on \`as_at\` (default today), ordered by code, \`limit\` at a time from offset \`cursor\`; \`next_cursor\` is present while more remain. ` +
        'Filters: `province` (family code), `municipality` (a local, metro or district code above the boundary), `parent` (a code at any level above).',
      request: { params: BoundaryTypeParamsSchema, query: ListQuerySchema },
      responses: { 200: { description: 'One page.', schema: ListEnvelopeSchema } },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const list = s.list(params.boundary_type, { asAt: d, province: query.province, municipality: query.municipality, parent: query.parent })
      const page = list.slice(query.cursor, query.cursor + query.limit)
      const next = query.cursor + page.length
      return json(c, {
        boundary_type: params.boundary_type,
        boundaries: page.map((r) => recordOf(s, r)),
        total: list.length,
        cursor: query.cursor,
        limit: query.limit,
        ...(next < list.length ? { next_cursor: next } : {}),
        as_at: d,
        message: list.length ? `${plural(list.length, params.boundary_type)} in force on ${d}; ${page.length} on this page` : `No ${params.boundary_type} in force on ${d} matches`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}/{code}',
      tags: TAG,
      summary: 'One boundary with its attributes',
      description: 'The record of that type and code in force on `as_at` (default today), with its ancestors up to the province, how many children it has, and its other versions. None in force: 404 BoundaryNotFound.',
      request: { params: BoundaryParamsSchema, query: AsAtQuerySchema },
      responses: { 200: { description: 'The boundary.', schema: DetailEnvelopeSchema }, 404: { description: 'BoundaryNotFound.' } },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const r = boundaryAt(s, params.boundary_type, params.code, d)
      const others = s.versionsOf(r.type, r.code).filter((v) => v.id !== r.id)
      return json(c, {
        boundary: {
          ...recordOf(s, r),
          ancestors: s.ancestorsOf(r).map((a) => ({ boundary_type: a.type, code: a.code, name: a.name })),
          children_count: s.childrenOf(r, d).length,
          other_versions: others.map((v) => ({ set: v.setName, vintage: v.vintage, ...(v.from ? { effective_from: v.from } : {}), ...(v.to ? { effective_to: v.to } : {}) })),
        },
        as_at: d,
        message: `${r.type} ${r.code} (${r.name}), ${r.vintage}`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}/{code}/geometry',
      tags: TAG,
      summary: 'Boundary polygon',
      description: 'GeoJSON MultiPolygon (longitude first, RFC 7946 winding; default) or WKT, at full resolution or simplified with a topology-preserving tolerance of `simplify` metres (1–10000).',
      request: { params: BoundaryParamsSchema, query: GeometryQuerySchema },
      responses: { 200: { description: 'The geometry.', schema: GeometryEnvelopeSchema }, 404: { description: 'BoundaryNotFound (also for a record published without geometry).' } },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const r = boundaryAt(s, params.boundary_type, params.code, d)
      const g = s.geometry(r)
      if (!g) throw new ApiError('BoundaryNotFound', `${r.type} ${r.code} (${r.vintage}) is installed without geometry: the source published only its attributes`)
      const mp = query.simplify ? simplifyPreserveTopology(g, query.simplify) : g
      let vertices = 0
      for (const p of mp) for (const ring of p) vertices += ring.length
      const wkt = query.format === 'WKT'
      return json(c, {
        boundary: recordOf(s, r),
        format: wkt ? 'wkt' : 'geojson',
        geometry: wkt ? toWkt(mp) : toGeoJson(mp),
        ...(query.simplify ? { simplified_m: query.simplify } : {}),
        vertices,
        as_at: d,
        message: query.simplify ? `Boundary simplified at ${query.simplify} m (${vertices} vertices)` : `Boundary at full resolution (${vertices} vertices)`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/boundaries/{boundary_type}/{code}/children',
      tags: TAG,
      summary: 'Boundaries one level down',
      description:
        'Wards of a municipality, municipalities of a district, districts (and metro records) of a province, townships of a registration division, suburbs of a township; a metro\'s district-file record lists the metro itself. In force on `as_at` (default today).',
      request: { params: BoundaryParamsSchema, query: AsAtQuerySchema },
      responses: { 200: { description: 'Children.', schema: ChildrenEnvelopeSchema }, 404: { description: 'BoundaryNotFound.' } },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const r = boundaryAt(s, params.boundary_type, params.code, d)
      const kids = s.childrenOf(r, d)
      return json(c, {
        boundary: recordOf(s, r),
        children: kids.map((k) => recordOf(s, k)),
        as_at: d,
        message: kids.length ? `${plural(kids.length, 'boundary', 'boundaries')} one level below ${r.code}` : `Nothing in force on ${d} lies one level below ${r.code}`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/search',
      tags: TAG,
      summary: 'Fuzzy name search across boundary types',
      description:
        'Trigram similarity with PostgreSQL pg_trgm semantics (lower-cased, non-alphanumerics dropped, words padded with two spaces before and one after; similarity = shared / (|A| + |B| − shared); threshold 0.3). ' +
        'An exact code (`JHB`, `DC48`, a ward id) comes first with similarity 1. Most similar first, then the shorter name. Only boundaries in force on `as_at` (default today).',
      request: { query: SearchQuerySchema },
      responses: { 200: { description: 'Matches.', schema: SearchEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const hits = s.search(query.q, query.types, d, query.limit)
      return json(c, {
        query: query.q,
        matches: hits.map((h) => ({ ...recordOf(s, h.row), similarity: round(h.similarity, 4) })),
        threshold: 0.3,
        as_at: d,
        message: hits.length ? plural(hits.length, 'match', 'matches') : `No boundary name in force on ${d} is similar to "${query.q}"`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/coverage',
      tags: TAG,
      summary: 'Layer vintages, counts and known gaps',
      description: 'Per boundary type: boundaries in force today, the provinces it covers, and each installed set with its vintage, dates, count, and rows rejected or repaired on ingest. `known_gaps` names what is not installed.',
      request: {},
      responses: { 200: { description: 'Coverage.', schema: CoverageEnvelopeSchema } },
    },
    mw,
    (c) => {
      const s = q()
      const d = today()
      const layers = BOUNDARY_TYPES.map((t) => {
        const rows = s.all().filter((r) => r.type === t)
        const bySet = new Map<string, BoundaryRow[]>()
        for (const r of rows) {
          const l = bySet.get(r.setName)
          if (l) l.push(r)
          else bySet.set(r.setName, [r])
        }
        return {
          boundary_type: t,
          in_force: rows.filter((r) => inForce(r, d)).length,
          provinces: s.provincesWith(t),
          sets: [...bySet.entries()].map(([set, list]) => {
            const info = s.sets.find((x) => x.name === set)
            const stats = s.layerStats(`${set}/${t}`)
            return {
              set,
              vintage: list[0].vintage,
              count: list.length,
              ...(list[0].from ? { effective_from: list[0].from } : {}),
              ...(list[0].to ? { effective_to: list[0].to } : {}),
              geometry: list.some((r) => r.bbox !== null),
              ...(info?.source ? { source: info.source } : {}),
              rejected: stats?.rejected ?? 0,
              repaired: stats?.repaired ?? 0,
            }
          }),
        }
      })
      const gaps: string[] = []
      for (const l of layers) {
        if (!l.sets.length) gaps.push(`${l.boundary_type}: not installed`)
        else if (l.provinces.length && l.provinces.length < 9) gaps.push(`${l.boundary_type}: published for ${l.provinces.join(', ')} only`)
        for (const st of l.sets) if (!st.geometry) gaps.push(`${l.boundary_type}: the ${st.vintage} (${st.effective_from ?? '…'} to ${st.effective_to ?? 'today'}) is installed without geometry; points on those dates get a null ${l.boundary_type} with a note`)
      }
      return json(c, {
        layers,
        known_gaps: gaps,
        ...(s.earliest ? { earliest_as_at: s.earliest } : {}),
        message: `${s.all().length} boundary records in ${s.sets.length} sets`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/heatmap',
      tags: TAG,
      summary: 'Boundary outlines for a map viewport',
      description:
        'Always geometry: a GeoJSON FeatureCollection of the boundaries of `types` (default the municipal chain: province, district_municipality, local_municipality) whose box meets the viewport, in force on `as_at`. ' +
        `Province, district, municipal, registration-division and Deeds Office outlines are drawn at any span; the others only when the viewport's wider side is at most: ${Object.entries(HEATMAP_MAX_SPAN)
          .filter(([, v]) => Number.isFinite(v))
          .map(([k, v]) => `${k} ${v}°`)
          .join(', ')} (a gated type is listed under \`omitted\` with the span to zoom to). ` +
        `Geometry is simplified to about a thousandth of the viewport, rounded up to a power of two metres (\`simplified_m\`); at most ${HEATMAP_MAX_FEATURES} features, \`truncated\` true when more met the viewport. Feature properties: boundary_type, code, name, vintage, category.`,
      request: { query: HeatmapQuerySchema },
      responses: { 200: { description: 'Outlines.', schema: HeatmapEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const span = Math.max(query.north - query.south, query.east - query.west)
      const midLat = (query.north + query.south) / 2
      const tolM = Math.max(1, Math.round((span * 111_320 * Math.cos((midLat * Math.PI) / 180)) / 1000))
      const omitted: { boundary_type: string; reason: string; max_span_degrees: number }[] = []
      const features: Record<string, unknown>[] = []
      let truncated = false
      let simplifiedM = 0
      for (const t of query.types) {
        if (span > HEATMAP_MAX_SPAN[t]) {
          omitted.push({ boundary_type: t, reason: `drawn when the viewport's wider side is at most ${HEATMAP_MAX_SPAN[t]}°; this one spans ${round(span, 4)}°`, max_span_degrees: HEATMAP_MAX_SPAN[t] })
          continue
        }
        for (const r of s.inBox(t, query.west, query.south, query.east, query.north, d)) {
          if (features.length >= HEATMAP_MAX_FEATURES) {
            truncated = true
            break
          }
          const g = s.simplifiedFor(r, tolM)
          if (!g) continue
          simplifiedM = Math.max(simplifiedM, g.toleranceM)
          features.push({
            type: 'Feature',
            id: r.id,
            properties: { boundary_type: t, code: r.code, name: r.name, vintage: r.vintage, ...(r.category ? { category: r.category } : {}) },
            geometry: toGeoJson(g.geometry),
          })
        }
      }
      return json(c, {
        type: 'FeatureCollection',
        features,
        types: query.types,
        omitted,
        simplified_m: simplifiedM || tolM,
        truncated,
        as_at: d,
        message: `${plural(features.length, 'boundary', 'boundaries')} in the viewport${truncated ? ` (first ${HEATMAP_MAX_FEATURES} only)` : ''}`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jurisdiction/tiles/{z}/{x}/{y}.mvt',
      honoPath: '/jurisdiction/tiles/:z/:x/:y{[^/]+\\.mvt}',
      tags: TAG,
      summary: 'Administrative overlay vector tiles',
      description:
        'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per boundary type named as the type, features carrying code, name, vintage and category. ' +
        `\`layers\`: comma list of types (default ${['province', 'district_municipality', 'local_municipality', 'ward'].join(',')}); each layer appears from its zoom on: ${Object.entries(TILE_MIN_ZOOM)
          .map(([k, v]) => `${k} z${v}`)
          .join(', ')}. z 0–22, x and y 0–2^z−1, else 400. No feature in the tile: 204. ETag from the dataset version; If-None-Match answers 304.`,
      request: { params: TileParamsSchema, query: TileQuerySchema },
      responses: {
        200: { description: 'The tile.', contentType: 'application/vnd.mapbox-vector-tile' },
        204: { description: 'No feature in this tile.' },
        304: { description: 'Not modified (If-None-Match matched the ETag).' },
      },
    },
    mw,
    (c, { params, query }) => {
      const s = q()
      const d = query.as_at ?? today()
      const { z, x, y } = parseTileParams(params)
      return tileAnswer(c, `"${s.version}:${query.layers.join(',')}:${d}"`, () => tileBytes(s, z, x, y, query.layers, d))
    },
  )
}

const RESULTS_OPEN = Buffer.from('{"results":[')
const NULL_ITEM = Buffer.from('null')
const COMMA = 0x2c

/**
 * The batch answer `{"results":[item,…],<the rest of tail>}` as UTF-8 bytes, the same text as
 * `{"results":[${items.join(',')}],${tail.slice(1)}` (null items written `null`).
 */
export function batchAnswer(items: readonly ({ bytes: Uint8Array } | null)[], tail: string): Uint8Array {
  const rest = Buffer.from(`],${tail.slice(1)}`, 'utf8')
  let size = RESULTS_OPEN.length + rest.length + Math.max(0, items.length - 1)
  for (const it of items) size += it === null ? NULL_ITEM.length : it.bytes.length
  const out = Buffer.allocUnsafeSlow(size)
  out.set(RESULTS_OPEN, 0)
  let at = RESULTS_OPEN.length
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA
    const b = items[i]?.bytes ?? NULL_ITEM
    out.set(b, at)
    at += b.length
  }
  out.set(rest, at)
  at += rest.length
  if (at !== size) throw new Error(`batch answer: wrote ${at} bytes of ${size}`)
  return out
}

function tileBytes(s: JurisdictionQueries, z: number, x: number, y: number, layers: BoundaryType[], d: string): Uint8Array {
  const { minX: west, minY: south, maxX: east, maxY: north } = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const out: TileLayer[] = []
  for (const t of layers) {
    if (z < TILE_MIN_ZOOM[t]) continue
    const features = []
    for (const r of s.inBox(t, west, south, east, north, d)) {
      const g: MultiPolygon | null = z < TILE_FULL_RES_ZOOM ? s.overview(r) : s.geometry(r)
      if (!g) continue
      features.push({ id: r.id, geometry: g, properties: { code: r.code, name: r.name, vintage: r.vintage, ...(r.category ? { category: r.category } : {}) } })
    }
    if (features.length) out.push({ name: t, features })
  }
  return out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
}

