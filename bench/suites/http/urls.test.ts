import { describe, expect, it } from 'vitest'
import { BOX_SIDE_DEG, boxPath, pointQuery } from './urls.js'

describe('pointQuery', () => {
  it('writes latitude then longitude with the given decimals', () => {
    expect(pointQuery(27.22599741, -33.43652312, 6)).toBe('latitude=-33.436523&longitude=27.225997')
    expect(pointQuery(25.9, -24.65, 7)).toBe('latitude=-24.6500000&longitude=25.9000000')
  })
})

describe('boxPath', () => {
  it('centres a box of the given side on the point, minimums below maximums', () => {
    const path = boxPath(27.226, -33.4365, 0.002)
    expect(path).toBe(
      '/api/v1/parcels/within?min_lat=-33.4375000&min_lng=27.2250000&max_lat=-33.4355000&max_lng=27.2270000',
    )
    const q = new URLSearchParams(path.split('?')[1])
    const side = (a: string, b: string) => Number(q.get(b)) - Number(q.get(a))
    expect(side('min_lat', 'max_lat')).toBeCloseTo(0.002, 9)
    expect(side('min_lng', 'max_lng')).toBeCloseTo(0.002, 9)
  })

  it('stays within the 0.05° per side /parcels/within accepts', () => {
    expect(BOX_SIDE_DEG).toBeGreaterThan(0)
    expect(BOX_SIDE_DEG).toBeLessThanOrEqual(0.05)
  })
})
