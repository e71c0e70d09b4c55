/**
 * The plot and coordinate lookup service (docs/api.md "Plots (spec 000)") over one open dataset: radius and reverse
 * searches across the countries in scope, lookups by plot number, and the town list. The
 * layers are opened once (store.ts); plots are answered as objects or bytes (found.ts).
 */
import type { OpenDataset } from '../../data/open-dataset.js'
import type { PointHit } from '../../geo/point-index.js'
import { FoundHits, toPlot, type FoundPlots, type LayerHit } from './found.js'
import type { City, Plot } from './schemas.js'
import { openPlotLayers, type CountryEnum, type CountryLayer } from './store.js'
import { PLOT_TILES_FILE } from '../../data/plot-tiles.js'
import { TileStore } from '../../data/tile-store.js'
import { storedTile, type TileSource } from '../../http/tile-source.js'
import { LAYER_COUNTRY, PLOT_TILE_LAYERS, plotTileBytes, plotTileSet, pointsExtent, type PlotLayer } from './tiles.js'

export type { FoundPlots } from './found.js'

/** Which towns a request may see, per country: null = all of them. */
export type CityScope = Partial<Record<CountryEnum, ReadonlySet<string> | null>>

/** The reverse lookup's first, short reach (see reverse). */
const FIRST_REACH_M = 2000

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

/** Plot and erf lookups over one open dataset; statements prepared once. */
export class PlotQueries {
  readonly countries: CountryEnum[]
  /** the plot export's version and date (the manifest's), for the tiles' ETag and TileJSON */
  readonly version: string
  readonly asOf: string | undefined
  private readonly layers: Map<CountryEnum, CountryLayer>
  /** the tiles made at build time (src/data/tile-store.ts), or null for a dataset built without them */
  private readonly store: TileStore | null
  /** each layer's box, computed on first use (a pass over its points) */
  private readonly extents = new Map<CountryEnum, [number, number, number, number] | null>()

  constructor(ds: OpenDataset) {
    this.layers = openPlotLayers(ds)
    this.countries = [...this.layers.keys()]
    const m = ds.domain('plots')
    this.version = m?.dataset_version ?? ''
    this.asOf = m?.as_of
    this.store = ds.has(PLOT_TILES_FILE) ? new TileStore(ds.sqlite(PLOT_TILES_FILE)) : null
  }

  /** A vector tile of the plot layers asked for, of the countries and towns in scope (none: no bytes). */
  tile(z: number, x: number, y: number, layers: readonly PlotLayer[], countries: CountryEnum[], scope: CityScope) {
    const wanted = []
    for (const name of layers) {
      const country = LAYER_COUNTRY[name]
      const l = countries.includes(country) ? this.layers.get(country) : undefined
      if (l) wanted.push({ name, l, accept: acceptFor(l, scope) })
    }
    return plotTileBytes(z, x, y, wanted)
  }

  /**
   * The tiles of `layers` (of the countries in scope) for a key of this scope, as the tile routes
   * serve them (src/http/tile-source.ts): the stored ones (ETag from their content) where the
   * store holds the zoom and the key sees every town of those layers' countries, else made when
   * asked (ETag from the dataset version, the layers and `scopeText`, the key's scope).
   */
  tiles(layers: readonly PlotLayer[], countries: CountryEnum[], scope: CityScope, scopeText: string): TileSource {
    const etag = `"${this.version}:${layers.join(',')}:${encodeURIComponent(scopeText)}"`
    const store = layers.every((l) => !scope[LAYER_COUNTRY[l]]) ? this.store : null
    return {
      tileSet: () => plotTileSet(layers, this.extent(layers.map((l) => LAYER_COUNTRY[l])), this.version, this.asOf),
      tile: (z, x, y) =>
        store?.covers(z)
          ? storedTile(store.tile(z, x, y), layers, PLOT_TILE_LAYERS)
          : { etag, encode: () => this.tile(z, x, y, layers, countries, scope) },
    }
  }

  /** The box of the points of the countries given (west, south, east, north), or null. */
  extent(countries: CountryEnum[]): [number, number, number, number] | null {
    let b: [number, number, number, number] | null = null
    for (const l of this.inScope(countries)) {
      if (!this.extents.has(l.country)) this.extents.set(l.country, pointsExtent(l))
      const e = this.extents.get(l.country)
      if (!e) continue
      b = b ? [Math.min(b[0], e[0]), Math.min(b[1], e[1]), Math.max(b[2], e[2]), Math.max(b[3], e[3])] : e
    }
    return b
  }

