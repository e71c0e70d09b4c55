/**
 * /intersect geometries: ordinary lines and polygons where the data is, and the shapes the
 * "Bounded work" limits exist for (docs/api.md): degenerate and self-intersecting rings, holes
 * outside or across their shell, rings across the antimeridian, combs, slivers, position counts
 * at the limit; as GeoJSON (coordinates sometimes in odd JSON number notations) or as WKT text
 * in its variants.
 */
import fc from 'fast-check'
import { Raw } from './json-text.js'

type Pos = [number, number]
type Coords = unknown
export interface GeoJsonish {
  type: unknown
  coordinates: Coords
  [k: string]: unknown
}

const closed = (ring: Pos[]): Pos[] => [...ring, ring[0]]

function square([x, y]: Pos, r: number, ccw = true): Pos[] {
  const ring: Pos[] = [
    [x - r, y - r],
    [x + r, y - r],
    [x + r, y + r],
    [x - r, y + r],
  ]
  return closed(ccw ? ring : ring.reverse())
}

function circle([x, y]: Pos, r: number, k: number): Pos[] {
  const ring: Pos[] = []
  for (let i = 0; i < k; i++)
    ring.push([x + r * Math.cos((2 * Math.PI * i) / k), y + r * Math.sin((2 * Math.PI * i) / k)])
  return closed(ring)
}

/** A comb of `teeth` teeth `w` degrees wide and `h` high from `[x, y]`, on a base below. */
function comb([x, y]: Pos, teeth: number, w: number, h: number): Pos[] {
  const pts: Pos[] = []
  for (let k = 0; k < teeth; k++) pts.push([x + k * w, y], [x + (k + 0.5) * w, y + h])
  pts.push([x + teeth * w, y], [x + teeth * w, y - h / 4], [x, y - h / 4])
  return closed(pts)
}

/** A square of side 2r with `holes` square holes on a grid inside it. */
function holey(c: Pos, r: number, holes: number): Pos[][] {
  const k = Math.max(1, Math.ceil(Math.sqrt(holes)))
  const step = (2 * r) / (k + 1)
  const rings = [square(c, r)]
  for (let i = 0; i < holes; i++)
    rings.push(square([c[0] - r + step * ((i % k) + 1), c[1] - r + step * (Math.floor(i / k) + 1)], step / 4, false))
  return rings
}

/**
 * A walk of `n` positions from `start`, steps up to `step` degrees (seeded, so it replays);
 * `onward`, always eastward, so it never crosses itself.
 */
function walk(start: Pos, n: number, step: number, seed: number, onward = false): Pos[] {
  let s = seed >>> 0 || 1
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1
  const pts: Pos[] = [start]
  for (let i = 1; i < n; i++) {
    const [x, y] = pts[i - 1]
    const dx = rnd() * step
    pts.push([x + (onward ? Math.abs(dx) + step / 10 : dx), y + rnd() * step])
  }
  return pts
}

const SIZES = [1e-7, 1e-5, 1e-4, 1e-3, 0.005, 0.01, 0.05, 0.2, 0.45, 1, 5]

/** Where a geometry goes: mostly where the data is, sometimes anywhere, outside, or at the edges of the globe. */
function centreOf(points: [number, number][]): fc.Arbitrary<Pos> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...points), fc.double({ min: -0.01, max: 0.01, noNaN: true }))
        .map(([[x, y], d]): Pos => [x + d, y - d]),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.double({ min: 16, max: 33, noNaN: true }), fc.double({ min: -35, max: -17, noNaN: true })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Pos>(
        [0, 0],
        [-74, 40.7],
        [179.999, -20],
        [-179.999, -20],
        [180, -90],
        [37.8, -46.8],
        [16, -35],
      ),
    },
  )
}

const line = (coordinates: Coords): GeoJsonish => ({ type: 'LineString', coordinates })
const poly = (coordinates: Coords): GeoJsonish => ({ type: 'Polygon', coordinates })

