/**
 * The plot layers opened once per dataset, one per country: the point index, each plot's town,
 * the towns by id and by name, the plot numbers (table or SQLite), the by-number statement, and
 * the JSON fragment every plot of a town carries.
 */
import type Database from 'better-sqlite3'
import type { OpenDataset } from '../../data/open-dataset.js'
import { decodeStrings, PLOT_COUNTRIES, PLOT_COUNTRY_ENUM, PLOT_FILES } from '../../data/plots-format.js'
import { PointIndex } from '../../geo/point-index.js'

export type CountryEnum = 'BOTSWANA' | 'SOUTH_AFRICA'

export interface CityRow {
  id: number
  name: string
  region: string
  plot_count: number
}

export interface CountryLayer {
  country: CountryEnum
  index: PointIndex
  cityOf: Uint32Array
  idOffset: number
  cities: Map<number, CityRow>
  /** upper-case name -> city ids (a township name recurs across provinces) */
  cityIdsByName: Map<string, number[]>
  /** plot number of item i (0-based) */
  numberAt: (i: number) => string
  byNumber: Database.Statement<[{ number: string; ids: string | null; limit: number }]>
  /** how many plots byNumber would find without its limit */
  countByNumber: Database.Statement<[{ number: string; ids: string | null }]>
  /** city id -> the JSON every plot of that town carries after its coordinates */
  townJson: Uint8Array[]
  /** the plot numbers' UTF-8, when the dataset has the numbers table */
  numberBytes: { bytes: Uint8Array; offsets: Uint32Array } | null
}

/** The JSON toPlot writes for a plot's town, country and region, per city id, and the distance key after it. */
function townFragments(country: CountryEnum, cities: Map<number, CityRow>): Uint8Array[] {
  let maxId = 0
  for (const id of cities.keys()) maxId = Math.max(maxId, id)
  const out = new Array<Uint8Array>(maxId + 1).fill(new Uint8Array(0))
  for (const [id, city] of cities) {
    let town = `,"city":${JSON.stringify(city.name)},"country":"${country}","parcel_identifier_type":"${country === 'BOTSWANA' ? 'PLOT_NUMBER' : 'ERF_NUMBER'}"`
    if (city.region) town += `,"${country === 'BOTSWANA' ? 'district' : 'province'}":${JSON.stringify(city.region)}`
    // the distance key always follows the town: one fragment copy instead of two
    out[id] = Buffer.from(`${town},"distance_meters":`)
  }
  return out
}

function openLayer(ds: OpenDataset, key: (typeof PLOT_COUNTRIES)[number]): CountryLayer | null {
  const stats = ds.domain('plots')?.layers[key]
  if (!stats) return null
  const files = PLOT_FILES[key]
  const db = ds.sqlite(files.sqlite)
  // datasets built before the numbers table existed read the number from SQLite
  const byRow = db.prepare('SELECT plot_number FROM plot WHERE id = ?').pluck() as Database.Statement<[number], string>
  const table = ds.has(files.numbers) ? decodeStrings(ds.arrayBuffer(files.numbers)) : null
  const cities = new Map<number, CityRow>()
  const cityIdsByName = new Map<string, number[]>()
  for (const c of db.prepare('SELECT id, name, region, plot_count FROM city ORDER BY id').all() as CityRow[]) {
    cities.set(c.id, c)
    const list = cityIdsByName.get(c.name.toUpperCase()) ?? []
    list.push(c.id)
    cityIdsByName.set(c.name.toUpperCase(), list)
  }
  return {
    country: PLOT_COUNTRY_ENUM[key],
    index: PointIndex.from(ds.arrayBuffer(files.kdbush), stats.rows),
    cityOf: new Uint32Array(ds.arrayBuffer(files.cityIds)),
    idOffset: Number(stats.meta?.id_offset ?? 0),
    cities,
    cityIdsByName,
    townJson: townFragments(PLOT_COUNTRY_ENUM[key], cities),
    numberBytes: table,
    numberAt: table ? table.get : (i) => byRow.get(i + 1)!,
    byNumber: db.prepare(
      `SELECT id, plot_number, latitude, longitude, city_id FROM plot
       WHERE plot_number = @number COLLATE NOCASE AND (@ids IS NULL OR city_id IN (SELECT value FROM json_each(@ids)))
       ORDER BY id LIMIT @limit`,
    ) as Database.Statement<[{ number: string; ids: string | null; limit: number }]>,
    countByNumber: db
      .prepare(
        `SELECT count(*) FROM plot
         WHERE plot_number = @number COLLATE NOCASE AND (@ids IS NULL OR city_id IN (SELECT value FROM json_each(@ids)))`,
      )
      .pluck() as Database.Statement<[{ number: string; ids: string | null }]>,
  }
}

/** The plot layers of an open dataset, by country (a country without plots has none). */
export function openPlotLayers(ds: OpenDataset): Map<CountryEnum, CountryLayer> {
  const layers = new Map<CountryEnum, CountryLayer>()
  for (const key of PLOT_COUNTRIES) {
    const l = openLayer(ds, key)
    if (l) layers.set(l.country, l)
  }
  return layers
}
