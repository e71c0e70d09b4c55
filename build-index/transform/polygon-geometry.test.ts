import { describe, expect, it } from 'vitest'
import { normalisePolygonGeometry } from './polygon-geometry.js'

const square: [number, number][] = [
  [18, -34],
  [18.001, -34],
  [18.001, -33.999],
  [18, -33.999],
  [18, -34],
]
const polygon = (ring: [number, number][]) => ({ type: 'Polygon' as const, coordinates: [ring] })

describe('normalisePolygonGeometry: repairs and re-orientations counted apart', () => {
  it('leaves a well-formed counter-clockwise ring alone', () => {
    expect(normalisePolygonGeometry(polygon(square))).toMatchObject({ ok: true, repaired: false, reoriented: false })
  })

  it('turns a clockwise exterior (the ESRI convention): re-oriented, not repaired', () => {
    const g = normalisePolygonGeometry(polygon([...square].reverse()))
    expect(g).toMatchObject({ ok: true, repaired: false, reoriented: true })
    if (g.ok) expect(g.mp[0][0]).toEqual(square)
  })

  it('counts an unclosed ring or a repeated vertex as a repair', () => {
    expect(normalisePolygonGeometry(polygon(square.slice(0, 4)))).toMatchObject({ repaired: true, reoriented: false })
    const repeated = [square[0], square[1], square[1], square[2], square[3], square[0]]
    expect(normalisePolygonGeometry(polygon(repeated))).toMatchObject({ repaired: true, reoriented: false })
  })

  it('counts neither for a source whose format fixes the clockwise winding (shapefiles)', () => {
    expect(normalisePolygonGeometry(polygon([...square].reverse()), false)).toMatchObject({
      repaired: false,
      reoriented: false,
    })
  })
})
