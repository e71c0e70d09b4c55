/**
 * The index search at a point: the Flatbush hits that may hold it, filter applied, narrowed by
 * the prefilter where the dataset has one.
 */
import type Flatbush from 'flatbush'
import type { createPrefilter } from '../../data/parcels-prefilter.js'
import { accept, passes, type Filter } from './filter.js'

export type Prefilter = ReturnType<typeof createPrefilter>

/**
 * Index hits at a point that may hold it, filter applied: the prefilter drops the parcels it
 * proves do not hold the point and adds to `inside` those it proves do (their geometry need not
 * be read); the rest are undecided. One filter function for every search (no closure per
 * query): the search is synchronous, so the query's state can live here.
 */
export class PointSearch {
  private hitLon = 0
  private hitLat = 0
  private hitFilter: Filter = { all: false }
  private hitInside: number[] = []
  private readonly prefiltered: ((i: number, x0: number, y0: number, x1: number, y1: number) => boolean) | null

  constructor(
    private readonly index: Flatbush,
    private readonly flags: Uint8Array,
    prefilter: Prefilter | null,
  ) {
    this.prefiltered =
      prefilter &&
      ((i: number, x0: number, y0: number, x1: number, y1: number): boolean => {
        if (!passes(this.flags, this.hitFilter, i)) return false
        const r = prefilter(i, this.hitLon, this.hitLat, x0, y0, x1, y1)
        if (r > 0) this.hitInside.push(i)
        return r >= 0
      })
  }

  /**
   * Index items (0-based) whose box holds the point, less those the prefilter rules out; `inside` gets those it proves
   * in.
   */
  candidates(lon: number, lat: number, f: Filter, inside: number[]): number[] {
    if (!this.prefiltered) return this.index.search(lon, lat, lon, lat, accept(this.flags, f))
    this.hitLon = lon
    this.hitLat = lat
    this.hitFilter = f
    this.hitInside = inside
    return this.index.search(lon, lat, lon, lat, this.prefiltered)
  }
}
