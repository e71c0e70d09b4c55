/**
 * Request bodies generated from an operation's body schema (the served OpenAPI document): values
 * valid, at the edges and of the wrong type at every field, arrays from empty to past their
 * `maxItems`; the /intersect geometry from {@link shapes}; and whole bodies that are no JSON,
 * nest too deep, or are too big.
 */
import fc from 'fast-check'
import { MAX_BODY_BYTES } from '../../src/app.js'
import { oddNumbers, oddObject, oddWkt, ordinaryShapes, plainWkt, shapes, wktOf } from './geometry.js'
import { alternativesOf, axisOf, coordinatePair, knownString, nearData, nearPoint, restyled } from './hints.js'
import { Raw, type BodyText, toJsonText } from './json-text.js'
import type { Mode } from './arbitraries.js'
import type { Samples } from './samples.js'
import type { Schema } from './spec.js'
import { dateText, enumText, nearEnumText, validDate } from './text.js'

/** A JSON value of the wrong kind for any field. */
const wrongKind: fc.Arbitrary<unknown> = fc.constantFrom(
  null,
  '',
  'x',
  0,
  -1,
  true,
  [],
  {},
  [null],
  { '': 1 },
  new Raw('1e999'),
  new Raw('-0'),
  '\u0000',
  '\uD800',
  JSON.parse('{"__proto__":1}'),
  JSON.parse('{"__proto__":{"polluted":1}}'),
  { constructor: { prototype: { polluted: 1 } } },
)

/** Strings of any kind for a string field. */
const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '%00', '\u0000', '*', '?', '[a-z]*', "' OR 1=1 --", '../../etc/passwd', 'a'.repeat(5000)),
)

export function geometryValue(samples: Samples, mode: Mode): fc.Arbitrary<unknown> {
  if (mode === 'valid') {
    const shape = ordinaryShapes(samples.points)
    return fc.oneof({ weight: 3, arbitrary: shape }, { weight: 1, arbitrary: shape.map(plainWkt) })
  }
  const shape = shapes(samples.points)
  return fc.oneof(
    { weight: 8, arbitrary: shape },
    { weight: 2, arbitrary: shape.chain(oddNumbers) },
    { weight: 1, arbitrary: shape.chain(oddObject) },
    { weight: 3, arbitrary: shape.chain(wktOf) },
    { weight: 3, arbitrary: oddWkt },
    { weight: 1, arbitrary: wrongKind },
  )
}

/** What a body is made from: the dataset's values, and whether every field is to be valid. */
interface Ctx {
  samples: Samples
  mode: Mode
}

/** A value for `schema`, the field `name`: valid in the `valid` mode; else sometimes at an edge, sometimes wrong. */
export function fieldValue(schema: Schema, name: string, ctx: Ctx): fc.Arbitrary<unknown> {
  if (name === 'geometry') return geometryValue(ctx.samples, ctx.mode)
  const right = rightValue(schema, name, ctx)
  return ctx.mode === 'valid' ? right : fc.oneof({ weight: 12, arbitrary: right }, { weight: 1, arbitrary: wrongKind })
}