  private inScope(countries: CountryEnum[]): CountryLayer[] {
    return countries.map((c) => this.layers.get(c)).filter((l): l is CountryLayer => l !== undefined)
  }

  /** Plots within `radiusM` of a point, nearest first, across the countries in scope. */
  radius(
    lon: number,
    lat: number,
    radiusM: number,
    limit: number,
    countries: CountryEnum[],
    scope: CityScope,
  ): FoundPlots {
    const hits: LayerHit[] = []
    let layersFound = 0
    for (const l of this.inScope(countries)) {
      const within = l.index.within(lon, lat, radiusM, limit, acceptFor(l, scope))
      if (within.length) layersFound++
      for (const hit of within) hits.push({ l, hit })
    }
    // one country's hits come nearest first, ties by item (so by id): only a border needs the merge
    if (layersFound > 1)
      hits.sort((a, b) => a.hit.distanceM - b.hit.distanceM || a.l.idOffset + a.hit.i - (b.l.idOffset + b.hit.i))
    if (hits.length > limit) hits.length = limit
    return new FoundHits(hits)
  }

  /** The single nearest plot within `maxM` across the countries in scope (a border does not stop it). */
  reverse(lon: number, lat: number, maxM: number, countries: CountryEnum[], scope: CityScope): FoundPlots {
    // each country's tree walk gives a candidate; the closest is settled exactly first, so the
    // other country's exact search runs with that distance as its radius. (Settling a Botswana
    // candidate 90 km from a Rustenburg point first searched every Gaborone plot: 10 ms.)
    // Reach 2 km first (nearly every query in a town ends there), then the full reach; a
    // candidate found caps the reach of the next country's walk at its distance.
    const layers = this.inScope(countries).map((l) => ({ l, accept: acceptFor(l, scope) }))
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
    let best: LayerHit | null = null
    for (const { l, accept, first } of cands) {
      const hit = l.index.settle(
        lon,
        lat,
        Math.min(first.distanceM, maxM, best ? best.hit.distanceM : Infinity),
        accept,
      )
      if (
        hit &&
        (!best ||
          hit.distanceM < best.hit.distanceM ||
          (hit.distanceM === best.hit.distanceM && l.idOffset + hit.i < best.l.idOffset + best.hit.i))
      )
        best = { l, hit }
    }
    return new FoundHits(best ? [best] : [])
  }

  /** Plots carrying a number (case-insensitive), optionally in one named city; source order, Botswana first. */
  byNumber(
    plotNumber: string,
    cityUpper: string | undefined,
    limit: number,
    countries: CountryEnum[],
    scope: CityScope,
  ): { plots: Plot[]; total: number } {
    const out: Plot[] = []
    let total = 0
    for (const l of this.inScope(countries)) {
      let ids = allowedIds(l, scope[l.country])
      if (cityUpper !== undefined) {
        const named = new Set(l.cityIdsByName.get(cityUpper) ?? [])
        ids = ids ? new Set([...ids].filter((id) => named.has(id))) : named
      }
      if (ids && ids.size === 0) continue
      if (out.length >= limit) {
        // cut: the rest are only counted, so the message can say "100 of 263"
        total += l.countByNumber.get({ number: plotNumber, ids: ids ? JSON.stringify([...ids]) : null }) as number
        continue
      }
      const rows = l.byNumber.all({
        number: plotNumber,
        ids: ids ? JSON.stringify([...ids]) : null,
        limit: limit - out.length,
      }) as {
        id: number
        plot_number: string
        latitude: number
        longitude: number
        city_id: number
      }[]
      for (const r of rows) out.push(toPlot(l, r.id, r.plot_number, r.latitude, r.longitude, r.city_id))
      // the layer filled the page: count all of it; otherwise every match was read
      total +=
        out.length >= limit
          ? (l.countByNumber.get({ number: plotNumber, ids: ids ? JSON.stringify([...ids]) : null }) as number)
          : rows.length
    }
    return { plots: out, total }
  }

  /** The countries (of every layer, in scope or not) that have a town or township of this name. */
  countriesOfCity(cityUpper: string): CountryEnum[] {
    return [...this.layers.values()].filter((l) => l.cityIdsByName.has(cityUpper)).map((l) => l.country)
  }

  /** Cities of the countries in scope, with their plot counts; by country, then name, then region. */
  cities(countries: CountryEnum[], scope: CityScope): City[] {
    const out: City[] = []
    for (const l of this.inScope(countries)) {
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
  }
}

/** The plot service of an open dataset (see services.ts). */
export function createPlotQueries(ds: OpenDataset): PlotQueries {
  return new PlotQueries(ds)
}
