/**
 * Requests generated from the operations of the served OpenAPI document: every parameter valid,
 * at its edges, of the wrong kind or left out, sometimes given twice; path segments with unicode,
 * `%00` and malformed escapes; bodies from {@link bodyOf}; a valid key mostly, sometimes a key
 * narrowed to one product and country, a wrong one or none; and the headers that change an
 * answer (Accept, Accept-Encoding, If-None-Match, Content-Type, X-Request-Id).
 */
import fc from 'fast-check'
import { bodyOf } from './bodies.js'
import { axisOf, coordinatePair, knownString, nearData, nearPoint, restyled } from './hints.js'
import type { BodyText } from './json-text.js'
import type { Samples } from './samples.js'
import type { Operation, Parameter } from './spec.js'
import {
  boundaryNumber,
  dateText,
  enc,
  validDate,
  enumText,
  invalidNumber,
  junkText,
  nearEnumText,
  validNumber,
} from './text.js'

/** Stand-ins for the keys in a request, replaced by real keys when it is sent (and printed as such). */
export const KEY = '$KEY'
export const NARROW_KEY = '$KEY_NARROW'

export interface FuzzRequest {
  /** the operation, `GET /api/v1/parcels/{lpi}` */
  op: string
  method: string
  /** the path and query, percent-encoded as sent */
  url: string
  headers: Record<string, string>
  body?: BodyText
  /** whether the operation answers vector tiles */
  tile: boolean
}

/**
 * How a request is made: `valid`, every parameter as its schema allows (to reach the code
 * behind validation); `any`, each one valid, at an edge, of the wrong kind or left out.
 */
export type Mode = 'valid' | 'any'

/** A parameter's value as URL text. */
export function paramText(p: Parameter, samples: Samples, mode: Mode): fc.Arbitrary<string> {
  const s = p.schema
  const hostile = mode === 'any' ? 1 : 0
  if (s.type === 'number' || s.type === 'integer') {
    const integer = s.type === 'integer'
    const axis = axisOf(p.name)
    const pool = samples.byName[p.name]
    const near = axis ? nearData(samples, axis) : pool ? fc.constantFrom(...pool.map(Number)) : undefined
    return fc.oneof(
      { weight: 8, arbitrary: validNumber(s, integer, near, mode === 'valid') },
      { weight: 2 * hostile, arbitrary: boundaryNumber(s, integer) },
      { weight: 2 * hostile, arbitrary: invalidNumber },
    )
  }
  if (s.enum) {
    const values = s.enum.map(String)
    return fc.oneof(
      { weight: 8, arbitrary: (hostile ? enumText(values) : fc.constantFrom(...values)).map(enc) },
      { weight: hostile, arbitrary: nearEnumText(values).map(enc) },
      { weight: hostile, arbitrary: junkText },
    )
  }
  if (s.format === 'date') return hostile ? dateText : validDate
  const known = knownString(p.name, s, samples, mode === 'valid')
  const long = s.maxLength
    ? [fc.constant(enc('a'.repeat(s.maxLength))), fc.constant(enc('a'.repeat(s.maxLength + 1)))]
    : []
  const short = s.minLength
    ? [fc.constant(enc('a'.repeat(s.minLength - 1))), fc.constant(enc('a'.repeat(s.minLength)))]
    : []
  if (!known) return fc.oneof(junkText, ...long, ...short)
  return fc.oneof(
    { weight: 8, arbitrary: (hostile ? restyled(known) : known).map(enc) },
    { weight: 2 * hostile, arbitrary: fc.oneof(junkText, ...long, ...short) },
  )
}

/** The tile (z, x, y) under a point where the data is, or any tile address at all. */
function tileAddress(samples: Samples): fc.Arbitrary<Record<string, string>> {
  const under = fc.tuple(fc.constantFrom(...samples.points), fc.integer({ min: 0, max: 22 })).map(([[lon, lat], z]) => {
    const n = 2 ** z
    const r = (lat * Math.PI) / 180
    const x = Math.floor(((lon + 180) / 360) * n)
    const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)
    return { z: String(z), x: String(x), y: String(y) }
  })
  const edges = fc
    .tuple(fc.integer({ min: 0, max: 30 }), fc.constantFrom(-1, 0, 1, 2))
    .map(([z, d]) => ({ z: String(z), x: String(2 ** z - 1 + d), y: String(Math.max(0, 2 ** z - 2 + d)) }))
  return fc.oneof({ weight: 5, arbitrary: under }, { weight: 1, arbitrary: edges })
}

/** Path parameters that go together (a tile's address, a boundary's type and code), else undefined. */
function jointPath(op: Operation, samples: Samples): fc.Arbitrary<Record<string, string>> | undefined {
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name)
  if (names.includes('z')) return tileAddress(samples)
  if (names.includes('boundary_type') && names.includes('code') && samples.boundaries.length)
    return fc.constantFrom(...samples.boundaries).map(([boundary_type, code]) => ({ boundary_type, code: enc(code) }))
  return undefined
}

