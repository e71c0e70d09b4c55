import { requireCountry, requireProduct } from '../../auth/middleware.js'
import { ENCUMBRANCE_CLASSES, HEAT_CELL_DEG, type EncumbranceClass } from '../../data/encumbrance-format.js'
import type { MultiPolygon } from '../../data/geometry-blob.js'
import { ApiError } from '../../http/errors.js'
import { requireService } from '../../http/service-guard.js'
import { tileAnswer } from '../../http/tile-answer.js'
import { plural } from '../../http/text.js'
import type { ApiRouter } from '../../http/openapi.js'
import type { Lines } from '../../geo/lines.js'
import { areaSqm } from '../../geo/overlay/measure.js'
import { DEFAULT_TILE_BUFFER_PX, encodeTile, type TileLayer } from '../../geo/mvt/encode.js'
import { tileBBox } from '../../geo/tiles.js'
import { parseTileParams } from '../../http/tile-params.js'
import { parseInputGeometry } from './geometry-input.js'
import type { EncumbranceQueries, EncumbranceRow, Overlap, ParcelRef } from './queries.js'
import {
  AtQuerySchema,
  BATCH_MAX,
  BatchBodySchema,
  BatchEnvelopeSchema,
  classesParam,
  CoverageEnvelopeSchema,
  DetailEnvelopeSchema,
  EncLpiParamsSchema,
  HeatmapEnvelopeSchema,
  HeatmapQuerySchema,
  IntersectBodySchema,
  IntersectEnvelopeSchema,
  ListEnvelopeSchema,
  ParcelEnvelopeSchema,
  SearchQuerySchema,
  SummaryEnvelopeSchema,
  TileParamsSchema,
  TileQuerySchema,
  UidParamsSchema,
  WithinQuerySchema,
} from './schemas.js'
import { json } from '../../http/reply.js'
import { round } from '../../geo/round.js'

const TAG = ['Encumbrances']
const r7 = (v: number) => round(v, 7)
const UNDIMENSIONED_NOTE = 'An undimensioned servitude line has no surveyed width, so no overlapping area can be computed; overlap_m gives its length inside.'
const EMPTY_NOTE = 'Nothing was found in this dataset; this does not mean the property is unencumbered (the export may be incomplete, and unregistered rights are not in it).'

/** Heat-map boundaries: the widest viewport side (degrees) at which a class is still drawn. */
export const HEATMAP_MAX_SPAN: Record<EncumbranceClass, number> = {
  servitude_area: 0.1,
  servitude_line: 0.1,
  proclamation_line: 0.5,
  established_boundary: 0.5,
  lease: 0.5,
  mineral_right: 1,
  state_land: 1,
  river_bed: 1,
  proclamation_area: 1,
}
/** `view=auto` draws boundaries when the viewport's wider side is at most this, density cells above. */
export const HEATMAP_AUTO_BOUNDARIES_DEG = 0.1
/** At most this many density cells or features per heat-map answer. */
export const HEATMAP_MAX_ITEMS = 4000
/** Density cells per viewport side, about: the cell is the smallest whole multiple of 0.01° giving at most this many. */
export const HEATMAP_CELLS_PER_SIDE = 100
/** Tile scale gates: the lowest zoom at which a class carries features. */
export const TILE_MIN_ZOOM: Record<EncumbranceClass, number> = {
  mineral_right: 8,
  state_land: 8,
  river_bed: 8,
  proclamation_area: 8,
  lease: 10,
  established_boundary: 10,
  proclamation_line: 10,
  servitude_area: 12,
  servitude_line: 12,
}

/** GeoJSON of stored geometry: Polygon or MultiPolygon for areas, LineString or MultiLineString for lines. */
function geoJsonOf(g: { mp: MultiPolygon } | { lines: Lines }): { type: string; coordinates: unknown } {
  if ('lines' in g) {
    const lines = g.lines.map((l) => l.map(([x, y]) => [r7(x), r7(y)]))
    return lines.length === 1 ? { type: 'LineString', coordinates: lines[0] } : { type: 'MultiLineString', coordinates: lines }
  }
  const polys = g.mp.map((p) => p.map((r) => r.map(([x, y]) => [r7(x), r7(y)])))
  return polys.length === 1 ? { type: 'Polygon', coordinates: polys[0] } : { type: 'MultiPolygon', coordinates: polys }
}


