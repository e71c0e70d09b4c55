/**
 * A plot as the answers give it: the object form (toPlot) and the byte form written straight
 * into a JsonBytes (writeHit), byte-equal to JSON.stringify of the object; and FoundPlots, what a
 * coordinate search found, kept as index hits until the answer is written.
 */
import type { PointHit } from '../../geo/point-index.js'
import { round } from '../../geo/round.js'
import type { JsonBytes } from '../../http/json-bytes.js'
import type { Plot } from './schemas.js'
import type { CountryLayer } from './store.js'

/** One index hit and the layer it came from. */
export interface LayerHit {
  l: CountryLayer
  hit: PointHit
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

// the keys of a plot's JSON, as bytes (copied faster than written from strings)
const K_FIRST = Buffer.from('[{"id":')
const K_NEXT = Buffer.from('},{"id":')
const K_NUMBER = Buffer.from(',"plot_number":')
const K_LAT = Buffer.from(',"latitude":')
const K_LON = Buffer.from(',"longitude":')

/** A plot's object form; `distanceM` only for coordinate searches. */
export function toPlot(
  l: CountryLayer,
  rowid: number,
  plotNumber: string,
  lat: number,
  lon: number,
  cityId: number,
  distanceM?: number,
): Plot {
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
export class FoundHits implements FoundPlots {
  readonly length: number

  constructor(private readonly hits: readonly LayerHit[]) {
    this.length = hits.length
  }

  distanceM(k: number): number {
    return round(this.hits[k].hit.distanceM, 2)
  }

  plots(): Plot[] {
    return this.hits.map(({ l, hit }) => fromHit(l, hit))
  }

  write(w: JsonBytes): void {
    const hits = this.hits
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
}