/** Lines and polygons as a client would send them, where the data is (some still past the size limits). */
export function ordinaryShapes(points: [number, number][]): fc.Arbitrary<GeoJsonish> {
  const c = fc
    .tuple(fc.constantFrom(...points), fc.double({ min: -0.01, max: 0.01, noNaN: true }))
    .map(([[x, y], d]): Pos => [x + d, y - d])
  const size = fc.constantFrom(1e-4, 1e-3, 0.005, 0.01, 0.05, 0.2)
  return fc.oneof(
    fc
      .tuple(c, fc.integer({ min: 2, max: 60 }), size, fc.integer())
      .map(([p, n, s, seed]) => line(walk(p, n, s / Math.sqrt(n), seed, true))),
    fc.tuple(c, size, fc.integer({ min: 3, max: 80 })).map(([p, r, k]) => poly([circle(p, r, k)])),
    fc.tuple(c, size, fc.boolean()).map(([p, r, ccw]) => poly([square(p, r, ccw)])),
  )
}

/** Positions from flat numbers: `pts(x0, y0, x1, y1, …)`. */
function pts(...xy: number[]): Pos[] {
  const out: Pos[] = []
  for (let i = 0; i + 1 < xy.length; i += 2) out.push([xy[i], xy[i + 1]])
  return out
}

/**
 * GeoJSON LineString and Polygon shapes around the data, in kinds of equal weight: ordinary;
 * at the spec's limits; combs, slivers and position counts at and past the work limits;
 * degenerate; self-intersecting or with holes in the wrong place; across the antimeridian or
 * at the edges of the globe.
 */
