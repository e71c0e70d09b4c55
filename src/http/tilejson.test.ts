import { describe, expect, it } from 'vitest'
import { boundsOf, tileJson, type TileSet } from './tilejson.js'

const box = (minX: number, minY: number, maxX: number, maxY: number, numItems = 1) => ({
  minX,
  minY,
  maxX,
  maxY,
  numItems,
})

const set = (bounds: TileSet['bounds']): TileSet => ({
  name: 'n',
  description: 'd',
  path: '/things/tiles',
  maxzoom: 12,
  layers: [
    { id: 'a', description: 'A', fields: { f: 'String' }, minzoom: 14 },
    { id: 'b', description: 'B', fields: {}, minzoom: 6 },
  ],
  bounds,
  dataset_version: 'v1',
})

describe('boundsOf', () => {
  it('unites the boxes of the indexes that hold items; none: null', () => {
    expect(boundsOf([box(1, 2, 3, 4), box(0, 3, 2, 5), box(-9, -9, 9, 9, 0)])).toEqual([0, 2, 3, 5])
    expect(boundsOf([])).toBeNull()
    expect(boundsOf([box(Infinity, Infinity, -Infinity, -Infinity)])).toBeNull()
  })
})

describe('tileJson', () => {
  it('rounds the bounds outwards to 1e-6° on the Mercator square, and caps zooms at maxzoom', () => {
    const doc = tileJson('https://h', '/api/v1', set([17.0000004, -89, 18.0000001, -33.9999999]), '?x=1')
    expect(doc.bounds).toEqual([17, -85.0511287798066, 18.000001, -33.999999])
    expect(doc.tiles).toEqual(['https://h/api/v1/things/tiles/{z}/{x}/{y}.mvt?x=1'])
    expect(doc.minzoom).toBe(6)
    expect(doc.vector_layers.map((l) => [l.id, l.minzoom, l.maxzoom])).toEqual([
      ['a', 12, 12],
      ['b', 6, 12],
    ])
    expect('bounds' in tileJson('https://h', '', set(null), '')).toBe(false)
  })
})
