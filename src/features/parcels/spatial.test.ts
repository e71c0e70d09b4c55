import { afterAll, describe, expect, inject, it } from 'vitest'
import { openDataset } from '../../data/open-dataset.js'
import { metresPerDegree } from '../../geo/geodesic.js'
import { bboxOf } from '../../geo/polygon.js'
import { nearest } from './spatial.js'
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
