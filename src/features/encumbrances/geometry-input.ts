/**
 * The caller's /intersect geometry, checked in this one module from the body to the overlay:
 *
 * 1. its form ({@link IntersectGeometrySchema}, in the body schema): a GeoJSON LineString or
 *    Polygon object, or WKT text read into that form (LINESTRING, POLYGON, an optional
 *    `SRID=4326;` prefix);
 * 2. its positions ({@link parseInputGeometry}), one by one: finite numbers in range and within
 *    the countries served, every problem reported as a field error naming where it is (never a
 *    500 on NaN, Infinity, strings or nesting errors), at most GEOMETRY_MAX_POSITIONS;
 * 3. its work, before any cell is built or ring compared: holes, then search cells;
 * 4. its simplicity, then the spec's limits (200 km, 2 500 km²).
 *
 * @module
 */
import { z } from '@hono/zod-openapi'
import { parse as parseWkt } from 'wellknown'
import { ApiError, type FieldError } from '../../http/errors.js'
import { cellWork, SEARCH_CELL_DEG } from '../../geo/cells.js'
import { inServedCountries, SERVED_COUNTRIES_LABEL } from '../../geo/country-extent.js'
import type { Lines } from '../../geo/lines.js'
import { areaSqm, lineLengthM } from '../../geo/overlay/measure.js'
import { lineProblems, polygonProblems } from '../../geo/overlay/validity.js'
import { ringSignedArea2, type MultiPolygon, type Ring } from '../../geo/polygon.js'

/** /intersect limits of the spec. */
export const ROUTE_MAX_M = 200_000
export const AREA_MAX_SQM = 2_500_000_000
/** Positions accepted in one /intersect geometry. */
export const GEOMETRY_MAX_POSITIONS = 20_000
/** The search cells (0.005°) an /intersect geometry's edges may cross (docs/api.md "Bounded work"). */
export const MAX_CELL_WORK = 50_000
/** The holes an /intersect polygon may have (docs/api.md "Bounded work"). */
export const AREA_MAX_HOLES = 1_000

/** The WKT types the GeoJSON form accepts. */
const WKT_ACCEPTED = new Set(['LineString', 'Polygon'])

const WKT_EXAMPLE =
  'e.g. LINESTRING (28.0 -26.2, 28.1 -26.25) or POLYGON ((28.0 -26.2, 28.1 -26.2, 28.1 -26.1, 28.0 -26.2)), ' +
  'longitude before latitude'

/**
 * The deepest WKT nesting read: a MULTIPOLYGON's, the deepest of the simple types (a POLYGON
 * nests 2, a LINESTRING 1), so those still hear that their type is not accepted.
 */
export const WKT_MAX_DEPTH = 3

/** How deep the parentheses of the text nest (a closing one without its opening one ends no deeper). */
function wktDepth(text: string): number {
  let depth = 0
  let max = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 40) max = Math.max(max, ++depth)
    else if (c === 41 && depth > 0) depth--
  }
  return max
}

/**
 * WKT text as a GeoJSON LineString or Polygon, or what is wrong with it (GIS users paste it):
 * read with `wellknown`, then checked exactly as the GeoJSON form. Another SRID than 4326 is
 * refused (the coordinates must be WGS84 longitude latitude). Every failure is a message for the
 * `geometry` field, never a throw.
 */
export function geoJsonOfWkt(
  text: string,
): { type: 'LineString' | 'Polygon'; coordinates: unknown[] } | { problem: string } {
  const t = text.trim()
  if (t.startsWith('{') || t.startsWith('['))
    return { problem: 'geometry as a string is read as WKT; send GeoJSON as an object, not as text' }
  const srid = /^SRID\s*=\s*([^;]*);/i.exec(t)
  if (srid && srid[1].trim() !== '4326')
    return {
      problem:
        `geometry: WKT with SRID=${srid[1].trim().slice(0, 20)} is not accepted; coordinates must be WGS84 ` +
        `longitude latitude (SRID=4326)`,
    }
  // wellknown reads a GEOMETRYCOLLECTION by recursion, and 20 000 nested ones ran out of stack
  // (a 500): parentheses nested deeper than any accepted geometry needs are refused unread
  const depth = wktDepth(t)
  if (depth > WKT_MAX_DEPTH)
    return {
      problem:
        `geometry: WKT nests its parentheses ${depth} deep; at most ${WKT_MAX_DEPTH} ` +
        '(a POLYGON nests 2: POLYGON ((x y, …), (x y, …)))',
    }
  // wellknown stops at the end of the geometry and ignores what follows: text after it, or
  // parentheses that do not pair up, make the WKT malformed here
  const balanced = t.split('(').length === t.split(')').length
  const ends = t.endsWith(')') || /\bEMPTY$/i.test(t)
  const g = balanced && ends ? parseWkt(t) : null
  if (!g) return { problem: `geometry is not valid WKT (${WKT_EXAMPLE})` }
  if (!WKT_ACCEPTED.has(g.type))
    return { problem: `geometry: WKT ${g.type.toUpperCase()} is not accepted; give a LINESTRING or a POLYGON` }
  return { type: g.type as 'LineString' | 'Polygon', coordinates: (g as { coordinates: unknown[] }).coordinates }
}