/** The path with its parameters in, sometimes bent: a trailing slash, a doubled slash, another case, another suffix. */
function pathOf(op: Operation, samples: Samples, mode: Mode): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === 'path')
  const each = fc.record(Object.fromEntries(params.map((p) => [p.name, paramText(p, samples, mode)])))
  const joint = jointPath(op, samples)
  const values = joint ? fc.oneof({ weight: 3, arbitrary: joint }, { weight: 1, arbitrary: each }) : each
  const fill = (v: Record<string, string>) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => v[name] ?? '')
  const bend = fc.oneof(
    { weight: 12, arbitrary: fc.constant('same') },
    { weight: mode === 'any' ? 1 : 0, arbitrary: fc.constantFrom('slash', 'double', 'upper', 'suffix', 'dots') },
  )
  return fc.tuple(values, bend).map(([v, how]) => {
    const path = fill(v)
    if (how === 'slash') return `${path}/`
    if (how === 'double') return path.replace('/api/v1/', '/api/v1//')
    if (how === 'upper') return path.toUpperCase()
    if (how === 'suffix') return op.tile ? path.replace(/\.mvt$/, '.pbf') : `${path}.json`
    if (how === 'dots') return path.replace('/api/v1/', '/api/v1/x/../')
    return path
  })
}

/**
 * Parameters that go together: a point's latitude and longitude, or a box's sides (where the
 * data is, from a metre to many degrees across); else undefined.
 */
function jointQuery(op: Operation, samples: Samples, mode: Mode): fc.Arbitrary<Record<string, string>> | undefined {
  const names = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name))
  const pair = coordinatePair(names)
  // one point's latitude and longitude (drawn apart, they rarely land on anything)
  if (pair) return nearPoint(samples).map(([x, y]) => ({ [pair[0]]: String(y), [pair[1]]: String(x) }))
  const sides = names.has('min_lat')
    ? ['min_lng', 'min_lat', 'max_lng', 'max_lat']
    : names.has('north')
      ? ['west', 'south', 'east', 'north']
      : undefined
  if (!sides) return undefined
  return fc
    .tuple(
      fc.constantFrom(...samples.points),
      // /parcels/within takes at most 0.05°, the heat maps anything
      fc.constantFrom(1e-5, 1e-3, 0.01, 0.04, 0.05, ...(mode === 'any' || names.has('north') ? [0.1, 0.5, 2, 30] : [])),
    )
    .map(([[x, y], size]) => {
      const v = [x - size / 2, y - size / 2, x + size / 2, y + size / 2].map((n, i) =>
        String(Math.max(i % 2 ? -90 : -180, Math.min(i % 2 ? 90 : 180, n))),
      )
      return Object.fromEntries(sides.map((name, i) => [name, v[i]]))
    })
}

/** The query: each parameter present or not, sometimes one given twice, an unknown one, or a malformed pair. */
function queryOf(op: Operation, samples: Samples, mode: Mode): fc.Arbitrary<string> {
  // valid: a free-text parameter with no value known to be valid (a page cursor) is left out
  const params = op.parameters.filter(
    (p) =>
      p.in === 'query' &&
      (mode === 'any' ||
        p.schema.type !== 'string' ||
        p.schema.enum ||
        p.schema.format ||
        knownString(p.name, p.schema, samples)),
  )
  const joint = jointQuery(op, samples, mode)
  const jointly = joint ? fc.option(joint, { freq: mode === 'valid' ? 5 : 2, nil: undefined }) : fc.constant(undefined)
  const pairs = fc
    .tuple(
      jointly,
      fc.tuple(
        ...params.map((p) =>
          fc.tuple(paramText(p, samples, mode), fc.integer({ min: 0, max: 19 })).map(([v, roll]) => ({
            p,
            v,
            present: roll < (p.required ? (mode === 'valid' ? 20 : 19) : 10),
          })),
        ),
      ),
    )
    .map(([j, ps]) =>
      // the box's sides replace the parameters of their names, always present
      ps.map(({ p, v, present }) =>
        j?.[p.name] !== undefined ? `${p.name}=${j[p.name]}` : present ? `${p.name}=${v}` : '',
      ),
    )
  if (mode === 'valid') return pairs.map((ps) => ps.filter((x) => x !== '').join('&'))
  const extra = fc.constantFrom(
    '',
    '',
    '',
    '',
    '',
    'foo=bar',
    '=1',
    '&&',
    'a',
    '%00=%00',
    `${params[0]?.name ?? 'x'}`,
    `${params[0]?.name ?? 'x'}[]=1`,
    `${(params[0]?.name ?? 'x').toUpperCase()}=1`,
    'format=geojson',
    'format=wkt',
  )
  const twice = params.length
    ? fc.option(
        fc.constantFrom(...params).chain((p) => paramText(p, samples, mode).map((v) => `${p.name}=${v}`)),
        { freq: 8, nil: '' },
      )
    : fc.constant('')
  return fc.tuple(pairs, extra, twice, fc.boolean()).map(([ps, x, t, twiceFirst]) => {
    const all = [...ps, x]
    if (t) twiceFirst ? all.unshift(t) : all.push(t)
    return all.filter((s) => s !== '').join('&')
  })
}

