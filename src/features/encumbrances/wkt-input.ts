/**
 * The caller's /intersect geometry as WKT text (GIS users paste it): read with `wellknown` into
 * the GeoJSON form, which then goes through exactly the checks of a GeoJSON geometry
 * (geometry-input.ts). Only the types the GeoJSON form accepts (LINESTRING, POLYGON); an
 * optional `SRID=4326;` prefix (EWKT) is allowed, another SRID is not (the coordinates must be
 * WGS84 longitude latitude). Every failure is a message for the `geometry` field, never a throw.
 *
 * @module
 */
import { parse } from 'wellknown'

/** The GeoJSON types a WKT geometry may have: those the GeoJSON form accepts. */
const ACCEPTED = new Set(['LineString', 'Polygon'])

const EXAMPLE =
  'e.g. LINESTRING (28.0 -26.2, 28.1 -26.25) or POLYGON ((28.0 -26.2, 28.1 -26.2, 28.1 -26.1, 28.0 -26.2)), ' +
  'longitude before latitude'

/** WKT text as a GeoJSON LineString or Polygon, or what is wrong with it. */
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
  // wellknown stops at the end of the geometry and ignores what follows: text after it, or
  // parentheses that do not pair up, make the WKT malformed here
  const balanced = t.split('(').length === t.split(')').length
  const ends = t.endsWith(')') || /\bEMPTY$/i.test(t)
  const g = balanced && ends ? parse(t) : null
  if (!g) return { problem: `geometry is not valid WKT (${EXAMPLE})` }
  if (!ACCEPTED.has(g.type))
    return { problem: `geometry: WKT ${g.type.toUpperCase()} is not accepted; give a LINESTRING or a POLYGON` }
  return { type: g.type as 'LineString' | 'Polygon', coordinates: (g as { coordinates: unknown[] }).coordinates }
}