/**
 * The /intersect geometry as a GeoJSON object. Its checks are refinements, which do not abort:
 * in the union with {@link WktSchema} zod then answers the object's own issues
 * (`geometry.type`, `geometry.coordinates`) rather than "no alternative matched". Not an object
 * (nor text): the union's own message.
 */
const GeoJsonSchema = z
  .object({
    type: z
      .any()
      .refine((t) => t === 'LineString' || t === 'Polygon', { error: 'geometry.type must be LineString or Polygon' })
      .openapi({ type: 'string', enum: ['LineString', 'Polygon'] }),
    coordinates: z
      .any()
      .refine((c) => Array.isArray(c), { error: 'geometry.coordinates must be an array' })
      .openapi({ type: 'array', items: {} }),
  })
  .openapi({
    description:
      `GeoJSON LineString (at most ${ROUTE_MAX_M / 1000} km) or Polygon (at most ${AREA_MAX_SQM / 1e6} km², at ` +
      `most ${AREA_MAX_HOLES} holes), WGS84 [longitude, latitude], at most ${GEOMETRY_MAX_POSITIONS} positions, not ` +
      `self-intersecting.`,
  })

/** The /intersect geometry as WKT text, read into the GeoJSON form ({@link geoJsonOfWkt}); then checked as that form is. */
const WktSchema = z
  .string()
  .transform((text, ctx) => {
    const g = geoJsonOfWkt(text)
    if ('problem' in g) {
      // not aborting, as the object's refinements: the union answers this message for `geometry`
      ctx.addIssue({ code: 'custom', message: g.problem, continue: true })
      return z.NEVER
    }
    return g
  })
  .openapi({
    description:
      'The same geometry as WKT text: LINESTRING or POLYGON (an optional `SRID=4326;` prefix allowed), WGS84 ' +
      'longitude latitude, e.g. `LINESTRING (28.0 -26.2, 28.1 -26.25)`. Malformed WKT, another type, or ' +
      `parentheses nested deeper than ${WKT_MAX_DEPTH} answer 400.`,
    example: 'LINESTRING (28.0 -26.2, 28.1 -26.25)',
  })

/**
 * The body's `geometry`: its form checked (a GeoJSON object, or WKT text read into one); the
 * route then hands it to {@link parseInputGeometry} for everything else.
 */
export const IntersectGeometrySchema = z.union([GeoJsonSchema, WktSchema], {
  error: 'geometry must be a GeoJSON LineString or Polygon object, or WKT text',
})

export type InputGeometry = { lines: Lines; lengthM: number } | { mp: MultiPolygon; areaSqm: number }

const FIELD = 'geometry'

/** Reads `[lon, lat]` positions; pushes one error per bad position (at most a few). */
function positions(raw: unknown, path: string, errors: FieldError[]): [number, number][] | null {
  if (!Array.isArray(raw)) {
    errors.push({ field: path, message: 'must be an array of [longitude, latitude] positions' })
    return null
  }
  const out: [number, number][] = []
  let bad = 0
  raw.forEach((p, i) => {
    const where = `${path}.${i}`
    if (!Array.isArray(p) || p.length < 2 || p.length > 3) {
      if (bad++ < 3) errors.push({ field: where, message: 'must be a [longitude, latitude] position' })
      return
    }
    const [x, y] = p
    if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) {
      if (bad++ < 3) errors.push({ field: where, message: 'longitude and latitude must be finite numbers' })
      return
    }
    if (x < -180 || x > 180 || y < -90 || y > 90) {
      if (bad++ < 3)
        errors.push({ field: where, message: `[${x}, ${y}] is out of range (longitude -180..180, latitude -90..90)` })
      return
    }
    // the served countries only: a geometry elsewhere (or across the antimeridian) meets no
    // record, and its planar box could be the width of the world
    if (!inServedCountries(x, y)) {
      if (bad++ < 3)
        errors.push({
          field: where,
          message: `[${x}, ${y}] is outside ${SERVED_COUNTRIES_LABEL}, the countries served`,
        })
      return
    }
    out.push([x, y])
  })
  return bad ? null : out
}