const headerOptions = {
  key: fc.constantFrom<string | undefined>(
    ...Array(60).fill(KEY),
    NARROW_KEY,
    NARROW_KEY,
    NARROW_KEY,
    NARROW_KEY,
    undefined,
    '',
    'nope',
    ` ${KEY}`,
    'ld_live_0000000000000000000000000000',
    'x'.repeat(300),
    `${KEY},${KEY}`,
  ),
  accept: fc.constantFrom<string | undefined>(
    ...Array(8).fill(undefined),
    'application/geo+json',
    'application/json;q=0.5, application/geo+json',
    'application/geo+json;q=0, application/json',
    '*/*',
    'text/html',
    'application/*;q=0',
    ';;;q=abc',
    'application/geo+json;q=1e999',
  ),
  encoding: fc.constantFrom<string | undefined>(
    undefined,
    undefined,
    undefined,
    'gzip',
    'br',
    'gzip, br',
    'identity',
    '*;q=0',
    'zstd',
    'br;q=x',
  ),
  match: fc.constantFrom<string | undefined>(...Array(10).fill(undefined), '*', '"x"', 'W/"x"', '"', 'a, b, "c"'),
  requestId: fc.constantFrom<string | undefined>(
    ...Array(10).fill(undefined),
    'abc-123',
    'has space',
    'x'.repeat(200),
    '',
  ),
  contentType: fc.constantFrom<string | undefined>(
    ...Array(12).fill('application/json'),
    'application/json; charset=utf-8',
    'application/geo+json',
    'APPLICATION/JSON',
    'application/json; charset=utf-16',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    undefined,
    '',
  ),
}

function headersOf(op: Operation, mode: Mode): fc.Arbitrary<Record<string, string>> {
  const options =
    mode === 'any'
      ? headerOptions
      : { ...headerOptions, key: fc.constant(KEY), contentType: fc.constant('application/json') }
  return fc.record(options).map((h) => {
    const out: Record<string, string> = {}
    if (h.key !== undefined) out['X-API-KEY'] = h.key
    if (h.accept !== undefined) out.Accept = h.accept
    if (h.encoding !== undefined) out['Accept-Encoding'] = h.encoding
    if (h.match !== undefined) out['If-None-Match'] = h.match
    if (h.requestId !== undefined) out['X-Request-Id'] = h.requestId
    if (op.body && h.contentType !== undefined) out['Content-Type'] = h.contentType
    return out
  })
}

/** The method: mostly the operation's, sometimes HEAD, OPTIONS or another one the path does not have. */
function methodOf(op: Operation, mode: Mode): fc.Arbitrary<string> {
  if (mode === 'valid') return fc.constant(op.method)
  const others =
    op.method === 'GET'
      ? ['HEAD', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']
      : ['GET', 'PUT', 'OPTIONS', 'HEAD']
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(op.method) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
  )
}

/** One request to `op`, made as `mode` says. */
export function requestTo(op: Operation, samples: Samples, mode: Mode): fc.Arbitrary<FuzzRequest> {
  const body = op.body ? bodyOf(op.body, samples, mode) : fc.constant(undefined)
  return fc
    .record({
      method: methodOf(op, mode),
      path: pathOf(op, samples, mode),
      query: queryOf(op, samples, mode),
      headers: headersOf(op, mode),
      body,
    })
    .map(({ method, path, query, headers, body }) => {
      const sendsBody = method !== 'GET' && method !== 'HEAD' && op.body !== undefined
      if (!sendsBody) delete headers['Content-Type']
      return {
        op: `${op.method} ${op.path}`,
        method,
        url: query ? `${path}?${query}` : path,
        headers,
        ...(sendsBody && body !== undefined ? { body } : {}),
        tile: op.tile,
      }
    })
}

/** A request to any operation of the document, or now and then to a path it does not have. */
export function anyRequest(ops: Operation[], samples: Samples): fc.Arbitrary<FuzzRequest> {
  const stray: fc.Arbitrary<FuzzRequest> = fc
    .tuple(
      junkText,
      fc.constantFrom('GET', 'POST', 'HEAD'),
      fc.constantFrom('/api/v1/', '/api/v1/parcels/', '/api/v1/jurisdiction/boundaries/ward/'),
    )
    .map(([seg, method, base]) => ({
      op: '(no route)',
      method,
      url: `${base}${seg}`,
      headers: { 'X-API-KEY': KEY },
      tile: false,
    }))
  // the operations with a body have more to try: more weight, /intersect the most
  const weight = (op: Operation) => (op.path.endsWith('/intersect') ? 6 : op.body ? 3 : 1)
  const to = (mode: Mode) =>
    fc.oneof(...ops.map((op) => ({ weight: weight(op), arbitrary: requestTo(op, samples, mode) })))
  return fc.oneof(
    { weight: 20, arbitrary: to('valid') },
    { weight: 20, arbitrary: to('any') },
    { weight: 1, arbitrary: stray },
  )
}
