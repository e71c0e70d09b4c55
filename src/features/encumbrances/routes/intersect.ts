/**
 * `POST /encumbrances/intersect`: corridor and area screening of the caller's geometry.
 *
 * @module
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import { ApiError } from '../../../http/errors.js'
import { type ApiRouter, ErrorBodySchema } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { round } from '../../../geo/round.js'
import { parseInputGeometry } from '../geometry-input.js'
import { INTERSECT_MAX_OVERLAY_EDGES, OverlayTooComplex } from '../candidates.js'
import type { EncumbranceQueries } from '../queries.js'
import { recordOf } from '../records.js'
import { IntersectEnvelopeSchema } from '../answers.js'
import { classesParam, IntersectBodySchema } from '../schemas.js'
import { envelope, found, TAG, type EncumbranceService } from './shared.js'

/**
 * Built once: a schema made per request stayed reachable through its bound `.openapi` method and
 * leaked about 4 KB a request (issue #29).
 */
const ENCUMBRANCE_CLASS = classesParam('encumbrance_class')

/** The body checked (every problem named), then the encumbrances met and the parcels entered. */
export function answerIntersect(
  c: Context<AppEnv>,
  s: EncumbranceQueries,
  body: z.output<typeof IntersectBodySchema>,
): Response {
  const geometry = parseInputGeometry(body.geometry)
  const classes = ENCUMBRANCE_CLASS.safeParse(
    Array.isArray(body.encumbrance_class) ? body.encumbrance_class.join(',') : body.encumbrance_class,
  )
  const problems = Array.isArray(geometry) ? [...geometry] : []
  if (!classes.success) problems.push({ field: 'encumbrance_class', message: classes.error.issues[0].message })
  if (problems.length || Array.isArray(geometry) || !classes.success) {
    throw new ApiError(
      'ValidationError',
      `invalid request: ${[...new Set(problems.map((p) => p.field))].join(', ')}`,
      problems,
    )
  }
  const res = intersectBounded(s, geometry, classes.data)
  const isRoute = 'lines' in geometry
  return json(c, {
    encumbrances: res.encumbrances.map(({ row, overlap }) =>
      recordOf(row, { overlap, geometry: body.include_geometry === false ? undefined : s.geometryOf(row) }),
    ),
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
      (res.parcelsAvailable
        ? `; ${plural(res.parcels.length, 'parcel')} entered${res.parcelsTruncated ? ' (list truncated)' : ''}`
        : '; parcels not installed on this deployment'),
    ...envelope(s),
  })
}

/**
 * The overlay of a checked geometry; a clip that still runs out of stack on a pathological shape
 * answers 400 GeometryTooComplex naming what to do, never a 500.
 */
function intersectBounded(
  s: EncumbranceQueries,
  geometry: Exclude<ReturnType<typeof parseInputGeometry>, unknown[]>,
  classes: Parameters<EncumbranceQueries['intersect']>[1],
) {
  try {
    return s.intersect('lines' in geometry ? { lines: geometry.lines } : { mp: geometry.mp }, classes)
  } catch (err) {
    if (err instanceof OverlayTooComplex)
      throw new ApiError('GeometryTooComplex', `${err.message}: simplify the outline or split the area`, [
        {
          field: 'geometry',
          message: `meets the parcels and records under it more than ${INTERSECT_MAX_OVERLAY_EDGES} times`,
        },
      ])
    if (err instanceof RangeError)
      throw new ApiError(
        'GeometryTooComplex',
        'the geometry is too complex to overlay (too many vertices in too little room): simplify it or split it ' +
          'into smaller requests',
        [{ field: 'geometry', message: 'too complex to overlay' }],
      )
    throw err
  }
}

export function registerIntersectRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'post',
      path: '/encumbrances/intersect',
      operationId: 'postEncumbrancesIntersect',
      tags: TAG,
      summary: 'Corridor and area screening',
      description:
        'Body `{"geometry": <GeoJSON LineString or Polygon>, "encumbrance_class"?: "a,b", "include_geometry"?: ' +
        'true}`: each encumbrance carries its geometry as its record does elsewhere, unless `include_geometry` ' +
        'is false. ' +
        '`geometry` may also be WKT text (`"LINESTRING (28.0 -26.2, 28.1 -26.25)"`, or a POLYGON), read into the ' +
        'GeoJSON form and checked as it is; malformed WKT or another WKT type answers 400. A line up to 200 km ' +
        '(geodesic), a polygon up to 2 500 km² (at most 1 000 holes); longer, larger, self-intersecting, malformed, ' +
        'NaN/Infinity or out-of-range geometry answers 400 naming the problem. ' +
        '`encumbrances`: every current encumbrance the geometry meets, `relationship` being the encumbrance ' +
        'relative to the geometry (within = inside the area, contains = covers the route or area, crosses, ' +
        'touches); routes report `overlap_m` (route length inside an area, shared length with a line); areas ' +
        'report `overlap_sqm` (and `overlap_m` for lines; null `overlap_sqm` with a note for undimensioned ' +
        'lines). ' +
        '`parcels`: every current parcel except parent farms whose interior the geometry enters (touch-only ' +
        'contacts left out), by parcel id, with `overlap_m` (routes) or `overlap_sqm` (areas). ' +
        `At most 5000 encumbrances and 10000 parcels are listed; \`encumbrances_truncated\` / \`parcels_truncated\` ` +
        `say when more met the geometry.`,
      request: { body: IntersectBodySchema },
      responses: {
        200: { description: 'Encumbrances and parcels met.', schema: IntersectEnvelopeSchema },
        400: {
          description:
            'ValidationError (malformed, out of range, outside South Africa and Botswana, too long, too large, ' +
            'self-intersecting), or GeometryTooComplex: a polygon with more than 1 000 holes, edges that cross ' +
            'more than 50 000 search cells of 0.005°, or an overlay that cannot be computed within its bounds.',
          schema: ErrorBodySchema,
        },
        503: { description: 'EncumbranceDataUnavailable.' },
      },
    },
    guards,
    (c, { body }) => answerIntersect(c, service(c), body),
  )
}
