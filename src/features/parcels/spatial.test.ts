import { afterAll, describe, expect, inject, it } from 'vitest'
import { openDataset } from '../../data/open-dataset.js'
import { metresPerDegree } from '../../geo/geodesic.js'
import { Random } from '../../../build-index/synth/random.js'
import { bboxOf, intersectsBox, type BBox } from '../../geo/polygon.js'
import { currentRow } from './lookups.js'
import { currentVersions, nearest, within } from './spatial.js'
import { ParcelStore } from './store.js'

/**
 * The nearest-parcel search of a 404 NoParcelAtPoint is bounded: near a pole, where a degree of
 * longitude is no metres at all, the 2 km reach once became every degree of the globe and every
 * parcel's geometry was read (61-88 s at national scale, issue #39 item 9).
 */
describe('nearest parcel: bounded reach', () => {
  const ds = openDataset(inject('datasetDir'))
  afterAll(() => ds.close())
  const store = new ParcelStore(ds)
  let reads = 0
  const geomOf = store.geomOf.bind(store)
  store.geomOf = (id: number) => {
    reads++
    return geomOf(id)
  }
  const all = { all: true } as const

  it('reads no geometry for a point at or near a pole, or far out at sea', () => {
    for (const [lon, lat] of [
      [0, 90],
      [0, -90],
      [0, -89.99],
      [120, 89.985],
      [-30, -30],
    ]) {
      reads = 0
      expect(nearest(store, lon, lat, 2000, all)).toBeNull()
      expect(reads).toBe(0)
    }
  })

  it('still finds the parcel that sets the index extent from 500 m beyond it', () => {
    const b = store.index
    // a parcel whose box reaches the extent's east edge, and a point 500 m east of it
    const [edge] = b.search(b.maxX, b.minY, b.maxX, b.maxY)
    const box = bboxOf(store.geomOf(edge + 1))
    const lat = (box.minY + box.maxY) / 2
    const lon = b.maxX + 500 / metresPerDegree(lat).lon
    reads = 0
    const found = nearest(store, lon, lat, 2000, all)
    expect(reads).toBeGreaterThan(0)
    expect(found).not.toBeNull()
    expect(found!.distance_meters).toBeGreaterThanOrEqual(499)
    expect(found!.distance_meters).toBeLessThanOrEqual(2000)
  })
})

/**
 * The OGC API collection's listing (ogc.ts): one Feature per LPI, so one version per LPI, the
 * one /parcels/{lpi} lists first; without a box, read by id from the flags, a page reading its
 * own rows only.
 */
describe('current versions: one per LPI, paged by id', () => {
  const ds = openDataset(inject('datasetDir'))
  afterAll(() => ds.close())
  const store = new ParcelStore(ds)
  // with every status shown, an LPI with a historic version has two visible versions
  const all = { all: true } as const
  const everywhere = { minX: -180, minY: -90, maxX: 180, maxY: 90 }

  it('lists each LPI once, its current version, where /within lists every version', () => {
    const every = within(store, everywhere, 0, 1e6, all).parcels
    const current = currentVersions(store, null, 0, 1e6, all)
    expect(current.more).toBe(false)
    const lpis = new Set(every.map((p) => p.lpi))
    expect(every.length).toBeGreaterThan(lpis.size)
    expect(current.parcels.map((p) => p.lpi).sort()).toEqual([...lpis].sort())
    for (const p of current.parcels) expect(p.id).toBe(currentRow(store, p.lpi, all)!.id)
    // by id, as /within
    const ids = current.parcels.map((p) => p.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    // in a box: those of the box only, the same versions
    const box = { minX: 17.0005, minY: -34.9095, maxX: 17.0045, maxY: -34.9025 }
    const inBox = currentVersions(store, box, 0, 1e6, all).parcels
    const boxLpis = new Set(within(store, box, 0, 1e6, all).parcels.map((p) => p.lpi))
    expect(inBox.map((p) => p.lpi).sort()).toEqual([...boxLpis].sort())
    expect(inBox.every((p) => p.id === currentRow(store, p.lpi, all)!.id)).toBe(true)
  })

  it('pages by id: the pages join into the whole list, each reading only its own rows', () => {
    const whole = currentVersions(store, null, 0, 1e6, { all: false }).parcels
    const rowOf = store.rowOf.bind(store)
    let reads = 0
    store.rowOf = (id: number) => {
      reads++
      return rowOf(id)
    }
    const joined = []
    let after = 0
    for (;;) {
      reads = 0
      const page = currentVersions(store, null, after, 50, { all: false })
      // the page's rows, plus the one that shows another page (no LPI has two current versions)
      expect(reads).toBeLessThanOrEqual(50 + 1)
      joined.push(...page.parcels)
      if (!page.more) break
      after = page.lastId
    }
    store.rowOf = rowOf
    expect(joined.map((p) => p.id)).toEqual(whole.map((p) => p.id))
  })

  it('reads a box that holds every parcel as no box: the same pages, no index search', () => {
    const search = store.index.search.bind(store.index)
    let searches = 0
    store.index.search = (...args: Parameters<typeof search>) => {
      searches++
      return search(...args)
    }
    const none = currentVersions(store, null, 0, 1e6, { all: false })
    const world = currentVersions(store, everywhere, 0, 1e6, { all: false })
    currentVersions(store, { ...everywhere, maxX: store.index.maxX - 1e-3 }, 0, 1e6, { all: false })
    store.index.search = search
    expect(world.parcels.map((p) => p.id)).toEqual(none.parcels.map((p) => p.id))
    // only the box that leaves some parcel's box out searched the index
    expect(searches).toBe(1)
  })
})

/**
 * The box lookup reads no geometry for a parcel whose index box lies inside the query box and
 * tests the others on their encoded geometry: its pages must be those of a plain scan that
 * decodes every candidate and asks intersectsBox.
 */
describe('parcels within a box', () => {
  const ds = openDataset(inject('datasetDir'))
  afterAll(() => ds.close())
  const store = new ParcelStore(ds)
  const all = { all: true } as const

  /** Every parcel intersecting the box, by id: every candidate decoded. */
  const scan = (box: BBox) =>
    store.index
      .search(box.minX, box.minY, box.maxX, box.maxY)
      .map((i) => i + 1)
      .filter((id) => intersectsBox(store.geomOf(id), box))
      .sort((a, b) => a - b)

  it('pages through exactly the parcels a full scan finds, in id order, at random boxes', () => {
    const rnd = new Random(5, 'within')
    const ext = store.index
    let seen = 0
    let shortcut = 0
    for (let k = 0; k < 60; k++) {
      // around a random parcel's label point, 20 m to 600 m a side
      const id = rnd.int(1, ext.numItems)
      const row = store.rowOf(id)
      const h = rnd.range(0.0001, 0.003)
      const box = { minX: row.label_lon - h, minY: row.label_lat - h, maxX: row.label_lon + h, maxY: row.label_lat + h }
      const want = scan(box)
      const got: number[] = []
      let after = 0
      for (;;) {
        const page = within(store, box, after, 7, all)
        got.push(...page.parcels.map((p) => p.id))
        if (!page.more) break
        after = page.lastId
      }
      expect(got).toEqual(want)
      seen += want.length
      shortcut += want.filter((p) => {
        const b = bboxOf(store.geomOf(p))
        return b.minX >= box.minX && b.minY >= box.minY && b.maxX <= box.maxX && b.maxY <= box.maxY
      }).length
    }
    // both ways of deciding were exercised
    expect(shortcut).toBeGreaterThan(20)
    expect(seen - shortcut).toBeGreaterThan(20)
  })
})