/**
 * Bounds the work of a geometry before any cell is built or any ring checked against another
 * (docs/api.md "Bounded work"). Its holes, counted first: each is a ring checked against the
 * shell and its neighbours and cut out of every parcel and record it comes near, where the
 * overlay takes the general clipper; before this bound 3 990 small holes held a worker for a
 * minute. Then the cells its edges cross (the holes' edges with the shell's), about
 * (|Δlon| + |Δlat|) / 0.005° per edge: a 200 km route is about 600, the outline of a 2 500 km²
 * area a few thousand; a comb of long thin teeth within the area limit is what reaches the
 * budget.
 */
function checkWork(parts: [number, number][][], holes = 0): void {
  if (holes > AREA_MAX_HOLES)
    throw new ApiError(
      'GeometryTooComplex',
      `the polygon has ${holes} holes; at most ${AREA_MAX_HOLES}: leave out the small ones or split the area ` +
        'into smaller requests',
      [{ field: `${FIELD}.coordinates`, message: `has more than ${AREA_MAX_HOLES} holes` }],
    )
  const work = cellWork(parts)
  if (work > MAX_CELL_WORK)
    throw new ApiError(
      'GeometryTooComplex',
      `the geometry's edges cross about ${Math.round(work)} search cells of ${SEARCH_CELL_DEG}°; at most ` +
        `${MAX_CELL_WORK}: simplify it or split it into smaller requests`,
      [{ field: FIELD, message: `crosses more than ${MAX_CELL_WORK} search cells` }],
    )
}

/** Checks and converts the body's `geometry`; errors name every problem found. */
export function parseInputGeometry(g: { type: string; coordinates: unknown[] }): InputGeometry | FieldError[] {
  const errors: FieldError[] = []
  const count = JSON.stringify(g.coordinates).split('[').length
  if (count > GEOMETRY_MAX_POSITIONS * 2)
    return [{ field: `${FIELD}.coordinates`, message: `at most ${GEOMETRY_MAX_POSITIONS} positions` }]
  if (g.type === 'LineString') {
    const line = positions(g.coordinates, `${FIELD}.coordinates`, errors)
    if (!line) return errors
    const problems = lineProblems(line)
    if (problems.length) return problems.map((message) => ({ field: `${FIELD}.coordinates`, message }))
    checkWork([line])
    const lengthM = lineLengthM([line])
    if (lengthM > ROUTE_MAX_M)
      return [
        {
          field: FIELD,
          message: `the line is ${(lengthM / 1000).toFixed(1)} km long; at most ${ROUTE_MAX_M / 1000} km`,
        },
      ]
    return { lines: [line], lengthM }
  }
  const rings: Ring[] = []
  g.coordinates.forEach((r, i) => {
    const ring = positions(r, `${FIELD}.coordinates.${i}`, errors)
    if (ring) rings.push(ring)
  })
  if (errors.length) return errors
  if (!rings.length) return [{ field: `${FIELD}.coordinates`, message: 'a Polygon needs at least its outer ring' }]
  checkWork(rings, rings.length - 1)
  const problems = polygonProblems(rings)
  if (problems.length) return problems.map((message) => ({ field: `${FIELD}.coordinates`, message }))
  // RFC 7946 winding whatever the caller sent: exterior counter-clockwise, holes clockwise
  const oriented = rings.map((r, i) => (ringSignedArea2(r) > 0 === (i === 0) ? r : [...r].reverse()))
  const mp: MultiPolygon = [oriented]
  const area = areaSqm(mp)
  if (area > AREA_MAX_SQM)
    return [
      { field: FIELD, message: `the polygon covers ${(area / 1e6).toFixed(1)} km²; at most ${AREA_MAX_SQM / 1e6} km²` },
    ]
  return { mp, areaSqm: area }
}
