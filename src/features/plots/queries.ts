import type Database from 'better-sqlite3'
import type { OpenDataset } from '../../data/open-dataset.js'
import { decodeStrings, PLOT_COUNTRIES, PLOT_COUNTRY_ENUM, PLOT_FILES } from '../../data/plots-format.js'
import { PointIndex, type PointHit } from '../../geo/point-index.js'
import type { JsonBytes } from '../../http/json-bytes.js'
import type { City, Plot } from './schemas.js'
import { round } from '../../geo/round.js'

type CountryEnum = 'BOTSWANA' | 'SOUTH_AFRICA'

interface CityRow {
  id: number
  name: string
  region: string
  plot_count: number
}

interface CountryLayer {
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
  /** city id -> the JSON every plot of that town carries after its coordinates */
  townJson: Uint8Array[]
  /** the plot numbers' UTF-8, when the dataset has the numbers table */
  numberBytes: { bytes: Uint8Array; offsets: Uint32Array } | null
}

/**
 * Plots a coordinate search found, kept as index hits until the answer is written: `write` puts
 * the JSON array of `plots()` into a JsonBytes without making the objects (a 100-plot radius
 * answer spent more CPU making, stringifying and encoding the objects than searching).
 */
export interface FoundPlots {
  readonly length: number
  /** distance_meters of the k-th plot (2 decimals) */
  distanceM(k: number): number
  plots(): Plot[]
  /** the JSON array, byte-equal to Buffer.from(JSON.stringify(plots())) */
  write(w: JsonBytes): void
}

/** Which towns a request may see, per country: null = all of them. */
export type CityScope = Partial<Record<CountryEnum, ReadonlySet<string> | null>>


// the keys of a plot's JSON, as bytes (copied faster than written from strings)
const K_FIRST = Buffer.from('[{"id":')
const K_NEXT = Buffer.from('},{"id":')
const K_NUMBER = Buffer.from(',"plot_number":')
const K_LAT = Buffer.from(',"latitude":')
const K_LON = Buffer.from(',"longitude":')

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
  }
}

/** Plot and erf lookups over one open dataset; statements prepared once. */
/** The reverse lookup's first, short reach (see reverse). */
const FIRST_REACH_M = 2000

