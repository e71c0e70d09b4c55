import { VectorTile, VectorTileFeature, classifyRings } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { describe, expect, it } from 'vitest'
import { encodeTile, type TileFeature, type TileLayer } from './encode.js'
import type { MultiPolygon, Ring } from '../polygon.js'

// tile 10/585/584 holds Gaborone; positions are written as tile pixels and turned into lon/lat
// with the textbook formulas here, independently of tiles.ts
const Z = 10
const X = 585
const Y = 584
const N = 2 ** Z
const lonAt = (px: number) => ((X + px / 4096) / N) * 360 - 180
const latAt = (py: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * (Y + py / 4096)) / N))) * 180) / Math.PI
const ll = (px: number, py: number): [number, number] => [lonAt(px), latAt(py)]
/** A closed ring through the given tile-pixel corners, in the order given. */
const ring = (...corners: [number, number][]): Ring => [...corners, corners[0]].map(([px, py]) => ll(px, py))
/** An axis-aligned box in tile pixels, counter-clockwise on the map (RFC 7946 exterior winding). */
const box = (x0: number, y0: number, x1: number, y1: number): Ring => ring([x0, y1], [x1, y1], [x1, y0], [x0, y0])

type Pt = { x: number; y: number }
const decode = (bytes: Uint8Array) => new VectorTile(new PbfReader(bytes))
const xy = (r: Pt[]) => r.map((p) => [p.x, p.y])
/** Twice the surveyor's-formula area in tile coordinates (MVT 2.1: exterior > 0, hole < 0). */
const area2 = (r: Pt[]) => {
  let s = 0
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) s += r[j].x * r[i].y - r[i].x * r[j].y
  return s
}
/** The distinct corners of a closed decoded ring, sorted, to compare without caring where it starts. */
const corners = (r: Pt[]) =>
  xy(r.slice(0, -1))
    .map(([x, y]) => `${x},${y}`)
    .sort()

/** Layer names in the order the tile's layer messages (field 3) appear. */
const layerNamesInOrder = (bytes: Uint8Array) =>
  new PbfReader(bytes).readFields((tag: number, names: string[], pbf: PbfReader) => {
    if (tag === 3)
      names.push(
        pbf.readMessage(
          (t: number, l: { name: string }, p: PbfReader) => (t === 1 ? (l.name = p.readString()) : undefined),
          { name: '' },
        ).name,
      )
  }, [])

const one = (geometry: TileFeature['geometry'], opts?: Parameters<typeof encodeTile>[4]) =>
  encodeTile([{ name: 'l', features: [{ geometry, properties: {} }] }], Z, X, Y, opts)

