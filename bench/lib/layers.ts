/**
 * The plot layers of a built dataset as plain coordinate arrays in item order (item i =
 * SQLite rowid i + 1), plus seeded probe sets drawn over them. Every index strategy is built
 * from these same arrays, so they all see identical doubles.
 *
 * @module
 */
import { type OpenDataset, openDataset } from '../../src/data/open-dataset.js'
import { PLOT_COUNTRIES, PLOT_COUNTRY_ENUM, PLOT_FILES, type PlotCountry } from '../../src/data/plots-format.js'
import { metresPerDegree } from '../../src/geo/geodesic.js'
import { PointIndex } from '../../src/geo/point-index.js'
import { Random } from './prng.js'

export interface Layer {
  country: PlotCountry
  countryEnum: 'BOTSWANA' | 'SOUTH_AFRICA'
  n: number
  lon: Float64Array
  lat: Float64Array
  /** extent of the points: [minLon, minLat, maxLon, maxLat] */
  bbox: [number, number, number, number]
}

/** Reads each non-empty plot layer's KDBush file back into item-ordered coordinate arrays. */
export function loadLayers(ds: OpenDataset): Layer[] {
  const out: Layer[] = []
  for (const country of PLOT_COUNTRIES) {
    const stats = ds.domain('plots')?.layers[country]
    if (!stats || stats.rows === 0) continue
    const index = PointIndex.from(ds.arrayBuffer(PLOT_FILES[country].kdbush), stats.rows)
    const n = stats.rows
    const lon = new Float64Array(n)
    const lat = new Float64Array(n)
    const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
    for (let i = 0; i < n; i++) {
      const x = index.lon(i)
      const y = index.lat(i)
      lon[i] = x
      lat[i] = y
      if (x < bbox[0]) bbox[0] = x
      if (y < bbox[1]) bbox[1] = y
      if (x > bbox[2]) bbox[2] = x
      if (y > bbox[3]) bbox[3] = y
    }
    out.push({ country, countryEnum: PLOT_COUNTRY_ENUM[country], n, lon, lat, bbox })
  }
  return out
}

/** Probe kinds: near a real plot (the common case) or anywhere in the country's extent. */
export const PROBE_KINDS = ['near', 'random'] as const
export type ProbeKind = (typeof PROBE_KINDS)[number]

export interface Probes {
  lon: Float64Array
  lat: Float64Array
  /** 0 = near a plot, 1 = random in the layer's extent */
  kind: Uint8Array
  length: number
}

/** Share of probes placed near a real plot; the rest are uniform in the layer's extent. */
export const NEAR_SHARE = 0.8
/** Near probes land within this distance of a randomly chosen plot. */
export const NEAR_MAX_M = 400

/**
 * `count` seeded probes over the given layers, split evenly between them: 80 % within
 * 400 m of a random real plot (uniform over the disc), 20 % uniform in the layer's extent
 * (those may be far from any plot: the "middle of the Kalahari" case).
 */
export function makeProbes(layers: Layer[], count: number, seed: number, label: string): Probes {
  const rnd = new Random(seed >>> 0, `bench/${label}`)
  const lon = new Float64Array(count)
  const lat = new Float64Array(count)
  const kind = new Uint8Array(count)
  for (let k = 0; k < count; k++) {
    const l = layers[k % layers.length]
    if (rnd.float() < NEAR_SHARE) {
      const i = rnd.int(0, l.n - 1)
      const d = NEAR_MAX_M * Math.sqrt(rnd.float())
      const a = rnd.range(0, 2 * Math.PI)
      const m = metresPerDegree(l.lat[i])
      lon[k] = l.lon[i] + (d * Math.cos(a)) / m.lon
      lat[k] = l.lat[i] + (d * Math.sin(a)) / m.lat
    } else {
      lon[k] = rnd.range(l.bbox[0], l.bbox[2])
      lat[k] = rnd.range(l.bbox[1], l.bbox[3])
      kind[k] = 1
    }
  }
  return { lon, lat, kind, length: count }
}

/**
 * `/plots/reverse` request paths at `count` seeded probes over the plot layers of the dataset at
 * `dir`: small answers, cheap, so a load over them is as dense as it gets.
 */
export function reversePaths(dir: string, count: number, seed: number, label: string): string[] {
  const ds = openDataset(dir)
  try {
    const probes = makeProbes(loadLayers(ds), count, seed, label)
    const paths: string[] = []
    for (let k = 0; k < probes.length; k++)
      paths.push(`/api/v1/plots/reverse?latitude=${probes.lat[k].toFixed(6)}&longitude=${probes.lon[k].toFixed(6)}`)
    return paths
  } finally {
    ds.close()
  }
}
