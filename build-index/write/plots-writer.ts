import KDBush from 'kdbush'
import type { LayerStats } from '../../src/data/manifest.js'
import {
  encodeStrings,
  PLOT_FILES,
  PLOT_INDEX_SQL,
  PLOT_SCHEMA_SQL,
  type PlotCountry,
} from '../../src/data/plots-format.js'
import type { PlotRecord } from '../transform/plots.js'
import type { DatasetWriter } from './dataset-writer.js'
import { finishDb, openScratchDb } from './sqlite-writer.js'

/**
 * Writes one country's plots: an SQLite table whose rowid is the KDBush item number + 1, the
 * KDBush point index over [lon, lat], and a u32 array of each point's city id (so a town-scoped
 * key can filter index hits without touching SQLite), and the plot numbers in item order (so a
 * radius or reverse answer is built without an SQLite row fetch).
 */
export class PlotLayerWriter {
  private readonly db
  private readonly insert
  private readonly scratch: string
  private coords = new Float64Array(1 << 16)
  private cityIds = new Uint32Array(1 << 15)
  private numberBytes = new Uint8Array(1 << 16)
  private numberOffsets = new Uint32Array((1 << 15) + 1)
  private n = 0
  private readonly cities = new Map<string, { id: number; name: string; region: string; count: number }>()

  constructor(
    private readonly ds: DatasetWriter,
    private readonly country: PlotCountry,
  ) {
    this.scratch = ds.pathOf(PLOT_FILES[country].sqlite + '.scratch')
    this.db = openScratchDb(this.scratch)
    this.db.exec(PLOT_SCHEMA_SQL)
    this.insert = this.db.prepare(
      'INSERT INTO plot (id, plot_number, latitude, longitude, city_id) VALUES (?, ?, ?, ?, ?)',
    )
    this.db.exec('BEGIN')
  }

  add(rec: PlotRecord): void {
    // a township name recurs across provinces: a city is its name within its region
    const cityKey = `${rec.city}\u0000${rec.region}`
    let city = this.cities.get(cityKey)
    if (!city)
      this.cities.set(cityKey, (city = { id: this.cities.size + 1, name: rec.city, region: rec.region, count: 0 }))
    city.count++
    if (this.n * 2 >= this.coords.length) {
      const c = new Float64Array(this.coords.length * 2)
      c.set(this.coords)
      this.coords = c
      const ids = new Uint32Array(this.cityIds.length * 2)
      ids.set(this.cityIds)
      this.cityIds = ids
    }
    this.coords[this.n * 2] = rec.lon
    this.coords[this.n * 2 + 1] = rec.lat
    this.cityIds[this.n] = city.id
    this.addNumber(rec.plotNumber)
    this.n++
    this.insert.run(this.n, rec.plotNumber, rec.lat, rec.lon, city.id)
  }

  private addNumber(text: string): void {
    if (this.n + 1 >= this.numberOffsets.length) {
      const o = new Uint32Array(this.numberOffsets.length * 2)
      o.set(this.numberOffsets)
      this.numberOffsets = o
    }
    const at = this.numberOffsets[this.n]
    if (at + text.length * 3 > this.numberBytes.length) {
      const b = new Uint8Array(Math.max(this.numberBytes.length * 2, at + text.length * 3))
      b.set(this.numberBytes)
      this.numberBytes = b
    }
    const { written } = new TextEncoder().encodeInto(text, this.numberBytes.subarray(at))
    this.numberOffsets[this.n + 1] = at + written
  }

  get count(): number {
    return this.n
  }

  finish(stats: { rejected: number; idOffset: number }): LayerStats {
    const insertCity = this.db.prepare('INSERT INTO city (id, name, region, plot_count) VALUES (?, ?, ?, ?)')
    for (const c of this.cities.values()) insertCity.run(c.id, c.name, c.region, c.count)
    this.db.exec('COMMIT')
    this.db.exec(PLOT_INDEX_SQL)
    const files = PLOT_FILES[this.country]
    finishDb(this.db, this.scratch, this.ds.pathOf(files.sqlite))
    this.ds.addFile(files.sqlite, 'sqlite')

    const index = new KDBush(Math.max(1, this.n), 64, Float64Array)
    for (let i = 0; i < this.n; i++) index.add(this.coords[i * 2], this.coords[i * 2 + 1])
    // KDBush cannot hold zero items; an empty layer is written as one unreachable point and
    // `rows: 0` in the manifest tells the reader to ignore it
    if (this.n === 0) index.add(0, -90)
    index.finish()
    this.ds.writeBinary(files.kdbush, 'kdbush', new Uint8Array(index.data))
    this.ds.writeBinary(files.cityIds, 'u32', new Uint8Array(this.cityIds.buffer, 0, this.n * 4))
    this.ds.writeBinary(files.numbers, 'strings', encodeStrings(this.numberBytes, this.numberOffsets, this.n))
    return {
      rows: this.n,
      rejected: stats.rejected,
      repaired: 0,
      meta: { id_offset: stats.idOffset, cities: this.cities.size },
    }
  }
}
