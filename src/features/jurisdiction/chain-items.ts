/**
 * The chain at a point as a ready answer item `{"jurisdiction":…,"notes":[…]}` (JSON text and
 * UTF-8 bytes) from a bounded cache shared by `GET /jurisdiction/at` and the batch, and the
 * batch itself, its points visited in a spatial order.
 */
import type { ChainType } from '../../data/jurisdiction-format.js'
import type { ChainResolver } from './chain.js'
import { morton } from './morton.js'
import type { BoundaryRow } from './records.js'

/** One item of a batch answer: its JSON text and the same as UTF-8 bytes. */
export interface BatchItem {
  json: string
  bytes: Buffer
  /** false for the empty chain answered before the earliest set */
  found: boolean
}

/**
 * Batch items `{"jurisdiction":…,"notes":[…]}` as JSON text and as UTF-8 bytes, per date and
 * per tuple of boundary ids (which determine the notes too): points in the same ward,
 * division, Deeds Office and township share one item, made once (bounded cache), so a batch
 * of thousands of points is mostly lookups, and its answer a copy of bytes, not serialisation.
 */
export class ChainItems {
  private readonly itemCache = new Map<string, Map<string, BatchItem>>()
  private itemCount = 0
  /** rowsAt's records for one point at a time, every key present (a fixed shape), reset per point */
  private readonly scratch: Record<ChainType, BoundaryRow | undefined> = {
    province: undefined,
    district_municipality: undefined,
    local_municipality: undefined,
    ward: undefined,
    registration_division: undefined,
    deeds_office: undefined,
    township: undefined,
  }

  constructor(
    private readonly chains: ChainResolver,
    /** the store's earliest date a dated set took force */
    private readonly earliest: string | null,
  ) {}

  private clearScratch(): Record<ChainType, BoundaryRow | undefined> {
    const scratch = this.scratch
    scratch.province = scratch.district_municipality = scratch.local_municipality = scratch.ward = undefined
    scratch.registration_division = scratch.deeds_office = scratch.township = undefined
    return scratch
  }

  private itemsOn(d: string): Map<string, BatchItem> {
    let m = this.itemCache.get(d)
    if (!m) {
      if (this.itemCache.size >= 1000) {
        this.itemCache.clear()
        this.itemCount = 0
      }
      this.itemCache.set(d, (m = new Map()))
    }
    return m
  }

  /** The item at a point on `d` from the cache `m` of that date, or null outside every boundary. */
  private itemAt(lon: number, lat: number, d: string, m: Map<string, BatchItem>): BatchItem | null {
    const got = this.clearScratch()
    const found = this.chains.rowsAt(lon, lat, d, got)
    if (!found && !(this.earliest !== null && d < this.earliest)) return null
    const a = got.province?.id ?? 0
    const b = got.district_municipality?.id ?? 0
    const c = got.local_municipality?.id ?? 0
    const w = got.ward?.id ?? 0
    const r = got.registration_division?.id ?? 0
    const o = got.deeds_office?.id ?? 0
    const t = got.township?.id ?? 0
    // one UTF-16 code unit per id when they all fit (a short flat key that hashes fast), else two
    const key =
      (a | b | c | w | r | o | t) <= 0xffff
        ? String.fromCharCode(a, b, c, w, r, o, t)
        : String.fromCharCode(
            a >>> 16,
            a & 0xffff,
            b >>> 16,
            b & 0xffff,
            c >>> 16,
            c & 0xffff,
            w >>> 16,
            w & 0xffff,
            r >>> 16,
            r & 0xffff,
            o >>> 16,
            o & 0xffff,
            t >>> 16,
            t & 0xffff,
          )
    let item = m.get(key)
    if (item === undefined) {
      const json = JSON.stringify({ jurisdiction: this.chains.chainOf(got), notes: this.chains.notesOf(d, got, found) })
      item = { json, bytes: Buffer.from(json, 'utf8'), found }
      if (this.itemCount >= 50_000) {
        for (const x of this.itemCache.values()) x.clear()
        this.itemCount = 0
      }
      m.set(key, item)
      this.itemCount++
    }
    return item
  }

  /**
   * The batch item `{"jurisdiction":…,"notes":[…]}` at a point (JSON text and UTF-8 bytes, from
   * the same bounded cache as the batch), or null outside every boundary (an empty chain with
   * its note before the earliest set). `GET /jurisdiction/at` writes its answer around it.
   */
  pointItem(lon: number, lat: number, d: string): BatchItem | null {
    return this.itemAt(lon, lat, d, this.itemsOn(d))
  }

  /**
   * The items of a batch in input order (null outside every boundary) and how many points
   * resolved. The points are visited in a spatial order (Morton order of 1/64° cells): one
   * after another they read the same grid cells and polygons, which stay in the CPU caches (a
   * third of the lookup time on points spread over the country); each item lands at its index.
   */
  batchItems(
    points: readonly { latitude: number; longitude: number }[],
    d: string,
  ): { items: (BatchItem | null)[]; found: number } {
    const n = points.length
    const out = new Array<BatchItem | null>(n).fill(null)
    const m = this.itemsOn(d)
    let found = 0
    if (n < 64) {
      for (let i = 0; i < n; i++) {
        const p = points[i]
        const item = this.itemAt(p.longitude, p.latitude, d, m)
        out[i] = item
        if (item?.found) found++
      }
      return { items: out, found }
    }
    // sort keys: Morton code * n + index (exact in a double: 30 bits of code, n < 2^23)
    const keys = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const p = points[i]
      keys[i] = morton(p.longitude, p.latitude) * n + i
    }
    keys.sort()
    for (let k = 0; k < n; k++) {
      const i = keys[k] % n
      const p = points[i]
      const item = this.itemAt(p.longitude, p.latitude, d, m)
      out[i] = item
      if (item?.found) found++
    }
    return { items: out, found }
  }
}