export function shapes(points: [number, number][]): fc.Arbitrary<GeoJsonish> {
  const c = centreOf(points)
  const size = fc.constantFrom(...SIZES)
  const at = <T>(f: (x: number, y: number, r: number) => T) => fc.tuple(c, size).map(([[x, y], r]) => f(x, y, r))
  const ordinary = fc.oneof(
    fc
      .tuple(c, fc.integer({ min: 2, max: 60 }), size, fc.integer())
      .map(([p, n, s, seed]) => line(walk(p, n, s, seed))),
    fc.tuple(c, size, fc.integer({ min: 3, max: 80 })).map(([p, r, k]) => poly([circle(p, r, k)])),
    fc.tuple(c, size, fc.boolean()).map(([p, r, ccw]) => poly([square(p, r, ccw)])),
  )
  // a 200 km route, a 2 500 km² square, holes at and past the limit
  const limits = fc.oneof(
    fc.tuple(c, fc.constantFrom(1.79, 1.81, 2.5)).map(([[x, y], dy]) => line(pts(x, y, x, y + dy))),
    fc.tuple(c, fc.constantFrom(0.2, 0.24, 0.26, 0.3)).map(([p, r]) => poly([square(p, r)])),
    fc.tuple(c, fc.constantFrom(0, 1, 5, 50, 999, 1000, 1001)).map(([p, h]) => poly(holey(p, 0.2, h))),
  )
  const work = fc.oneof(
    fc
      .tuple(
        c,
        fc.constantFrom(2, 10, 100, 400, 1000, 3000, 5000, 9998, 10001),
        fc.constantFrom(1e-5, 5e-5, 1e-4, 1e-3),
      )
      .map(([p, teeth, w]) => poly([comb(p, teeth, w, w * 20)])),
    fc
      .tuple(c, fc.constantFrom(0.01, 1, 5, 15), fc.constantFrom(1e-6, 1e-4, 1e-3))
      .map(([[x, y], len, w]) => poly([closed(pts(x, y, x + len, y, x + len, y + w, x, y + w))])),
    fc
      .tuple(c, fc.constantFrom(19_999, 20_000, 20_001), fc.integer())
      .map(([p, n, seed]) => line(walk(p, n, 1e-5, seed))),
  )
  const degenerate = fc.oneof(
    at((x, y) => poly([pts(x, y, x, y, x, y, x, y)])),
    at((x, y) => line(pts(x, y, x, y))),
    at((x, y) => line(pts(x, y))),
    at((x, y, r) => poly([pts(x, y, x + r, y, x, y)])),
    at((x, y, r) => poly([pts(x, y, x + r, y, x + 2 * r, y, x, y)])),
    at((x, y, r) => poly([pts(x, y, x + r, y, x + r, y + r, x, y + r)])),
    at((x, y, r) => poly([closed(pts(x, y, x + r, y, x + r, y, x + r, y, x + r, y + r))])),
    fc
      .constantFrom<Coords>([], [[]], [[[]]], [[[1]]], [1, 2], [[1, 2, 3]], [[null, null]], [['28', '-26']], {}, null)
      .map(poly),
    fc.constantFrom<Coords>([], [[]], [1, 2], [[28, -26, 5, 6]], [[28]], 'x').map(line),
  )
  const crossing = fc.oneof(
    at((x, y, r) => poly([pts(x, y, x + r, y + r, x + r, y, x, y + r, x, y)])),
    at((x, y, r) => line(pts(x, y, x + r, y + r, x + r, y, x, y + r, x, y))),
    at((x, y, r) => poly([square([x, y], r), square([x + 3 * r, y], r / 2, false)])),
    at((x, y, r) => poly([square([x, y], r), square([x + r, y], r / 2, false)])),
    at((x, y, r) => poly([square([x, y], r), square([x, y], r, false)])),
    at((x, y, r) => poly([square([x, y], r), square([x, y], r / 2, false), square([x, y], r / 4, false)])),
    at((x, y, r) => poly([closed(pts(x, y, x + r, y, x + r, y + r, x + r / 2, y - r, x, y + r))])),
  )
  const edges = fc.constantFrom<GeoJsonish>(
    poly([closed(pts(179, -20, -179, -20, -179, -19, 179, -19))]),
    line(pts(179.5, -20, -179.5, -20)),
    poly([square([180, -20], 0.5)]),
    poly([closed(pts(-180, -90, 180, -90, 180, 90, -180, 90))]),
    line(pts(28, -26, 28, -91)),
    line(pts(361, -26, 28, -26)),
    poly([
      closed(pts(28, -26, 28.1, -26, 28.1, -25.9, 28, -25.9)),
      closed(pts(28, -26, 28.1, -26, 28.1, -25.9, 28, -25.9)),
    ]),
  )
  return fc.oneof(ordinary, limits, work, degenerate, crossing, edges)
}

/** `g`'s numbers, sometimes one of them written as a JSON token JSON.stringify would not write, or not a number. */
export function oddNumbers(g: GeoJsonish): fc.Arbitrary<GeoJsonish> {
  const tokens = [
    new Raw('1e999'),
    new Raw('-1e999'),
    new Raw('-0'),
    new Raw('1e-999'),
    new Raw('28.0000000000000000000001'),
    new Raw('2.8e1'),
    new Raw('NaN'),
    new Raw('Infinity'),
    new Raw('0x1C'),
    '28',
    null,
    true,
    [28, -26],
  ]
  return fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.constantFrom(...tokens)).map(([at, token]) => {
    let i = 0
    const n = Math.max(1, countNumbers(g.coordinates))
    const target = at % n
    const swap = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(swap) : typeof v === 'number' ? (i++ === target ? token : v) : v
    return { ...g, coordinates: swap(g.coordinates) }
  })
}

function countNumbers(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + countNumbers(x), 0)
  return typeof v === 'number' ? 1 : 0
}