describe('encodeTile: layer and feature encoding', () => {
  it(
    'encodes a square over the middle of the tile with its pixel corners, version 2, extent 4096, id and ' +
      'properties',
    () => {
      // lon/lat hand-computed from the tile formulas: pixel 1024 is a quarter of the tile in
      expect(ll(1024, 1024)[0]).toBeCloseTo(25.751953125, 9)
      expect(ll(1024, 1024)[1]).toBeCloseTo(-24.60706913770969, 9)
      const props = {
        name: 'Extension 9',
        lpi: 'B0000000000000000000A',
        count: 1234,
        ratio: 0.25,
        delta: -7,
        active: true,
      }
      const bytes = encodeTile(
        [{ name: 'boundaries', features: [{ geometry: [[box(1024, 1024, 3072, 3072)]], properties: props, id: 42 }] }],
        Z,
        X,
        Y,
      )
      expect(bytes).toBeInstanceOf(Uint8Array)
      expect(bytes.byteLength).toBeGreaterThan(0)

      const tile = decode(bytes)
      expect(Object.keys(tile.layers)).toEqual(['boundaries'])
      const layer = tile.layers.boundaries
      expect(layer.version).toBe(2)
      expect(layer.extent).toBe(4096)
      expect(layer.length).toBe(1)
      const f = layer.feature(0)
      expect(VectorTileFeature.types[f.type]).toBe('Polygon')
      expect(f.id).toBe(42)
      expect(f.properties).toEqual(props)
      const rings = f.loadGeometry()
      expect(rings).toHaveLength(1)
      expect(rings[0]).toHaveLength(5) // 4 corners + the closing repeat added by the decoder
      expect(corners(rings[0])).toEqual(['1024,1024', '1024,3072', '3072,1024', '3072,3072'])
      expect(area2(rings[0])).toBe(2 * 2048 * 2048)
    },
  )

  it('keeps layer order and leaves out layers and features that end up empty', () => {
    const inside: TileFeature = { geometry: [[box(100, 100, 200, 200)]], properties: { k: 'in' }, id: 1 }
    const farAway: TileFeature = { geometry: [[box(9000, 9000, 9500, 9500)]], properties: { k: 'far' }, id: 2 }
    const layers: TileLayer[] = [
      { name: 'b', features: [farAway] },
      { name: '2', features: [inside, farAway, inside] },
      { name: 'a', features: [] },
      { name: '1', features: [inside] },
    ]
    const bytes = encodeTile(layers, Z, X, Y)
    // the decoder keys layers by name (integer-like names first), so read the order off the wire
    expect(layerNamesInOrder(bytes)).toEqual(['2', '1'])
    const tile = decode(bytes)
    expect(tile.layers['2'].length).toBe(2)
    expect(tile.layers['2'].feature(0).properties).toEqual({ k: 'in' })
    expect(tile.layers['2'].feature(1).id).toBe(1)
  })

  it('returns a zero-length array when nothing is left, so the route can answer 204', () => {
    expect(encodeTile([], Z, X, Y).byteLength).toBe(0)
    expect(encodeTile([{ name: 'l', features: [] }], Z, X, Y).byteLength).toBe(0)
    const allOutside: TileLayer = {
      name: 'l',
      features: [
        { geometry: [[box(-5000, 100, -4000, 200)]], properties: {} },
        { geometry: [[ll(5000, 100), ll(6000, 3000)]], properties: {} },
        { geometry: [ll(-1000, -1000), ll(4200, 2000)], properties: {} },
      ],
    }
    expect(encodeTile([allOutside, { name: 'm', features: allOutside.features }], Z, X, Y).byteLength).toBe(0)
  })

  it('drops a polygon whose bbox overlaps the buffered tile but whose shape stays outside it', () => {
    // triangle x + y <= -1800 reaches x = 200 and y = 200, yet misses the box corner (-64, -64)
    expect(one([[ring([-2000, 200], [-2000, -2000], [200, -2000])]]).byteLength).toBe(0)
  })

  it('encodes property types as MVT values and drops undefined ones', () => {
    const properties = { s: 'x', i: 3, big: 2 ** 40, neg: -2, f: 1.5, t: true, u: undefined } as unknown as Record<
      string,
      string | number | boolean
    >
    const tile = decode(encodeTile([{ name: 'l', features: [{ geometry: [ll(10, 10)], properties }] }], Z, X, Y))
    expect(tile.layers.l.feature(0).properties).toEqual({ s: 'x', i: 3, big: 2 ** 40, neg: -2, f: 1.5, t: true })
  })

  it('keeps values of different types or values apart in the shared value table', () => {
    const propsList = [
      { v: true },
      { v: false },
      { v: 1 },
      { v: '1' },
      { v: 'true' },
      { v: 1 },
      { v: 2 ** 60 },
      { v: -0.5 },
    ]
    const layer = decode(
      encodeTile(
        [{ name: 'l', features: propsList.map((properties) => ({ geometry: [ll(5, 5)], properties })) }],
        Z,
        X,
        Y,
      ),
    ).layers.l
    expect(Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties)).toEqual(propsList)
  })

  it('rejects duplicate layer names, invalid tiles, bad ids and bad options', () => {
    expect(() =>
      encodeTile(
        [
          { name: 'a', features: [] },
          { name: 'a', features: [] },
        ],
        Z,
        X,
        Y,
      ),
    ).toThrow(/duplicate layer name "a"/)
    expect(() => encodeTile([], 23, 0, 0)).toThrow(RangeError)
    expect(() => encodeTile([], 3, 8, 0)).toThrow(/x must be/)
    expect(() =>
      encodeTile([{ name: 'a', features: [{ geometry: [ll(1, 1)], properties: {}, id: -1 }] }], Z, X, Y),
    ).toThrow(/id/)
    expect(() => encodeTile([], Z, X, Y, { extent: 0 })).toThrow(/extent/)
    expect(() => encodeTile([], Z, X, Y, { buffer: -1 })).toThrow(/buffer/)
  })
})