function rightValue(schema: Schema, name: string, ctx: Ctx): fc.Arbitrary<unknown> {
  const hostile = ctx.mode === 'any' ? 1 : 0
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => rightValue(s, name, ctx)))
  if (schema.enum) {
    const values = schema.enum.map(String)
    if (!hostile) return fc.constantFrom(...values)
    return fc.oneof({ weight: 6, arbitrary: enumText(values) }, { weight: 1, arbitrary: nearEnumText(values) })
  }
  switch (schema.type) {
    case 'number':
    case 'integer':
      return numberValue(schema, name, ctx)
    case 'boolean':
      return hostile ? fc.constantFrom<unknown>(true, false, 'true', 1, 0, null) : fc.boolean()
    case 'string': {
      if (name === 'as_at' || schema.format === 'date')
        return hostile ? dateText.map(decodeURIComponentSafe) : validDate
      const list = name.endsWith('[]') ? ctx.samples.lists[name.slice(0, -2)] : undefined
      const known = list ? fc.constantFrom(...list) : knownString(name, schema, ctx.samples, !hostile)
      if (!known) return anyString
      return fc.oneof(
        { weight: 4, arbitrary: hostile ? restyled(known) : known },
        { weight: hostile, arbitrary: anyString },
      )
    }
    case 'array':
      return arrayValue(schema, name, ctx)
    case 'object':
      return objectValue(schema, ctx)
    default:
      return fc.oneof(wrongKind, anyString)
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

function numberValue(schema: Schema, name: string, { samples, mode }: Ctx): fc.Arbitrary<unknown> {
  const axis = axisOf(name)
  const min = schema.minimum ?? (axis === 'lat' ? -90 : axis === 'lon' ? -180 : -1e6)
  const max = schema.maximum ?? (axis === 'lat' ? 90 : axis === 'lon' ? 180 : 1e6)
  const inRange = schema.type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true })
  const valid = axis
    ? fc.oneof({ weight: 4, arbitrary: nearData(samples, axis) }, { weight: 1, arbitrary: inRange })
    : inRange
  const edges = [min, max, min - 1e-9, max + 1e-9, min - 1, max + 1, 0, -0, 2 ** 53 + 2, -1e308]
  if (mode === 'valid') return valid
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>(
        new Raw('1e999'),
        new Raw('-1e999'),
        new Raw('1e-999'),
        new Raw('-0.0e0'),
        new Raw('25.9E+0'),
        '25.9',
        ' 25.9 ',
        'NaN',
        'Infinity',
      ),
    },
  )
}

/** Array sizes: mostly a few items; sometimes none, exactly the most, or one past it. */
function arrayValue(schema: Schema, name: string, ctx: Ctx): fc.Arbitrary<unknown> {
  const item = schema.items ? fieldValue(schema.items, itemName(name), ctx) : wrongKind
  const most = schema.maxItems ?? 100
  const fewest = ctx.mode === 'valid' ? Math.max(1, schema.minItems ?? 0) : 0
  const few = fc.array(item, { minLength: fewest, maxLength: 6 })
  const sizes = ctx.mode === 'valid' ? [most] : [0, most, most + 1, Math.min(most * 10, 100_000)]
  // a long array repeats one item (cheap to generate and to shrink), a little varied at the end
  const long = fc
    .tuple(item, fc.constantFrom(...sizes), few)
    .map(([it, n, tail]) => [...Array.from({ length: Math.max(0, n - tail.length) }, () => it), ...tail])
  return fc.oneof({ weight: 10, arbitrary: few }, { weight: 1, arbitrary: long })
}

/** The name of an array's items, for the hints: `lpis` holds lpis, `points` points, `encumbrance_class[]` classes. */
const itemName = (name: string) => (name === 'lpis' ? 'lpi' : name === 'encumbrance_class' ? `${name}[]` : name)

