/**
 * A polygon as the answers write it: GeoJSON `MultiPolygon` or WKT, coordinates rounded to the
 * 7 decimals (about 1 cm) that datasets store.
 */
import type { MultiPolygon, Ring } from './polygon.js'
import { round } from './round.js'

const fmt = (v: number) => String(round(v, 7))

export function toWkt(mp: MultiPolygon): string {
  const ring = (r: Ring) => `(${r.map(([x, y]) => `${fmt(x)} ${fmt(y)}`).join(', ')})`
  return `MULTIPOLYGON (${mp.map((p) => `(${p.map(ring).join(', ')})`).join(', ')})`
}

export function toGeoJson(mp: MultiPolygon): { type: 'MultiPolygon'; coordinates: number[][][][] } {
  return {
    type: 'MultiPolygon',
    coordinates: mp.map((p) => p.map((r) => r.map(([x, y]) => [round(x, 7), round(y, 7)]))),
  }
}