/** An encumbrance record in the spec's field order; absent fields omitted, never null (except overlap_sqm on an undimensioned line). */
function recordOf(
  r: EncumbranceRow,
  extra: { overlap?: Overlap; distanceM?: number; geometry?: { mp: MultiPolygon } | { lines: Lines } } = {},
): Record<string, unknown> {
  const o: Record<string, unknown> = {
    encumbrance_uid: r.uid,
    encumbrance_class: r.cls,
    ease_type_normalised: r.easeTypeNormalised,
    ease_type: r.easeType,
  }
  if (r.sgNumber) o.sg_number = r.sgNumber
  o.province = r.province
  if (r.extentSqm !== null) o.extent_sqm = r.extentSqm
  if (r.lengthM !== null) o.length_m = r.lengthM
  if (r.widthM !== null) o.width_m = r.widthM
  if (r.dateStamp) o.date_stamp = r.dateStamp
  if (r.recordStatus) o.record_status = r.recordStatus
  const ov = extra.overlap
  if (ov) {
    o.relationship = ov.relationship
    if (ov.overlapSqm !== undefined) o.overlap_sqm = ov.overlapSqm
    if (ov.pct !== undefined) o.overlap_pct_of_parcel = ov.pct
    if (ov.overlapM !== undefined) o.overlap_m = ov.overlapM
    if (ov.overlapSqm === null) o.note = UNDIMENSIONED_NOTE
  }
  if (extra.distanceM !== undefined) o.distance_m = round(extra.distanceM, 2)
  if (extra.geometry) o.geometry = geoJsonOf(extra.geometry)
  return o
}

