import { afterAll, describe, expect, inject, it } from 'vitest'
import { Random } from '../../../build-index/synth/random.js'
import { openDataset, type OpenDataset } from '../../data/open-dataset.js'
import { PARCEL_FILES, decodeGeometry } from '../../data/parcels-format.js'
import { createParcelQueries, type Filter } from './queries.js'

/**
 * The prefilter only skips geometry reads: the answers with it must be those read from SQLite
 * alone, at random points, near label points, and on vertices and edges (closed sets).
 */
describe('parcel queries with and without the prefilter', () => {
  const ds = openDataset(inject('datasetDir'))
  afterAll(() => ds.close())
  const withoutPrefilter: OpenDataset = { ...ds, has: (path) => path !== PARCEL_FILES.prefilter && ds.has(path) }

  it('the test dataset has a prefilter', () => {
    expect(ds.has(PARCEL_FILES.prefilter)).toBe(true)
  })

  it('gives the same answers for /at and the batch at every probe', () => {
    const fast = createParcelQueries(ds)
    const plain = createParcelQueries(withoutPrefilter)
    const db = ds.sqlite(PARCEL_FILES.sqlite)
    const rows = db.prepare('SELECT label_lon, label_lat, geom FROM parcel ORDER BY id').all() as { label_lon: number; label_lat: number; geom: Buffer }[]
    const rnd = new Random(7, 'parcel-prefilter-queries')
    const probes: [number, number][] = []
    let x0 = Infinity
    let y0 = Infinity
    let x1 = -Infinity
    let y1 = -Infinity
    for (const r of rows) {
      x0 = Math.min(x0, r.label_lon)
      y0 = Math.min(y0, r.label_lat)
      x1 = Math.max(x1, r.label_lon)
      y1 = Math.max(y1, r.label_lat)
    }
    for (let k = 0; k < 1500; k++) {
      const r = rows[rnd.int(0, rows.length - 1)]
      // near a label point (within ~50 m), on a vertex, on an edge, or anywhere
      probes.push([r.label_lon + (rnd.float() - 0.5) * 1e-3, r.label_lat + (rnd.float() - 0.5) * 1e-3])
      const mp = decodeGeometry(r.geom)
      const ring = mp[rnd.int(0, mp.length - 1)][0]
      const i = rnd.int(0, ring.length - 2)
      probes.push(ring[i])
      const t = rnd.float()
      probes.push([ring[i][0] + t * (ring[i + 1][0] - ring[i][0]), ring[i][1] + t * (ring[i + 1][1] - ring[i][1])])
      probes.push([rnd.range(x0, x1), rnd.range(y0, y1)])
    }
    let found = 0
    for (const f of [{ all: false }, { all: true }] as Filter[]) {
      for (const [x, y] of probes) {
        const want = plain.at(x, y, f)
        expect(fast.at(x, y, f), `${x}, ${y}`).toEqual(want)
        expect(fast.firstAt(x, y, f), `${x}, ${y}`).toEqual(plain.firstAt(x, y, f))
        if (want.length) found++
      }
    }
    // most probes hit a parcel, so the comparison is not vacuous
    expect(found).toBeGreaterThan(probes.length)
  })

  it('builds the same record from an index hit (type and status from the flags) as from a lookup by LPI', () => {
    const q = createParcelQueries(ds)
    const db = ds.sqlite(PARCEL_FILES.sqlite)
    const rows = db.prepare('SELECT id, lpi, label_lon, label_lat FROM parcel WHERE id % 7 = 0').all() as { id: number; lpi: string; label_lon: number; label_lat: number }[]
    let compared = 0
    for (const r of rows) {
      const hit = q.at(r.label_lon, r.label_lat, { all: true }).find((p) => p.id === r.id)
      if (!hit) continue // a label point outside its own parcel
      expect(hit).toEqual(q.byLpi(r.lpi, { all: true }).find((p) => p.id === r.id))
      compared++
    }
    expect(compared).toBeGreaterThan(rows.length / 2)
  })
})
