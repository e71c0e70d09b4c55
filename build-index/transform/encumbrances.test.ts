import { describe, expect, it } from 'vitest'
import { normaliseEaseType } from '../../src/data/encumbrance-format.js'
import { normaliseEncumbrance, normaliseLineGeometry } from './encumbrances.js'

describe('normaliseEaseType: the spec table, nothing guessed', () => {
  it.each([
    ['RIGHT OF WAY', 'right_of_way'],
    [' Right of Way ', 'right_of_way'],
    ['row', 'right_of_way'],
    ['COMM_PASS', 'access'],
    ['PIPE', 'pipeline'],
    ['ELECTRIC', 'powerline'],
    ['FURROW', 'water'],
    ['STORMWATER', 'drainage'],
    ['COMM_WALL', 'support'],
    ['SERVICES', 'municipal_services'],
    ['PROC_LINE', 'proclamation'],
    ['EST_BND', 'established_boundary'],
    ['Servitude Area', 'unspecified'],
    ['WITHDRAWN', 'unspecified'],
    ['', 'unspecified'],
    ['HWM', 'other'],
    ['OUTSPAN', 'other'],
  ])('%j -> %s (listed)', (raw, word) => {
    expect(normaliseEaseType(raw, 'servitude_area')).toEqual({ word, listed: true })
  })
  it('an unlisted raw value is other and marked unlisted; a near miss is not matched', () => {
    expect(normaliseEaseType('WAYLEAVE', 'servitude_area')).toEqual({ word: 'other', listed: false })
    expect(normaliseEaseType('PIPELINES', 'servitude_area')).toEqual({ word: 'other', listed: false })
    expect(normaliseEaseType('ROAD RESERVE', 'servitude_area')).toEqual({ word: 'other', listed: false })
  })
  it('the state_land and river_bed layers are their own type whatever the raw value', () => {
    expect(normaliseEaseType('', 'state_land')).toEqual({ word: 'state_land', listed: true })
    expect(normaliseEaseType('RIVER', 'river_bed')).toEqual({ word: 'river_bed', listed: true })
  })
})

const square = {
  type: 'Polygon' as const,
  coordinates: [
    [
      [17, -34],
      [17.001, -34],
      [17.001, -33.999],
      [17, -33.999],
      [17, -34],
    ] as [number, number][],
  ],
}
const line = {
  type: 'LineString' as const,
  coordinates: [
    [17, -34],
    [17.001, -34],
  ] as [number, number][],
}

describe('normaliseEncumbrance', () => {
  it('keeps the raw type, maps status and province aliases, reads geom_area and width_m', () => {
    const r = normaliseEncumbrance(
      {
        uid: '12',
        ease_type: ' pipeline',
        sg_no: '1234/1987',
        province: 'KZN',
        geom_area: '12.5',
        date_stamp: '19870312',
        status: 'cancelled',
      },
      square,
      'servitude_area',
      'KZ',
    )
    expect(r.ok && r.rec).toMatchObject({
      uid: 12,
      easeType: ' pipeline',
      easeTypeNormalised: 'pipeline',
      province: 'KZ',
      geomArea: 12.5,
      status: 'CANCELLED',
      dateStamp: '1987-03-12',
      sgNumber: '1234/1987',
    })
    const l = normaliseEncumbrance({ uid: 3, width_m: '4' }, line, 'servitude_line', 'GP')
    expect(l.ok && l.rec).toMatchObject({
      widthM: 4,
      lines: [
        [
          [17, -34],
          [17.001, -34],
        ],
      ],
      mp: null,
      province: 'GP',
    })
  })
  it.each([
    [{ ease_type: 'ROAD' }, square, 'servitude_area', /uid is blank/],
    [{ uid: 'x1' }, square, 'servitude_area', /not a positive integer/],
    [{ uid: 1, status: 'DELETED' }, square, 'servitude_area', /status/],
    [{ uid: 1, province: 'Atlantis' }, square, 'servitude_area', /province/],
    [{ uid: 1, width_m: '-2' }, line, 'servitude_line', /width_m/],
    [{ uid: 1 }, line, 'servitude_area', /expected Polygon/],
    [{ uid: 1 }, square, 'servitude_line', /expected LineString/],
    [{ uid: 1 }, null, 'servitude_area', /missing/],
  ] as const)('rejects %j', (props, geometry, cls, reason) => {
    const r = normaliseEncumbrance(props as never, geometry as never, cls as never, 'WC')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(reason)
  })
  it('drops consecutive duplicate positions of a line as a repair and rejects a line of one position', () => {
    const g = normaliseLineGeometry({
      type: 'MultiLineString',
      coordinates: [
        [
          [1, 1],
          [1, 1],
          [2, 2],
        ],
        [
          [3, 3],
          [3, 3],
        ],
      ],
    })
    expect(g).toEqual({
      ok: true,
      lines: [
        [
          [1, 1],
          [2, 2],
        ],
      ],
      repaired: true,
    })
    expect(
      normaliseLineGeometry({
        type: 'LineString',
        coordinates: [
          [1, 1],
          [1, 1],
        ],
      }).ok,
    ).toBe(false)
  })
})