describe('encodeTile: polygons', () => {
  it('clips a polygon crossing the west edge to the 64-pixel buffer', () => {
    const f = decode(one([[box(-1000, 1000, 2000, 2000)]])).layers.l.feature(0)
    const rings = f.loadGeometry()
    expect(rings).toHaveLength(1)
    expect(corners(rings[0])).toEqual(['-64,1000', '-64,2000', '2000,1000', '2000,2000'])
    expect(area2(rings[0])).toBeGreaterThan(0)
  })

  it('clips to the tile edge itself with buffer 0, and to the whole buffered box when the polygon covers the tile', () => {
    const edge = decode(one([[box(-1000, 1000, 2000, 2000)]], { buffer: 0 }))
      .layers.l.feature(0)
      .loadGeometry()
    expect(corners(edge[0])).toEqual(['0,1000', '0,2000', '2000,1000', '2000,2000'])
    const cover = decode(one([[box(-9000, -9000, 9000, 9000)]]))
      .layers.l.feature(0)
      .loadGeometry()
    expect(corners(cover[0])).toEqual(['-64,-64', '-64,4160', '4160,-64', '4160,4160'])
  })

  it('clips a diagonal edge exactly where it crosses the buffer line', () => {
    // triangle (0,0) (-1000,2000) (4000,0): edge (0,0)-(-1000,2000) is y = -2x, crossing x = -64 at y = 128;
    // edge (-1000,2000)-(4000,0) is y = (4000 - x) * 0.4, crossing x = -64 at y = 1625.6, rounded to 1626
    const r = decode(one([[ring([0, 0], [-1000, 2000], [4000, 0])]]))
      .layers.l.feature(0)
      .loadGeometry()[0]
    expect(corners(r)).toEqual(['-64,128', '-64,1626', '0,0', '4000,0'].sort())
  })

  it(
    'winds exteriors positive and holes negative in tile space, whatever the input winding, and round-trips ' +
      'within a pixel',
    () => {
      const outerCcw = box(512, 512, 3584, 3584)
      const holeCw = ring([1536, 1536], [2560, 1536], [2560, 2560], [1536, 2560]) // clockwise on the map (RFC 7946 hole)
      const second = box(3700, 100, 3900, 300)
      for (const mp of [
        [[outerCcw, holeCw], [second]],
        [[[...outerCcw].reverse(), [...holeCw].reverse()], [[...second].reverse()]],
      ] as MultiPolygon[]) {
        const f = decode(one(mp)).layers.l.feature(0)
        const rings = f.loadGeometry()
        expect(rings).toHaveLength(3)
        expect(area2(rings[0])).toBeGreaterThan(0)
        expect(area2(rings[1])).toBeLessThan(0)
        expect(area2(rings[2])).toBeGreaterThan(0)
        expect(corners(rings[1])).toEqual(['1536,1536', '1536,2560', '2560,1536', '2560,2560'])
        const polys = classifyRings(rings)
        expect(polys.map((p) => p.length)).toEqual([2, 1])

        const gj = f.toGeoJSON(X, Y, Z)
        expect(gj.geometry.type).toBe('MultiPolygon')
        const coords = (gj.geometry as { coordinates: number[][][][] }).coordinates
        expect(coords.map((p) => p.length)).toEqual([2, 1])
        // every input vertex has an output vertex within one pixel in lon and lat, ring by ring
        const lonPx = 360 / N / 4096
        const latPx = Math.abs(latAt(2049) - latAt(2048)) * 1.01
        const inputRings = [mp[0][0], mp[0][1], mp[1][0]]
        const outputRings = [coords[0][0], coords[0][1], coords[1][0]]
        inputRings.forEach((input, k) => {
          expect(outputRings[k]).toHaveLength(input.length)
          for (const [lon, lat] of input)
            expect(
              outputRings[k].some(([lon2, lat2]) => Math.abs(lon2 - lon) <= lonPx && Math.abs(lat2 - lat) <= latPx),
            ).toBe(true)
        })
      }
    },
  )

  it('simplifies sub-pixel wiggles away with the default tolerance and keeps them with simplifyPx 0', () => {
    // a 2000 px square with a vertex every 100 px along each side, pushed 0.3 px in and out
    const pts: [number, number][] = []
    const side = (x0: number, y0: number, dx: number, dy: number) => {
      for (let i = 0; i < 20; i++) {
        const w = i % 2 ? 0.3 : -0.3
        pts.push([x0 + dx * i * 100 + (dy ? w : 0), y0 + dy * i * 100 + (dx ? w : 0)])
      }
    }
    side(1000, 3000, 1, 0)
    side(3000, 3000, 0, -1)
    side(3000, 1000, -1, 0)
    side(1000, 1000, 0, 1)
    // corners must be exact so the simplified result is exactly the square
    for (const i of [0, 20, 40, 60]) pts[i] = [pts[i][0], pts[i][1]].map(Math.round) as [number, number]
    const wiggly = ring(...pts)
    const simple = decode(one([[wiggly]]))
      .layers.l.feature(0)
      .loadGeometry()[0]
    expect(corners(simple)).toEqual(['1000,1000', '1000,3000', '3000,1000', '3000,3000'])
    const full = decode(one([[wiggly]], { simplifyPx: 0 }))
      .layers.l.feature(0)
      .loadGeometry()[0]
    expect(full.length).toBe(81)
    // a tolerance wider than the square leaves 2 distinct points: the ring is dropped, not degenerate
    expect(one([[wiggly]], { simplifyPx: 2000 }).byteLength).toBe(0)
  })

  it('drops rings that collapse: a sub-pixel polygon, a sliver, and a tiny hole (keeping its exterior)', () => {
    expect(one([[box(2000.1, 2000.1, 2000.4, 2000.4)]]).byteLength).toBe(0)
    expect(one([[box(100, 2000, 3000, 2000.3)]]).byteLength).toBe(0)
    // a ring whose corners round onto a line collapses to zero area, even without simplification
    expect(one([[ring([100, 100], [200, 100.2], [300, 100])]], { simplifyPx: 0 }).byteLength).toBe(0)
    const rings = decode(
      one([
        [box(1000, 1000, 3000, 3000), ring([2000.1, 2000.1], [2000.1, 2000.3], [2000.3, 2000.3], [2000.3, 2000.1])],
      ]),
    )
      .layers.l.feature(0)
      .loadGeometry()
    expect(rings).toHaveLength(1)
    expect(area2(rings[0])).toBeGreaterThan(0)
  })

  it('drops the holes of an exterior that collapsed, and polygons of a multipolygon that miss the tile', () => {
    const f = decode(
      one([
        [box(-9000, 100, -8000, 200)],
        // a sliver exterior; the (invalid, larger) hole would survive on its own, but goes with it
        [box(100, 2000, 3000, 2000.3), [...box(1000, 1000, 1100, 1100)].reverse()],
        [box(10, 10, 20, 20)],
      ]),
    ).layers.l.feature(0)
    const rings = f.loadGeometry()
    expect(rings).toHaveLength(1)
    expect(corners(rings[0])).toEqual(['10,10', '10,20', '20,10', '20,20'])
  })
})

