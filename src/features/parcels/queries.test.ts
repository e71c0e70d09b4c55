import { afterAll, describe, expect, inject, it } from 'vitest'
import { Random } from '../../../build-index/synth/random.js'
import { openDataset, type OpenDataset } from '../../data/open-dataset.js'
import { PARCEL_FILES } from '../../data/parcels-format.js'
import { decodeGeometry } from '../../data/geometry-blob.js'
import { JsonBytes } from '../../http/json-bytes.js'
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

  /** Seeded probes: near label points, on vertices, on edges, and anywhere in the extent. */
  function probesOf(seedName: string, rounds = 1500): [number, number][] {
    const db = ds.sqlite(PARCEL_FILES.sqlite)
    const rows = db.prepare('SELECT label_lon, label_lat, geom FROM parcel ORDER BY id').all() as {
      label_lon: number
      label_lat: number
      geom: Buffer
    }[]
    const rnd = new Random(7, seedName)
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
    for (let k = 0; k < rounds; k++) {
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
    return probes
  }

  it('gives the same answers for /at and the batch at every probe', () => {
    const fast = createParcelQueries(ds)
    const plain = createParcelQueries(withoutPrefilter)
    const probes = probesOf('parcel-prefilter-queries')
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

  it(
    'writes the bytes JSON.stringify gives for at(), firstAt() and currentRecord(), on first and repeated calls ' +
      '(cached fragments)',
    () => {
      const q = createParcelQueries(ds)
      const w = new JsonBytes(16) // small, so the writer grows mid-answer too
      const probes = probesOf('parcel-answer-bytes', 500)
      const types = new Set<string>()
      let multi = 0
      for (const round of [0, 1]) {
        for (const f of [{ all: false }, { all: true }, { all: true, type: 'FARM_PORTION' }] as Filter[]) {
          for (const [x, y] of probes) {
            const want = q.at(x, y, f)
            const found = q.found(x, y, f)
            expect(found.count).toBe(want.length)
            found.write(w.start())
            expect(w.text(), `${x}, ${y} round ${round}`).toBe(JSON.stringify(want))
            for (const p of want) types.add(p.parcel_type)
            if (want.length > 1) multi++
            // the batch's writers: the first record (or null), and the current record of an LPI
            const first = q.writeFirstAt(w.start(), x, y, f)
            expect(w.text()).toBe(JSON.stringify(q.firstAt(x, y, f)))
            expect(first).toBe(want.length > 0)
            const lpi = want.at(-1)?.lpi ?? 'NO-SUCH-LPI'
            const current = q.writeCurrent(w.start(), lpi, f)
            expect(w.text()).toBe(JSON.stringify(q.currentRecord(lpi, f)))
            expect(current).toBe(q.currentRecord(lpi, f) !== null)
          }
        }
      }
      // erven (written afresh) and shared parcels (cached) both answered, several to a point
      expect([...types].sort()).toEqual(expect.arrayContaining(['ERF', 'FARM_PORTION', 'PARENT_FARM']))
      expect(multi).toBeGreaterThan(probes.length / 4)
    },
  )

  it('builds the same record from an index hit (type and status from the flags) as from a lookup by LPI', () => {
    const q = createParcelQueries(ds)
    const db = ds.sqlite(PARCEL_FILES.sqlite)
    const rows = db.prepare('SELECT id, lpi, label_lon, label_lat FROM parcel WHERE id % 7 = 0').all() as {
      id: number
      lpi: string
      label_lon: number
      label_lat: number
    }[]
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
