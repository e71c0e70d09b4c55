import { describe, expect, it } from 'vitest'
import { geoJsonOfWkt, WKT_MAX_DEPTH } from './geometry-input.js'

describe('geoJsonOfWkt', () => {
  const ring = '17 -34, 17.01 -34, 17.01 -34.01, 17 -34'

  it('reads a POLYGON with a hole (depth 2: siblings do not add up)', () => {
    expect(geoJsonOfWkt(`POLYGON ((${ring}), (${ring}))`)).toMatchObject({ type: 'Polygon' })
  })

  it(`reads WKT nested ${WKT_MAX_DEPTH} deep, so a MULTIPOLYGON hears its type is not accepted`, () => {
    expect(geoJsonOfWkt(`MULTIPOLYGON (((${ring})))`)).toEqual({
      problem: 'geometry: WKT MULTIPOLYGON is not accepted; give a LINESTRING or a POLYGON',
    })
  })

  it('refuses deeper nesting unread, naming the depth and the limit', () => {
    expect(geoJsonOfWkt(`GEOMETRYCOLLECTION (MULTIPOLYGON (((${ring}))))`)).toEqual({
      problem:
        'geometry: WKT nests its parentheses 4 deep; at most 3 (a POLYGON nests 2: POLYGON ((x y, …), (x y, …)))',
    })
    // a stray closing parenthesis does not hide the depth of what follows
    expect(geoJsonOfWkt(`POLYGON )) ((((((${ring}))))))`)).toMatchObject({
      problem: expect.stringContaining('nests its parentheses 6 deep'),
    })
  })
})
