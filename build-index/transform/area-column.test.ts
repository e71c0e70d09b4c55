import { describe, expect, it } from 'vitest'
import { AreaColumnCheck } from './area-column.js'

describe('AreaColumnCheck', () => {
  it('passes a column within 1 % of the geodesic areas, even with a few rows far off', () => {
    const c = new AreaColumnCheck()
    for (let k = 1; k <= 100; k++) c.add(k, 1000 * (1 + (k % 3) * 0.004), 1000)
    c.add(101, 5000, 1000)
    expect(c.offRatio()).toBeNull()
  })

  it('flags a column typically 1.24 times too large, with its median ratio and the rows to fix', () => {
    const c = new AreaColumnCheck()
    for (let k = 1; k <= 9; k++) c.add(k, 1240 + k, 1000)
    c.add(10, 1000, 1000)
    expect(c.offRatio()).toBeCloseTo(1.2445, 4)
    expect(c.ids).toHaveLength(10)
    expect(c.warning('parcels/WC/erf', 'geom_area', c.offRatio()!)).toMatch(
      /parcels\/WC\/erf: the source geom_area is typically 1\.24[45] times .*median of 10 rows.*Web Mercator/,
    )
  })

  it('has nothing to say about a layer without the column', () => {
    expect(new AreaColumnCheck().offRatio()).toBeNull()
  })
})
