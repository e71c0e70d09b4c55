import { describe, expect, it } from 'vitest'
import { outsideCountry } from './country-extent.js'

describe('outsideCountry', () => {
  it('accepts positions in the country, within about 50 km of its extent, and Marion Island', () => {
    expect(outsideCountry([18.42, -33.92], 'SOUTH_AFRICA')).toBeNull()
    expect(outsideCountry([17.0, -34.9], 'SOUTH_AFRICA')).toBeNull()
    expect(outsideCountry([37.86, -46.88], 'SOUTH_AFRICA')).toBeNull()
    expect(outsideCountry([25.91, -24.65], 'BOTSWANA')).toBeNull()
    expect(
      outsideCountry(
        [
          [
            [28, -26],
            [28.1, -26],
            [28.1, -25.9],
            [28, -26],
          ],
        ],
        'SOUTH_AFRICA',
      ),
    ).toBeNull()
  })

  it('rejects a row with any position outside, naming the first', () => {
    // a coarse extent (boxes): it catches swapped axes and far-off rows, not a neighbour's land
    expect(outsideCountry([25.91, -24.65], 'SOUTH_AFRICA')).toBeNull()
    expect(outsideCountry([0, 0], 'SOUTH_AFRICA')).toBe(
      'coordinates outside South Africa (0, 0 as longitude, latitude)',
    )
    expect(outsideCountry([18.42, -33.92], 'BOTSWANA')).toBe(
      'coordinates outside Botswana (18.42, -33.92 as longitude, latitude)',
    )
    const line = [
      [28, -26],
      [40, -26],
    ]
    expect(outsideCountry(line, 'SOUTH_AFRICA')).toBe(
      'coordinates outside South Africa (40, -26 as longitude, latitude)',
    )
  })

  it('says when swapping latitude and longitude would put the row inside', () => {
    expect(outsideCountry([-33.92, 18.42], 'SOUTH_AFRICA')).toBe(
      'coordinates outside South Africa (-33.92, 18.42 as longitude, latitude): latitude and longitude look swapped',
    )
    expect(outsideCountry([-24.65, 25.91], 'BOTSWANA')).toMatch(/look swapped$/)
  })
})
