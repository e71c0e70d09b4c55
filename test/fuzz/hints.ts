/**
 * What the fuzzer knows beyond a parameter's schema, by its name: which numbers are latitudes
 * and longitudes (so valid ones land where the data is), which strings name things in the
 * dataset, and the members of comma lists (read from the parameter's description or example).
 * Every value here is raw text, not yet encoded.
 */
import fc from 'fast-check'
import type { Operation, Schema } from './spec.js'
import type { Samples } from './samples.js'
import { listText } from './text.js'

const LATITUDE = /^(latitude|lat|min_lat|max_lat|north|south)$/
const LONGITUDE = /^(longitude|lon|lng|min_lng|max_lng|east|west)$/

/** 'lat' or 'lon' when the name is one of a coordinate, else undefined. */
export function axisOf(name: string): 'lat' | 'lon' | undefined {
  return LATITUDE.test(name) ? 'lat' : LONGITUDE.test(name) ? 'lon' : undefined
}

/** A point near the data, [lon, lat]: a sample point, moved by up to 0.1 m to 1°. */
export function nearPoint(samples: Samples): fc.Arbitrary<[number, number]> {
  return fc
    .tuple(
      fc.constantFrom(...samples.points),
      fc.constantFrom(0, 0, 1e-6, 1e-3, 0.05, 1),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
    )
    .map(([[x, y], scale, dx, dy]): [number, number] => [x + scale * dx, y + scale * dy])
}

/** A latitude or longitude near the data (of a point of its own; {@link nearPoint} for both of one point). */
export function nearData(samples: Samples, axis: 'lat' | 'lon'): fc.Arbitrary<number> {
  return nearPoint(samples).map(([x, y]) => (axis === 'lat' ? y : x))
}

/**
 * The names of a latitude and longitude that go together among `names` (`latitude` and
 * `longitude`, `lat` and `lon`), or undefined.
 */
export function coordinatePair(names: ReadonlySet<string>): [lat: string, lon: string] | undefined {
  if (names.has('latitude') && names.has('longitude')) return ['latitude', 'longitude']
  if (names.has('lat') && names.has('lon')) return ['lat', 'lon']
  return undefined
}

/** The members of a comma-list parameter, from its description's parenthesis or its example; undefined if it is no list. */
export function listMembers(schema: Schema): string[] | undefined {
  const d = schema.description ?? ''
  if (!/comma list/i.test(d)) return undefined
  const paren = /\(([a-z_]+(?:, [a-z_]+)+)\)/.exec(d)
  if (paren) return paren[1].split(', ')
  const named = [...d.matchAll(/\b([a-z_]+) \(/g)].map((m) => m[1])
  if (named.length > 1) return named
  return typeof schema.example === 'string' ? schema.example.split(',') : undefined
}

/**
 * A bbox `minlon,minlat,maxlon,maxlat` around the data, of a size from a metre to past the 1°
 * limit; not `strict`, also written wrong (swapped, three numbers, NaN…).
 */
export function bboxText(samples: Samples, strict: boolean): fc.Arbitrary<string> {
  const hows = strict
    ? ['ok', 'spaces']
    : ['ok', 'ok', 'ok', 'swapped', 'three', 'five', 'spaces', 'exp', 'empty', 'nan', 'latlon']
  return fc
    .tuple(
      fc.constantFrom(...samples.points),
      fc.constantFrom(1e-5, 0.01, 0.2, 0.5, 0.999, ...(strict ? [] : [1, 1.001, 3])),
      fc.constantFrom(...hows),
    )
    .map(([[x, y], s, how]) => {
      const v = [x - s / 2, y - s / 2, x + s / 2, y + s / 2]
      if (how === 'swapped') return [v[2], v[3], v[0], v[1]].join(',')
      if (how === 'three') return v.slice(0, 3).join(',')
      if (how === 'five') return [...v, 0].join(',')
      if (how === 'spaces') return v.join(' , ')
      if (how === 'exp') return v.map((n) => n.toExponential()).join(',')
      if (how === 'empty') return `${v[0]},,${v[2]},${v[3]}`
      if (how === 'nan') return `NaN,${v[1]},Infinity,${v[3]}`
      if (how === 'latlon') return [v[1], v[0], v[3], v[2]].join(',')
      return v.join(',')
    })
}

/**
 * The members of every comma-list parameter of the operations, by name, so that a body field of
 * the same name (the /intersect `encumbrance_class`) knows them too.
 */
export function learnLists(ops: Operation[], samples: Samples): void {
  for (const op of ops)
    for (const p of op.parameters) {
      const members = listMembers(p.schema)
      if (members && !samples.lists[p.name]) samples.lists[p.name] = members
    }
}

/**
 * A valid-looking string for a parameter or body field by its name, or undefined when nothing is
 * known of it; `strict`, only forms the API accepts.
 */
export function knownString(
  name: string,
  schema: Schema,
  samples: Samples,
  strict = false,
): fc.Arbitrary<string> | undefined {
  if (name === 'bbox') return bboxText(samples, strict)
  const members = listMembers(schema) ?? samples.lists[name]
  if (members) return listText(members, strict)
  const pool = samples.byName[name]
  const example = typeof schema.example === 'string' ? [schema.example] : []
  const values = [...(pool ?? []), ...example]
  if (values.length === 0) return undefined
  return fc.constantFrom(...values)
}

/**
 * The fields of an object that go together, when its description names alternatives
 * ("Either `points` or `lpis`", "`{lpi}` or `{latitude, longitude}`"); else undefined.
 */
export function alternativesOf(schema: Schema): string[][] | undefined {
  const m = /`\{?([a-z_]+(?:, [a-z_]+)*)\}?` or `\{?([a-z_]+(?:, [a-z_]+)*)\}?`/.exec(schema.description ?? '')
  if (!m) return undefined
  const groups = [m[1].split(', '), m[2].split(', ')]
  const props = Object.keys(schema.properties ?? {})
  return groups.every((g) => g.every((f) => props.includes(f))) ? groups : undefined
}

/** `s` with one of the case and spacing changes the API is documented to accept or refuse. */
export function restyled(s: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(s, fc.constantFrom('same', 'same', 'same', 'lower', 'upper', 'spaced', 'slash'))
    .map(([v, how]) =>
      how === 'lower'
        ? v.toLowerCase()
        : how === 'upper'
          ? v.toUpperCase()
          : how === 'spaced'
            ? ` ${v} `
            : how === 'slash'
              ? `${v}/x`
              : v,
    )
}
