/**
 * Values that exist in the test dataset (LPIs, plot numbers, boundary codes, points where the
 * data is), so that valid requests reach past "not found" into the code that answers. Read
 * the same way every run (every n-th row by id), so a seed replays the same requests.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

export interface Samples {
  /** values by parameter or body field name */
  byName: Record<string, string[]>
  /** [type, code] of boundaries, for the `{boundary_type}/{code}` paths */
  boundaries: [string, string][]
  /** [lon, lat] where the data is */
  points: [number, number][]
  /** the members of comma lists by parameter name (hints.ts learnLists) */
  lists: Record<string, string[]>
}

function rows<T>(file: string, sql: string): T[] {
  if (!existsSync(file)) return []
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare(sql).all() as T[]
  } finally {
    db.close()
  }
}

/** Every n-th row, so the sample spreads over the table and is the same every run. */
const spread = (table: string, n: number, limit: number) =>
  `FROM ${table} WHERE id % ${n} = 0 ORDER BY id LIMIT ${limit}`

export function readSamples(datasetDir: string): Samples {
  const parcels = rows<{ lpi: string; source_key: string | null; label_lon: number; label_lat: number }>(
    join(datasetDir, 'parcels', 'parcels.sqlite'),
    `SELECT lpi, source_key, label_lon, label_lat ${spread('parcel', 97, 40)}`,
  )
  const plots = ['botswana', 'south_africa'].flatMap((c) =>
    rows<{ plot_number: string; city: string; longitude: number; latitude: number }>(
      join(datasetDir, 'plots', `${c}.sqlite`),
      `SELECT plot_number, (SELECT name FROM city WHERE city.id = city_id) AS city, longitude, latitude ${spread('plot', 61, 25)}`,
    ),
  )
  const encumbrances = rows<{
    uid: number
    sg_number: string | null
    ease_type: string
    province: string
    x: number
    y: number
  }>(
    join(datasetDir, 'encumbrances', 'encumbrances.sqlite'),
    `SELECT uid, sg_number, ease_type, province, (min_x + max_x) / 2 AS x, (min_y + max_y) / 2 AS y ${spread('encumbrance', 7, 30)}`,
  )
  const boundaries = rows<{
    type: string
    code: string
    name: string
    province: string | null
    parent_code: string | null
  }>(
    join(datasetDir, 'jurisdiction', 'boundaries.sqlite'),
    `SELECT type, code, name, province, parent_code ${spread('boundary', 23, 60)}`,
  )
  const uniq = (xs: (string | null | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))]
  const lpis = uniq(parcels.map((p) => p.lpi))
  const codes = uniq(boundaries.map((b) => b.code))
  return {
    byName: {
      lpi: lpis,
      lpis,
      source_key: uniq(parcels.map((p) => p.source_key)),
      plot_number: uniq(plots.map((p) => p.plot_number)),
      city: uniq(plots.map((p) => p.city)),
      encumbrance_uid: uniq(encumbrances.map((e) => String(e.uid))),
      sg_number: uniq(encumbrances.flatMap((e) => [e.sg_number, e.sg_number?.replace(/^\d+/, '*')])),
      ease_type: uniq(encumbrances.map((e) => e.ease_type)),
      province: uniq([...encumbrances.map((e) => e.province), ...boundaries.map((b) => b.province)]),
      code: codes,
      parent: uniq(boundaries.map((b) => b.parent_code)),
      municipality: uniq(boundaries.filter((b) => b.type.endsWith('municipality')).map((b) => b.code)),
      q: uniq(boundaries.flatMap((b) => [b.name, b.name.slice(0, 4).toLowerCase()])),
    },
    boundaries: boundaries.map((b) => [b.type, b.code]),
    points: [
      ...parcels.map((p): [number, number] => [p.label_lon, p.label_lat]),
      ...plots.map((p): [number, number] => [p.longitude, p.latitude]),
      ...encumbrances.map((e): [number, number] => [e.x, e.y]),
    ],
    lists: {},
  }
}
