/**
 * The statements PostGIS is asked (timed, and the untimed ones that explain a difference), and
 * one query on both sides ({@link PgOp}).
 */
import type { Client } from 'pg'
import { KNN_SLACK, type Answer, type OpName } from './model.js'

/**
 * One query on both sides: ours per probe, and PostGIS's statement `SQL[op]` with the probe's
 * parameters (`values`, in the order of `$1`, `$2`, …), its rows read back by `answer`.
 */
export type PgOp = {
  op: OpName
  probes: { length: number }
  where: (k: number) => string
  ours: (k: number) => Answer
  values: (k: number) => unknown[]
  answer: (rows: Record<string, unknown>[]) => Answer
}

const PT_GEOG = 'ST_SetSRID(ST_MakePoint($1::float8, $2::float8), 4326)::geography'
export const SQL = {
  nearest:
    `SELECT id, d FROM (SELECT id, ST_Distance(geog, ${PT_GEOG}) AS d FROM plot
              WHERE ST_DWithin(geog, ${PT_GEOG}, LEAST((SELECT geog <-> ${PT_GEOG} FROM plot ORDER BY geog <-> ${PT_GEOG} LIMIT 1) * ${KNN_SLACK} + 0.01, $3::float8 ` +
    `* ${KNN_SLACK}), false)) c
            WHERE d <= $3::float8 ORDER BY d, id LIMIT 1`,
  radius:
    `SELECT id, ST_Distance(geog, ${PT_GEOG}) AS d FROM plot WHERE ST_DWithin(geog, ${PT_GEOG}, $3::float8) ORDER ` +
    `BY d, id LIMIT $4::int`,
  at: `SELECT id FROM parcel WHERE ST_Intersects(geom, ST_SetSRID(ST_MakePoint($1::float8, $2::float8), 4326))
       AND lstatus NOT IN ('A', 'W') AND wstatus IS DISTINCT FROM 'H' ORDER BY id`,
  // k 0: the encumbrances met (geography), k 1: the parcels entered (geometry), as /intersect lists them
  corridor: `SELECT 0 AS k, uid AS id, ST_Length(ST_Intersection(geog, ST_GeogFromText($1::text))) AS m
       FROM encumbrance WHERE ST_Intersects(geog, ST_GeogFromText($1::text))
     UNION ALL
     SELECT 1, id::int8, ST_Length(ST_Intersection(geom, ST_GeomFromText($1::text, 4326))::geography)
       FROM parcel WHERE ST_Intersects(geom, ST_GeomFromText($1::text, 4326)) AND NOT ST_Touches(geom, ST_GeomFromText($1::text, 4326))
       AND lstatus NOT IN ('A', 'W') AND wstatus IS DISTINCT FROM 'H' AND NOT parent_farm`,
}
/**
 * Untimed: the length inside a record met on both sides with straight edges in lon/lat (geometry), then measured on the
 * spheroid.
 */
export const PLANAR_LENGTH_SQL =
  `SELECT ST_Length(ST_Intersection(geog::geometry, ST_GeomFromText($1::text, ` +
  `4326))::geography) AS m FROM encumbrance WHERE uid = $2::int8`
/** Untimed: does the piece of the route inside a parcel lie within $3 m of the parcel's boundary? */
export const PARCEL_EDGE_SQL =
  `SELECT ST_Covers(ST_Buffer(ST_Boundary(geom)::geography, $3::float8)::geometry, ` +
  `ST_Intersection(geom, ST_GeomFromText($1::text, 4326))) AS near FROM parcel WHERE id = $2`
/** Untimed: one encumbrance against one route, to explain a uid met on one side only. */
export const EXPLAIN_SQL = `SELECT cls, ST_Distance(geog, ST_GeogFromText($1::text)) AS gap_m, ST_Intersects(geog::geometry, ST_GeomFromText($1::text, 4326)) AS planar,
  ST_Distance(geog::geometry, ST_GeomFromText($1::text, 4326)) AS planar_gap FROM encumbrance WHERE uid = $2::int8`

/** PostGIS's answer to probe k, through a named prepared statement. */
export async function ask(c: Client, o: PgOp, k: number): Promise<Answer> {
  return o.answer((await c.query({ name: o.op, text: SQL[o.op], values: o.values(k) })).rows)
}

export const idsAndDistances = (rows: Record<string, unknown>[]): Answer => ({
  ids: rows.map((x) => x.id as number),
  d: rows.map((x) => x.d as number),
})
