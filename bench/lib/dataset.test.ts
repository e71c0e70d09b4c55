import { describe, expect, it } from 'vitest'
import { PhaseTimes } from './dataset.js'

describe('PhaseTimes', () => {
  it('sums finished steps by phase from build-index progress lines, layers per domain together', () => {
    const p = new PhaseTimes()
    for (const line of [
      'plots/botswana: 20% (160000 rows)',
      'plots/botswana: 800000 rows, 0 rejected in 3.3 s',
      'plots/south_africa: 6800000 rows, 0 rejected in 33.3 s',
      'parcels/EC/erf: 888037 parcels, 430 repaired, 0 rejected in 34.2 s',
      'parcels/GP/farm_portion: 10 parcels, 0 repaired, 0 rejected in 1.05 s',
      'parcels/relations: 12107686 touching pairs in 229.9 s',
      'encumbrances/overlaps: 11630521 parcel overlaps in 551.5 s',
      'boundaries/2011/ward: 4277 boundaries, 160 repaired, 0 rejected in 0.4 s',
      'boundaries/write: 20254 rows in 0.8 s',
      'encumbrances: 536882 records; computing parcel overlaps',
      '[1229.3 s] dataset: built in 1226.7 s, peak RSS 6224 MiB',
    ])
      p.add(line)
    expect(p.totals).toEqual({
      'plots/botswana': 3.3,
      'plots/south_africa': 33.3,
      'parcels layers': 35.3,
      'parcels/relations': 229.9,
      'encumbrances/overlaps': 551.5,
      'boundaries layers': 0.4,
      'boundaries/write': 0.8,
    })
  })
})