export function createPlotQueries(ds: OpenDataset) {
  const layers = new Map<CountryEnum, CountryLayer>()
  for (const key of PLOT_COUNTRIES) {
    const l = openLayer(ds, key)
    if (l) layers.set(l.country, l)
  }

  function toPlot(l: CountryLayer, rowid: number, plotNumber: string, lat: number, lon: number, cityId: number, distanceM?: number): Plot {
    const city = l.cities.get(cityId)!
    const p: Plot = {
      id: l.idOffset + rowid,
      plot_number: plotNumber,
      latitude: round(lat, 7),
      longitude: round(lon, 7),
      city: city.name,
      country: l.country,
      parcel_identifier_type: l.country === 'BOTSWANA' ? 'PLOT_NUMBER' : 'ERF_NUMBER',
    }
    // absent fields are omitted, never null
    if (city.region) {
      if (l.country === 'BOTSWANA') p.district = city.region
      else p.province = city.region
    }
    if (distanceM !== undefined) p.distance_meters = round(distanceM, 2)
    return p
  }

  function fromHit(l: CountryLayer, hit: PointHit): Plot {
    const i = hit.i
    return toPlot(l, i + 1, l.numberAt(i), hit.lat, hit.lon, l.cityOf[i], hit.distanceM)
  }

  /**
   * fromHit's plot written as JSON bytes, from its id's value to its distance's (the braces and
   * the id key are the caller's): the same keys in the same order and the same number and
   * string forms as JSON.stringify gives (a test holds the answers byte-equal). Everything a
   * plot takes from its town is one cached fragment per town; the plot number is copied from
   * the numbers table's UTF-8.
   */
  function writeHit(w: JsonBytes, l: CountryLayer, hit: PointHit): void {
    const i = hit.i
    w.int(l.idOffset + i + 1).bytes(K_NUMBER)
    const nb = l.numberBytes
    if (nb) w.utf8String(nb.bytes, nb.offsets[i], nb.offsets[i + 1])
    else w.string(l.numberAt(i))
    w.bytes(K_LAT).rounded(hit.lat, 7).bytes(K_LON).rounded(hit.lon, 7)
    w.bytes(l.townJson[l.cityOf[i]]).rounded(hit.distanceM, 2)
  }

  /** What a coordinate search found, answered as plots or written as JSON. */
  function found(hits: { l: CountryLayer; hit: PointHit }[]): FoundPlots {
    const write = (w: JsonBytes) => {
      if (hits.length === 0) {
        w.ascii('[]')
        return
      }
      // each plot's closing brace goes out with the next one's opening: one copy between plots
      for (let k = 0; k < hits.length; k++) {
        w.bytes(k === 0 ? K_FIRST : K_NEXT)
        writeHit(w, hits[k].l, hits[k].hit)
      }
      w.ascii('}]')
    }
    return {
      length: hits.length,
      distanceM: (k) => round(hits[k].hit.distanceM, 2),
      plots: () => hits.map(({ l, hit }) => fromHit(l, hit)),
      write,
    }
  }

  /** City ids a scope admits in one layer, or null for all. */
  function allowedIds(l: CountryLayer, names: ReadonlySet<string> | null | undefined): Set<number> | null {
    if (!names) return null
    const ids = new Set<number>()
    for (const n of names) for (const id of l.cityIdsByName.get(n) ?? []) ids.add(id)
    return ids
  }

  function acceptFor(l: CountryLayer, scope: CityScope): ((i: number) => boolean) | undefined {
    const ids = allowedIds(l, scope[l.country])
    return ids ? (i: number) => ids.has(l.cityOf[i]) : undefined
  }

  function inScope(countries: CountryEnum[]): CountryLayer[] {
    return countries.map((c) => layers.get(c)).filter((l): l is CountryLayer => l !== undefined)
  }

  return {
    countries: [...layers.keys()],

    /** Plots within `radiusM` of a point, nearest first, across the countries in scope. */
    radius(lon: number, lat: number, radiusM: number, limit: number, countries: CountryEnum[], scope: CityScope): FoundPlots {
      const hits: { l: CountryLayer; hit: PointHit }[] = []
      let layersFound = 0
      for (const l of inScope(countries)) {
        const within = l.index.within(lon, lat, radiusM, limit, acceptFor(l, scope))
        if (within.length) layersFound++
        for (const hit of within) hits.push({ l, hit })
      }
      // one country's hits come nearest first, ties by item (so by id): only a border needs the merge
      if (layersFound > 1) hits.sort((a, b) => a.hit.distanceM - b.hit.distanceM || a.l.idOffset + a.hit.i - (b.l.idOffset + b.hit.i))
      if (hits.length > limit) hits.length = limit
      return found(hits)
    },

    /** The single nearest plot within `maxM` across the countries in scope (a border does not stop it). */
    reverse(lon: number, lat: number, maxM: number, countries: CountryEnum[], scope: CityScope): FoundPlots {
      // each country's tree walk gives a candidate; the closest is settled exactly first, so the
      // other country's exact search runs with that distance as its radius. (Settling a Botswana
      // candidate 90 km from a Rustenburg point first searched every Gaborone plot: 10 ms.)
      // Reach 2 km first (nearly every query in a town ends there), then the full reach; a
      // candidate found caps the reach of the next country's walk at its distance.
      const layers = inScope(countries).map((l) => ({ l, accept: acceptFor(l, scope) }))
      const cands: { l: CountryLayer; accept?: (i: number) => boolean; first: PointHit }[] = []
      for (let reach = Math.min(maxM, FIRST_REACH_M); cands.length === 0; reach = maxM) {
        for (const { l, accept } of layers) {
          const first = l.index.candidate(lon, lat, reach, accept)
          if (!first) continue
          cands.push({ l, accept, first })
          reach = Math.min(reach, first.distanceM)
        }
        if (reach >= maxM) break
      }
      cands.sort((a, b) => a.first.distanceM - b.first.distanceM)
      let best: { l: CountryLayer; hit: PointHit } | null = null
      for (const { l, accept, first } of cands) {
        const hit = l.index.settle(lon, lat, Math.min(first.distanceM, maxM, best ? best.hit.distanceM : Infinity), accept)
        if (hit && (!best || hit.distanceM < best.hit.distanceM || (hit.distanceM === best.hit.distanceM && l.idOffset + hit.i < best.l.idOffset + best.hit.i))) best = { l, hit }
      }
      return found(best ? [best] : [])
    },

    /** Plots carrying a number (case-insensitive), optionally in one named city; source order, Botswana first. */
    byNumber(plotNumber: string, cityUpper: string | undefined, limit: number, countries: CountryEnum[], scope: CityScope): Plot[] {
      const out: Plot[] = []
      for (const l of inScope(countries)) {
        if (out.length >= limit) break
        let ids = allowedIds(l, scope[l.country])
        if (cityUpper !== undefined) {
          const named = new Set(l.cityIdsByName.get(cityUpper) ?? [])
          ids = ids ? new Set([...ids].filter((id) => named.has(id))) : named
        }
        if (ids && ids.size === 0) continue
        const rows = l.byNumber.all({ number: plotNumber, ids: ids ? JSON.stringify([...ids]) : null, limit: limit - out.length }) as {
          id: number
          plot_number: string
          latitude: number
          longitude: number
          city_id: number
        }[]
        for (const r of rows) out.push(toPlot(l, r.id, r.plot_number, r.latitude, r.longitude, r.city_id))
      }
      return out
    },

    /** Cities of the countries in scope, with their plot counts; by country, then name, then region. */
    cities(countries: CountryEnum[], scope: CityScope): City[] {
      const out: City[] = []
      for (const l of inScope(countries)) {
        const allowed = scope[l.country]
        const rows = [...l.cities.values()]
          .filter((c) => !allowed || allowed.has(c.name.toUpperCase()))
          .sort((a, b) => a.name.localeCompare(b.name) || a.region.localeCompare(b.region))
        for (const c of rows) {
          const city: City = { name: c.name, country: l.country, plot_count: c.plot_count }
          if (c.region) {
            if (l.country === 'BOTSWANA') city.district = c.region
            else city.province = c.region
          }
          out.push(city)
        }
      }
      return out
    },
  }
}

export type PlotQueries = ReturnType<typeof createPlotQueries>