/** The GeoJSON object's own oddities: another type, a wrapper, extra members, a type in the wrong case. */
export function oddObject(g: GeoJsonish): fc.Arbitrary<unknown> {
  return fc.constantFrom<unknown>(
    { ...g, type: String(g.type).toLowerCase() },
    { ...g, type: 'MultiPolygon', coordinates: [g.coordinates] },
    { ...g, type: 'Point', coordinates: [28, -26] },
    { ...g, type: 'GeometryCollection', geometries: [g] },
    { type: 'Feature', geometry: g, properties: {} },
    { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: g }] },
    { ...g, bbox: [0, 0, 1, 1], crs: { type: 'name', properties: { name: 'EPSG:3857' } } },
    { type: g.type },
    { coordinates: g.coordinates },
    { ...g, type: 42 },
    [g],
  )
}

/** WKT of a GeoJSON shape, in the variants a GIS user pastes, and the text no reader should accept. */
export function wktOf(g: GeoJsonish): fc.Arbitrary<string> {
  const numbers = (p: unknown, exp: boolean): string =>
    Array.isArray(p)
      ? p.map((n) => (typeof n === 'number' && exp ? n.toExponential() : String(n))).join(' ')
      : String(p)
  const list = (ps: unknown, exp: boolean, sep: string) =>
    Array.isArray(ps) ? ps.map((p) => numbers(p, exp)).join(sep) : String(ps)
  const body = (exp: boolean, sep: string) =>
    g.type === 'Polygon' && Array.isArray(g.coordinates)
      ? `(${g.coordinates.map((r) => `(${list(r, exp, sep)})`).join(sep)})`
      : `(${list(g.coordinates, exp, sep)})`
  const name = String(g.type).toUpperCase()
  return fc
    .tuple(
      fc.constantFrom('', 'SRID=4326;', 'srid = 4326 ;', 'SRID=3857;', 'SRID=;', 'SRID=4326;SRID=4326;'),
      fc.constantFrom(name, name.toLowerCase(), `${name} Z`, `${name}M`, 'MULTIPOLYGON', 'POINT', 'GEOMETRYCOLLECTION'),
      fc.constantFrom(', ', ',', ' ,\n\t', ' '),
      fc.boolean(),
      fc.constantFrom('', '', '', ' EMPTY', ' trailing', ')', '(', '(((', ';'),
    )
    .map(([srid, type, sep, exp, tail]) => `${srid}${type} ${body(exp, sep)}${tail}`)
}

/** The WKT of a GeoJSON shape, written plainly. */
export function plainWkt(g: GeoJsonish): string {
  const ring = (r: unknown) => `(${(r as number[][]).map((p) => p.join(' ')).join(', ')})`
  const c = g.coordinates as unknown[]
  return g.type === 'Polygon' ? `POLYGON (${c.map(ring).join(', ')})` : `LINESTRING ${ring(c)}`
}

/** WKT text with nothing to read, or too much nesting. */
export const oddWkt: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'POLYGON EMPTY',
      'LINESTRING EMPTY',
      'POLYGON(())',
      'LINESTRING()',
      'POINT (28 -26)',
      'LINESTRING (28 -26)',
      'LINESTRING (28,0 -26,0, 28,1 -26,1)',
      'LINESTRING (NaN NaN, 1 1)',
      'LINESTRING (1e999 -26, 28 -26)',
      'LINESTRING (28 -26 28.1 -26.1)',
      '{"type":"LineString","coordinates":[[28,-26],[28.1,-26.1]]}',
      'GEOMETRYCOLLECTION (LINESTRING (28 -26, 28.1 -26.1))',
      'MULTILINESTRING ((28 -26, 28.1 -26.1))',
    ),
  },
  // collections in collections (a reader that recurses runs out of stack), or parentheses alone
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(1, 64, 1000, 20_000, 50_000), fc.boolean())
      .map(([d, named]) =>
        named
          ? `${'GEOMETRYCOLLECTION ('.repeat(d)}LINESTRING (28 -26, 28.1 -26.1)${')'.repeat(d)}`
          : `POLYGON ${'('.repeat(d)}28 -26, 28.1 -26, 28.1 -26.1, 28 -26${')'.repeat(d)}`,
      ),
  },
)