describe('encodeTile: lines and points', () => {
  it('clips a line crossing the whole tile to the buffer', () => {
    const f = decode(one([[ll(-2000, 2048), ll(6000, 2048)]])).layers.l.feature(0)
    expect(VectorTileFeature.types[f.type]).toBe('LineString')
    expect(f.loadGeometry().map(xy)).toEqual([
      [
        [-64, 2048],
        [4160, 2048],
      ],
    ])
  })

  it('splits a line that leaves the tile and comes back into two parts', () => {
    const f = decode(one([[ll(1000, 1000), ll(1000, -3000), ll(3000, -3000), ll(3000, 1000)]])).layers.l.feature(0)
    expect(f.loadGeometry().map(xy)).toEqual([
      [
        [1000, 1000],
        [1000, -64],
      ],
      [
        [3000, -64],
        [3000, 1000],
      ],
    ])
    expect(f.toGeoJSON(X, Y, Z).geometry.type).toBe('MultiLineString')
  })

  it('simplifies a nearly straight line to its ends and drops parts that round to one point', () => {
    const straight = Array.from({ length: 50 }, (_, i) => ll(100 + i * 40, 500 + (i % 2) * 0.4))
    const f = decode(one([straight, [ll(300.1, 300.1), ll(300.2, 300.2)]])).layers.l.feature(0)
    expect(f.loadGeometry().map(xy)).toEqual([
      [
        [100, 500],
        [2060, 500],
      ],
    ])
  })

  it('keeps only the points inside the buffered tile', () => {
    const f = decode(one([ll(2048, 2048), ll(9000, 9000), ll(-60, 4150)])).layers.l.feature(0)
    expect(VectorTileFeature.types[f.type]).toBe('Point')
    // one MoveTo with a count of 2; the decoder hands back each point as its own part
    expect(f.loadGeometry().map(xy)).toEqual([[[2048, 2048]], [[-60, 4150]]])
    expect(f.toGeoJSON(X, Y, Z).geometry.type).toBe('MultiPoint')
  })
})