/** The encumbrance service (spec 002): South Africa only, `encumbrance` product. */
export function registerEncumbranceRoutes(router: ApiRouter, queries: () => EncumbranceQueries | null): void {
  const mw = [requireProduct('encumbrance'), requireCountry('SOUTH_AFRICA')]
  const q = requireService(queries, 'EncumbranceDataUnavailable', 'the encumbrance dataset is not installed on this deployment')
  const env = (s: EncumbranceQueries) => ({ as_of: s.asOf, dataset_version: s.version })
  const needParcels = (s: EncumbranceQueries) => {
    if (!s.hasParcels) throw new ApiError('ParcelDataUnavailable', 'the parcel dataset is not installed on this deployment, so parcels cannot be screened')
  }
  const parcelOr404 = (s: EncumbranceQueries, lpi: string): ParcelRef => {
    needParcels(s)
    const p = s.parcelByLpi(lpi)
    if (!p) throw new ApiError('ParcelNotFound', `no published parcel carries the LPI ${lpi}`)
    return p
  }
  // `what` reads after "encumbrance(s)": "intersecting parcel …", "at the point", "matching the filters"
  const found = (n: number, what: string, s: EncumbranceQueries) =>
    n ? `${plural(n, 'encumbrance')} ${what} found in dataset ${s.version} (as of ${s.asOf})` : `No encumbrance ${what} was found in dataset ${s.version} (as of ${s.asOf}). ${EMPTY_NOTE}`
  const summaryOf = (s: EncumbranceQueries, p: ParcelRef) => {
    const { counts, highestPct } = s.summaryOfParcel(p.id)
    const classes = Object.keys(counts)
    return {
      lpi: p.lpi,
      province: p.province,
      parcel_type: p.parcel_type,
      has_encumbrances: classes.length > 0,
      counts_by_class: counts,
      classes,
      highest_impact_pct: highestPct,
    }
  }

  router.add(
    {
      method: 'get',
      path: '/encumbrances/parcel/{lpi}',
      tags: TAG,
      summary: 'All encumbrances intersecting a parcel',
      description:
        'The parcel is the current published version of the LPI (the parcel service\'s default status filter; an LPI whose every version is hidden answers 404 ParcelNotFound). ' +
        'Every current encumbrance meeting it, with `relationship` (the encumbrance relative to the parcel), `overlap_sqm` (geodesic m²), `overlap_pct_of_parcel` (of the parcel\'s computed area) and, for lines, `overlap_m`; ' +
        '`geometry` is the part inside the parcel. A line along the boundary touches (`overlap_sqm` 0, `overlap_m` the shared length); an undimensioned line inside has `overlap_sqm` null and a `note`. ' +
        'Ordered by share of the parcel (highest first), then overlap length, then uid. Cancelled, withdrawn, historic and pending records are never included. ' +
        'An empty list says nothing was found in the dataset, never that the property is unencumbered.',
      request: { params: EncLpiParamsSchema },
      responses: {
        200: { description: 'The encumbrances.', schema: ParcelEnvelopeSchema },
        404: { description: 'ParcelNotFound.' },
        503: { description: 'EncumbranceDataUnavailable, or ParcelDataUnavailable when the cadastre is not installed.' },
      },
    },
    mw,
    (c, { params }) => {
      const s = q()
      const p = parcelOr404(s, params.lpi)
      const parcelMp = s.parcelGeometry(p.id)
      const items = s.overlapsOfParcel(p.id).map(({ row, overlap }) => {
        const geometry = overlap.clip ?? (overlap.relationship === 'contains' ? { mp: parcelMp } : s.geometryOf(row))
        return recordOf(row, { overlap, geometry })
      })
      return json(c, {
        encumbrances: items,
        parcel: { lpi: p.lpi, parcel_type: p.parcel_type, province: p.province, area_sqm: round(areaSqm(parcelMp), 2) },
        message: found(items.length, `intersecting parcel ${p.lpi}`, s),
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/summary/parcel/{lpi}',
      tags: TAG,
      summary: 'Cheap screening summary of a parcel',
      description:
        'Counts of current encumbrances meeting the parcel per class (touching ones included), the classes present, and the largest single overlap as a percentage of the parcel (`highest_impact_pct`, 0 when none has area). ' +
        '`has_encumbrances` false means nothing was found in the dataset, not that the property is unencumbered.',
      request: { params: EncLpiParamsSchema },
      responses: { 200: { description: 'The summary.', schema: SummaryEnvelopeSchema }, 404: { description: 'ParcelNotFound.' }, 503: { description: 'EncumbranceDataUnavailable or ParcelDataUnavailable.' } },
    },
    mw,
    (c, { params }) => {
      const s = q()
      const p = parcelOr404(s, params.lpi)
      const sum = summaryOf(s, p)
      const n = Object.values(sum.counts_by_class).reduce((a, b) => a + b, 0)
      return json(c, { ...sum, message: found(n, `meeting parcel ${p.lpi}`, s), ...env(s) })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/at',
      tags: TAG,
      summary: 'Encumbrances at a point',
      description:
        '`latitude` and `longitude` are required (WGS84). Current encumbrances containing the point, or within `radius_m` of it (geodesic, 0–1000, default 0), nearest first then by uid, each with `distance_m`. ' +
        'A dimensioned servitude line is measured from its strip, an undimensioned one from the line.',
      request: { query: AtQuerySchema },
      responses: { 200: { description: 'List envelope.', schema: ListEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const hits = s.at(query.longitude, query.latitude, query.radius_m, query.encumbrance_class)
      return json(c, {
        encumbrances: hits.map((h) => recordOf(h.row, { distanceM: h.distanceM, geometry: s.geometryOf(h.row) })),
        count: hits.length,
        message: found(hits.length, query.radius_m ? `within ${query.radius_m} m of the point` : 'at the point', s),
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/within',
      tags: TAG,
      summary: 'Encumbrances in a bounding box',
      description:
        'Current encumbrances whose geometry meets `bbox` (`minlon,minlat,maxlon,maxlat`, each side at most 1°), in source order, `limit` per page (1–1000, default 100); send `next_cursor` back as `cursor` for the next page (null on the last).',
      request: { query: WithinQuerySchema },
      responses: { 200: { description: 'List envelope.', schema: ListEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const page = s.within(query.bbox, query.encumbrance_class, query.limit, query.cursor)
      return json(c, {
        encumbrances: page.rows.map(({ row, geometry }) => recordOf(row, { geometry })),
        count: page.rows.length,
        limit: query.limit,
        next_cursor: page.next,
        message: found(page.rows.length, 'in the box', s) + (page.next !== null ? '; more follow (next_cursor)' : ''),
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'post',
      path: '/encumbrances/intersect',
      tags: TAG,
      summary: 'Corridor and area screening',
      description:
        'Body `{"geometry": <GeoJSON LineString or Polygon>, "encumbrance_class"?: "a,b", "include_geometry"?: false}` (encumbrance geometries only on request: fetch one with /encumbrances/{uid}). A line up to 200 km (geodesic), a polygon up to 2 500 km² (holes allowed); longer, larger, self-intersecting, malformed, NaN/Infinity or out-of-range geometry answers 400 naming the problem. ' +
        '`encumbrances`: every current encumbrance the geometry meets, `relationship` being the encumbrance relative to the geometry (within = inside the area, contains = covers the route or area, crosses, touches); routes report `overlap_m` (route length inside an area, shared length with a line); areas report `overlap_sqm` (and `overlap_m` for lines; null `overlap_sqm` with a note for undimensioned lines). ' +
        '`parcels`: every current parcel except parent farms whose interior the geometry enters (touch-only contacts left out), by parcel id, with `overlap_m` (routes) or `overlap_sqm` (areas). ' +
        `At most 5000 encumbrances and 10000 parcels are listed; \`encumbrances_truncated\` / \`parcels_truncated\` say when more met the geometry.`,
      request: { body: IntersectBodySchema },
      responses: {
        200: { description: 'Encumbrances and parcels met.', schema: IntersectEnvelopeSchema },
        503: { description: 'EncumbranceDataUnavailable.' },
      },
    },
    mw,
    async (c, { body }) => {
      const s = q()
      const geometry = parseInputGeometry(body.geometry)
      const classes = classesParam('encumbrance_class').safeParse(Array.isArray(body.encumbrance_class) ? body.encumbrance_class.join(',') : body.encumbrance_class)
      const problems = Array.isArray(geometry) ? [...geometry] : []
      if (!classes.success) problems.push({ field: 'encumbrance_class', message: classes.error.issues[0].message })
      if (problems.length || Array.isArray(geometry) || !classes.success) {
        throw new ApiError('ValidationError', `invalid request: ${[...new Set(problems.map((p) => p.field))].join(', ')}`, problems)
      }
      const res = s.intersect('lines' in geometry ? { lines: geometry.lines } : { mp: geometry.mp }, classes.data)
      const isRoute = 'lines' in geometry
      return json(c, {
        encumbrances: res.encumbrances.map(({ row, overlap }) => recordOf(row, { overlap, geometry: body.include_geometry ? s.geometryOf(row) : undefined })),
        parcels: res.parcels.map((p) => ({
          lpi: p.parcel.lpi,
          parcel_type: p.parcel.parcel_type,
          province: p.parcel.province,
          extent_sqm: p.parcel.extent_sqm,
          ...(p.overlapM !== undefined ? { overlap_m: p.overlapM } : {}),
          ...(p.overlapSqm !== undefined ? { overlap_sqm: p.overlapSqm } : {}),
        })),
        geometry_type: isRoute ? 'LineString' : 'Polygon',
        ...(isRoute ? { length_m: round(geometry.lengthM, 2) } : { area_sqm: round(geometry.areaSqm, 2) }),
        encumbrances_truncated: res.encTruncated,
        parcels_truncated: res.parcelsTruncated,
        message:
          found(res.encumbrances.length, `meeting the ${isRoute ? 'route' : 'area'}`, s) +
          (res.parcelsAvailable ? `; ${plural(res.parcels.length, 'parcel')} entered${res.parcelsTruncated ? ' (list truncated)' : ''}` : '; parcels not installed on this deployment'),
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/search',
      tags: TAG,
      summary: 'Encumbrances by attribute',
      description:
        'All filters optional and combined: `province`, `encumbrance_class` (comma list), `ease_type` (raw value, trimmed, case-insensitive), `ease_type_normalised`, `sg_number` (exact, or `*` wildcards such as `1234/*` or `*/1987`; at most 3, with 2 other characters), ' +
        '`record_status` (omitted or `current`: current records; `any`: cancelled, withdrawn, historic and pending too; or one status), `bbox` (records whose box meets it). ' +
        'Source order, `limit` 1–1000 (default 100), `cursor` as /within. A wildcard with neither a literal start nor a literal end scans at most 200 000 records per page: such a page may hold fewer than `limit` records with a `next_cursor` to continue.',
      request: { query: SearchQuerySchema },
      responses: { 200: { description: 'List envelope.', schema: ListEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const classes = query.encumbrance_class.length === ENCUMBRANCE_CLASSES.length ? undefined : query.encumbrance_class
      const page = s.search(
        {
          province: query.province,
          classes,
          easeType: query.ease_type,
          easeTypeNormalised: query.ease_type_normalised,
          sgNumber: query.sg_number,
          recordStatus: query.record_status ?? 'current',
          bbox: query.bbox,
        },
        query.limit,
        query.cursor,
      )
      return json(c, {
        encumbrances: page.rows.map((r) => recordOf(r)),
        count: page.rows.length,
        limit: query.limit,
        next_cursor: page.next,
        message: found(page.rows.length, 'matching the filters', s) + (page.windowEnd !== null ? `; records up to ${page.windowEnd} scanned, continue with next_cursor` : ''),
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'post',
      path: '/encumbrances/batch',
      tags: TAG,
      summary: `Screen up to ${BATCH_MAX} parcels`,
      description:
        `Body: a JSON array of 1 to ${BATCH_MAX} items (or \`{"items": [...]}\`), each \`{"lpi"}\` or \`{"latitude", "longitude"}\`. A point screens the most specific current parcel containing it (erf first, parent farm last). ` +
        '`results` is in input order: the summary record of each parcel (as /summary/parcel), or null where no parcel was found. Counts as one request.',
      request: { body: BatchBodySchema },
      responses: { 200: { description: 'Aligned results.', schema: BatchEnvelopeSchema }, 503: { description: 'EncumbranceDataUnavailable or ParcelDataUnavailable.' } },
    },
    mw,
    (c, { body }) => {
      const s = q()
      needParcels(s)
      const results = body.map((it) => {
        const p = it.lpi !== undefined ? s.parcelByLpi(it.lpi) : s.parcelAt(it.longitude!, it.latitude!)
        return p ? summaryOf(s, p) : null
      })
      const hit = results.filter((r) => r !== null).length
      const encumbered = results.filter((r) => r?.has_encumbrances).length
      return json(c, {
        results,
        found: hit,
        not_found: results.length - hit,
        message: `${plural(hit, 'parcel')} of ${results.length} found; ${encumbered} with encumbrances in dataset ${s.version}. A parcel without any is not thereby unencumbered.`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/coverage',
      tags: TAG,
      summary: 'What is loaded per province and class',
      description:
        'Per province: per class the records loaded, how many are current, how many have an unspecified kind, how many carry a raw type the vocabulary does not list (served as `other`), repaired and rejected rows; and `missing_classes`, the layers the export does not have for that province. `caveats` states those gaps in words.',
      request: {},
      responses: { 200: { description: 'Coverage.', schema: CoverageEnvelopeSchema } },
    },
    mw,
    (c) => {
      const s = q()
      const rows = s.coverage()
      const provinces = [...new Set(rows.map((r) => r.province))].sort()
      let records = 0
      let current = 0
      let saRecords = 0
      let saUnspecified = 0
      const out = provinces.map((province) => {
        const classes: Record<string, unknown> = {}
        for (const r of rows.filter((x) => x.province === province)) {
          classes[r.class] = { records: r.records, current: r.current, not_current: r.records - r.current, unspecified: r.unspecified, unlisted: r.unlisted, repaired: r.repaired, rejected: r.rejected }
          records += r.records
          current += r.current
          if (r.class === 'servitude_area') {
            saRecords += r.records
            saUnspecified += r.unspecified
          }
        }
        return { province, classes, missing_classes: ENCUMBRANCE_CLASSES.filter((k) => !(k in classes)) }
      })
      const caveats = ENCUMBRANCE_CLASSES.flatMap((k) => {
        const lacking = out.filter((p) => p.missing_classes.includes(k)).map((p) => p.province)
        if (!lacking.length) return []
        if (lacking.length === out.length) return [`No ${k} layer is loaded for any province.`]
        return [`No ${k} layer in ${lacking.join(', ')}: nothing of that class can be found there.`]
      })
      const share = saRecords ? Math.round((saUnspecified / saRecords) * 10000) / 100 : 0
      if (saRecords) caveats.push(`${share}% of servitude areas do not state their kind and are served as unspecified.`)
      return json(c, {
        provinces: out,
        totals: { records, current, unspecified_share_of_servitude_areas: share },
        caveats,
        message: `${records} encumbrance records in ${plural(provinces.length, 'province')} (${current} current)`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/heatmap',
      tags: TAG,
      summary: 'Coverage-map data for a viewport',
      description:
        '`north`, `south`, `east`, `west` (required), `view` (`auto` default, `density`, `boundaries`), `classes` (comma list, default all). ' +
        `\`auto\` answers density cells when the viewport's wider side exceeds ${HEATMAP_AUTO_BOUNDARIES_DEG}°, geometries otherwise. ` +
        `Density: \`cells\` of \`cell_deg\` (the smallest whole multiple of 0.01° giving about ${HEATMAP_CELLS_PER_SIDE} cells per side), each with its box, \`count\` of current records (placed by the centre of their box) and \`counts_by_class\`, busiest first, at most ${HEATMAP_MAX_ITEMS} with \`truncated\`. ` +
        `Boundaries: a GeoJSON FeatureCollection (\`type\`, \`features\`, properties encumbrance_uid, encumbrance_class, ease_type_normalised, sg_number), at most ${HEATMAP_MAX_ITEMS} features with \`truncated\`; a class is drawn only when the viewport's wider side is at most: ${Object.entries(HEATMAP_MAX_SPAN)
          .map(([k, v]) => `${k} ${v}°`)
          .join(', ')} (else listed under \`omitted\`).`,
      request: { query: HeatmapQuerySchema },
      responses: { 200: { description: 'Cells or features.', schema: HeatmapEnvelopeSchema } },
    },
    mw,
    (c, { query }) => {
      const s = q()
      const span = Math.max(query.north - query.south, query.east - query.west)
      const view = query.view === 'boundaries' || (query.view !== 'density' && span <= HEATMAP_AUTO_BOUNDARIES_DEG) ? 'boundaries' : 'density'
      const box = { minX: query.west, minY: query.south, maxX: query.east, maxY: query.north }
      if (view === 'density') {
        const k = Math.max(1, Math.ceil(span / HEAT_CELL_DEG / HEATMAP_CELLS_PER_SIDE))
        const cellDeg = round(k * HEAT_CELL_DEG, 2)
        const all = s.heatCells(box, k, query.classes).sort((a, b) => b.count - a.count || a.gy - b.gy || a.gx - b.gx)
        const cells = all.slice(0, HEATMAP_MAX_ITEMS).map((g) => ({
          west: round(g.gx * cellDeg, 2),
          south: round(g.gy * cellDeg, 2),
          east: round((g.gx + 1) * cellDeg, 2),
          north: round((g.gy + 1) * cellDeg, 2),
          count: g.count,
          counts_by_class: g.byClass,
        }))
        const total = all.reduce((a, g) => a + g.count, 0)
        return json(c, {
          view,
          cell_deg: cellDeg,
          cells,
          truncated: all.length > HEATMAP_MAX_ITEMS,
          message: `${total} current encumbrances in ${plural(all.length, 'cell')} of ${cellDeg}°${all.length > HEATMAP_MAX_ITEMS ? ` (busiest ${HEATMAP_MAX_ITEMS} shown)` : ''}`,
          ...env(s),
        })
      }
      const omitted: { encumbrance_class: string; reason: string; max_span_degrees: number }[] = []
      const features: Record<string, unknown>[] = []
      let truncated = false
      for (const cls of query.classes) {
        if (span > HEATMAP_MAX_SPAN[cls]) {
          omitted.push({ encumbrance_class: cls, reason: `drawn when the viewport's wider side is at most ${HEATMAP_MAX_SPAN[cls]}°; this one spans ${round(span, 4)}°`, max_span_degrees: HEATMAP_MAX_SPAN[cls] })
          continue
        }
        if (truncated) continue
        const rows = s.inBox(cls, box, HEATMAP_MAX_ITEMS - features.length)
        for (const { row: r, geometry } of rows) {
          if (features.length >= HEATMAP_MAX_ITEMS) {
            truncated = true
            break
          }
          features.push({
            type: 'Feature',
            id: r.uid,
            properties: { encumbrance_uid: r.uid, encumbrance_class: r.cls, ease_type_normalised: r.easeTypeNormalised, ...(r.sgNumber ? { sg_number: r.sgNumber } : {}) },
            geometry: geoJsonOf(geometry),
          })
        }
      }
      return json(c, {
        view,
        type: 'FeatureCollection',
        features,
        omitted,
        truncated,
        message: `${plural(features.length, 'encumbrance')} drawn in the viewport${truncated ? ` (first ${HEATMAP_MAX_ITEMS} only)` : ''}`,
        ...env(s),
      })
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/tiles/{z}/{x}/{y}.mvt',
      honoPath: '/encumbrances/tiles/:z/:x/:y{[^/]+\\.mvt}',
      tags: TAG,
      summary: 'Vector tiles keyed by class',
      description:
        'Mapbox Vector Tile 2.1 (`application/vnd.mapbox-vector-tile`, extent 4096), one layer per encumbrance class named as the class, current records only, features carrying encumbrance_uid, ease_type_normalised, ease_type and sg_number. ' +
        `\`classes\`: comma list (default all); each layer appears from its zoom on: ${Object.entries(TILE_MIN_ZOOM)
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
      const { z, x, y } = parseTileParams(params)
      return tileAnswer(c, `"${s.version}:${query.classes.join(',')}"`, () => tileBytes(s, z, x, y, query.classes))
    },
  )

  router.add(
    {
      method: 'get',
      path: '/encumbrances/{encumbrance_uid}',
      tags: TAG,
      summary: 'One encumbrance with the parcels it affects',
      description:
        'The record (any status) with its geometry and `affected_parcels`: every current parcel it meets, by parcel id, with relationship and overlap. A cancelled, withdrawn, historic or pending record answers 200 with its `record_status` and no affected parcels (such records are excluded from every intersection). Unknown uid: 404 EncumbranceNotFound.',
      request: { params: UidParamsSchema },
      responses: { 200: { description: 'The encumbrance.', schema: DetailEnvelopeSchema }, 404: { description: 'EncumbranceNotFound.' } },
    },
    mw,
    (c, { params }) => {
      const s = q()
      const r = s.byUid(params.encumbrance_uid)
      if (!r) throw new ApiError('EncumbranceNotFound', `no encumbrance carries the uid ${params.encumbrance_uid}`)
      const affected = r.recordStatus
        ? []
        : s.affectedParcels(r.id).map(({ parcel, overlap }) => ({
            lpi: parcel.lpi,
            parcel_type: parcel.parcel_type,
            province: parcel.province,
            relationship: overlap.relationship,
            overlap_sqm: overlap.overlapSqm ?? null,
            ...(overlap.overlapM !== undefined ? { overlap_m: overlap.overlapM } : {}),
            ...(overlap.pct !== undefined ? { overlap_pct_of_parcel: overlap.pct } : {}),
            ...(overlap.overlapSqm === null ? { note: UNDIMENSIONED_NOTE } : {}),
          }))
      const message = r.recordStatus
        ? `Encumbrance ${r.uid} is ${r.recordStatus.toLowerCase()}: it is excluded from intersections, so no affected parcels are listed`
        : `Encumbrance ${r.uid} affects ${plural(affected.length, 'current parcel')} in dataset ${s.version}`
      return json(c, { encumbrance: recordOf(r, { geometry: s.geometryOf(r) }), affected_parcels: affected, message, ...env(s) })
    },
  )
}

function tileBytes(s: EncumbranceQueries, z: number, x: number, y: number, classes: EncumbranceClass[]): Uint8Array {
  const box = tileBBox(z, x, y, DEFAULT_TILE_BUFFER_PX)
  const out: TileLayer[] = []
  for (const cls of classes) {
    if (z < TILE_MIN_ZOOM[cls]) continue
    const features = []
    for (const { row: r, geometry } of s.inBox(cls, box, Infinity)) {
      features.push({
        id: r.uid,
        geometry: 'lines' in geometry ? geometry.lines : geometry.mp,
        properties: { encumbrance_uid: r.uid, ease_type_normalised: r.easeTypeNormalised, ease_type: r.easeType, ...(r.sgNumber ? { sg_number: r.sgNumber } : {}) },
      })
    }
    if (features.length) out.push({ name: cls, features })
  }
  return out.length ? encodeTile(out, z, x, y) : new Uint8Array(0)
}