function objectValue(schema: Schema, ctx: Ctx): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {})
  const required = new Set(schema.required ?? [])
  if (props.length === 0) return fc.constantFrom<unknown>({}, { x: 1 })
  const record: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [k, s] of props) {
    const v = fieldValue(s, k, ctx)
    // a required field is sometimes left out (not when valid); an optional one often
    record[k] = required.has(k)
      ? fc.oneof(
          { weight: 15, arbitrary: v },
          { weight: ctx.mode === 'any' ? 1 : 0, arbitrary: fc.constant(undefined) },
        )
      : fc.option(v, { freq: 2, nil: undefined })
  }
  // a point's latitude and longitude, most of the time together where the data is (drawn
  // apart, they rarely land on anything)
  const pair = coordinatePair(new Set(props.map(([k]) => k)))
  const point = pair ? nearPoint(ctx.samples).map(([x, y]) => ({ [pair[0]]: y, [pair[1]]: x })) : undefined
  const build = (fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> => {
    const o = fc.record(fields)
    if (!pair || !point || !(pair[0] in fields) || !(pair[1] in fields)) return o
    return fc.oneof(
      { weight: 3, arbitrary: fc.tuple(o, point).map(([a, p]) => ({ ...a, ...p })) },
      { weight: 1, arbitrary: o },
    )
  }
  if (ctx.mode === 'valid') {
    // valid: one of the alternatives the description names, whole, with the other fields
    const groups = alternativesOf(schema)
    if (!groups) return build(record)
    const grouped = new Set(groups.flat())
    return fc
      .constantFrom(...groups)
      .chain((group) =>
        build(
          Object.fromEntries(
            props
              .filter(([k]) => group.includes(k) || !grouped.has(k))
              .map(([k, s]) => [k, group.includes(k) ? fieldValue(s, k, ctx) : record[k]]),
          ),
        ),
      )
  }
  return fc
    .tuple(
      build(record),
      fc.constantFrom<[string, unknown] | null>(null, null, null, null, ['extra', 1], ['points', null]),
    )
    .map(([o, extra]) => (extra ? { ...o, [extra[0]]: extra[1] } : o))
}

/** Text that is no JSON, or JSON of the wrong kind for any body. */
const notJson: fc.Arbitrary<BodyText> = fc.constantFrom(
  '',
  ' ',
  '\n',
  'null',
  'true',
  '0',
  '"x"',
  '[]',
  '{}',
  '{',
  '[',
  '{"points":',
  '{"a":1}}',
  '{"a":1} trailing',
  "{'points': []}",
  '{"a":1,}',
  '{"a":NaN}',
  '/* c */ {}',
  '\uFEFF{}',
  '\u0000',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  'points=1&lpis=2',
)

/** Bodies nested `depth` deep, alone or in a field, around the limit of 64 and far past it. */
const deep: fc.Arbitrary<BodyText> = fc
  .tuple(
    fc.constantFrom(63, 64, 65, 1000, 100_000),
    fc.constantFrom('[', '{"a":', '{"geometry":{"type":"Polygon","coordinates":['),
  )
  .map(([d, open]) => {
    const close = open === '[' ? ']' : open === '{"a":' ? '}' : ']}}'
    // `open` d times, then the closers: a Big of two repeated runs
    return { prefix: '', filler: open, count: d, suffix: `1${close.repeat(d)}` }
  })

/** Bodies at and over the size limit: padding after valid JSON, or one long string. */
const huge: fc.Arbitrary<BodyText> = fc
  .tuple(
    fc.constantFrom(MAX_BODY_BYTES - 100, MAX_BODY_BYTES - 2, MAX_BODY_BYTES, MAX_BODY_BYTES + 1, 3 * MAX_BODY_BYTES),
    fc.boolean(),
  )
  .map(([size, pad]) =>
    pad
      ? { prefix: '{"lpis":["x"]}', filler: ' ', count: size - 14, suffix: '' }
      : { prefix: '{"lpis":["', filler: 'x', count: size - 13, suffix: '"]}' },
  )

/** A whole body for an operation whose body is `schema`. */
export function bodyOf(schema: Schema, samples: Samples, mode: Mode): fc.Arbitrary<BodyText> {
  const value = fieldValue(schema, '(body)', { samples, mode })
  // an array body also comes wrapped as {"items": [...]}, as the batch route accepts
  const wrapped = schema.type === 'array' ? value.map((v) => ({ items: v })) : value
  if (mode === 'valid')
    return fc.oneof(
      { weight: 4, arbitrary: value.map(toJsonText) },
      { weight: schema.type === 'array' ? 1 : 0, arbitrary: wrapped.map(toJsonText) },
    )
  return fc.oneof(
    { weight: 30, arbitrary: value.map(toJsonText) },
    { weight: schema.type === 'array' ? 5 : 0, arbitrary: wrapped.map(toJsonText) },
    { weight: 2, arbitrary: notJson },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: huge },
  )
}
