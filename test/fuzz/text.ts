/**
 * Parameter values as they travel in a URL: the arbitraries here yield text already
 * percent-encoded for a query value or a path segment, so the fuzzer can also send what no
 * encoder would make (`%00`, `%ZZ`, an overlong UTF-8 sequence, a lone surrogate); except
 * {@link enumText}, {@link nearEnumText}, {@link validDate} and {@link listText}, raw text for a
 * body field or for {@link enc}.
 */
import fc from 'fast-check'

/** `s` percent-encoded as a URI component; a lone surrogate (which encodeURIComponent refuses) as U+FFFD. */
export function enc(s: string): string {
  return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, (ch, i: number) => (isPaired(s, i) ? ch : '\uFFFD')))
}

function isPaired(s: string, i: number): boolean {
  const c = s.charCodeAt(i)
  if (c <= 0xdbff) return i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00
  return i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800
}

/** Encoded text no encoder makes, for path segments and query values alike. */
export const RAW_TOKENS = [
  '%00',
  'a%00b',
  '%',
  '%Z',
  '%ZZ',
  '%zz%',
  '%C0%AF',
  '%ED%A0%80',
  '%FF%FE',
  '%E2%80%8B',
  '%EF%BB%BF',
  '%0A',
  '%0D%0A',
  '%09',
  '%20',
  '%2520',
  '%25',
  '%2F',
  '..%2F..%2F',
  '12/3',
  'a//b',
  '/',
  '%2e%2e',
  '..',
  '.',
  '~',
  '%7F',
  '%C3%A9',
  '%F0%9F%92%A9',
  '%E4%B8%AD%E6%96%87',
  '%27%20OR%201%3D1--',
  '%22%3E%3Cscript%3E',
  '*',
  '%5B%5D',
  '%3F',
  '%23',
  '%26',
  '%3D',
  '+',
  '++',
]

/** Odd or hostile strings, encoded. */
export const junkText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...RAW_TOKENS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }).map(enc) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(enc) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', 'undefined', 'true', '[]', '{}', '0', '-1').map(enc) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '9', '%00', '\u00e9', '/'), fc.integer({ min: 100, max: 5000 }))
      .map(([c, n]) => enc(c.repeat(n))),
  },
)

/** Numbers that are not numbers, or are at the edge of what a double holds, as text. */
const NUMBER_JUNK = [
  'NaN',
  'nan',
  'Infinity',
  '-Infinity',
  '+Infinity',
  'inf',
  '0x1A',
  '0X10',
  '0b101',
  '0o17',
  '1_000',
  '1,5',
  '1e',
  'e5',
  '.',
  '-',
  '+',
  '--1',
  '+-1',
  '1e400',
  '-1e400',
  '1e-400',
  '4.9e-324',
  '5e-324',
  '1.7976931348623157e308',
  '9007199254740993',
  '-9007199254740993',
  '１２',
  '٣',
  '1.2.3',
  '12abc',
  '1 2',
  '0.1e1.5',
  '1e+',
  '1e--1',
  '９',
  '-0',
  '+0',
  '0e0',
  '00',
  '-.5',
  '5.',
  '.5e1',
]

/**
 * `n` written in one of the notations a client might use, as URL text: plain, exponent (either
 * case), fixed, a sign, leading zeros, a dot at either end, surrounded by spaces (`%20` or `+`).
 * `strict`: only those a decimal parameter accepts (no NUL after it).
 */
export function notations(n: number, strict = false): fc.Arbitrary<string> {
  const s = String(n)
  const abs = String(Math.abs(n))
  const sign = n < 0 || Object.is(n, -0) ? '-' : ''
  const forms = [
    s,
    n.toExponential(),
    n.toExponential().toUpperCase(),
    n.toExponential(3),
    n.toPrecision(17),
    Math.abs(n) < 1e21 ? n.toFixed(Math.min(20, 3 + (s.length % 10))) : s,
    sign === '' ? `+${s}` : s,
    `${sign}000${abs}`,
    Number.isInteger(n) ? `${s}.` : s,
    Math.abs(n) < 1 ? `${sign}${abs.replace(/^0/, '')}` : s,
    ` ${s} `,
  ].map(enc)
  return fc.constantFrom(...forms, ...(strict ? [] : [`+${enc(s)}+`, `${enc(s)}%00`]))
}

/**
 * A number in [min, max] (whole when `integer`), `near` it when a centre is given, as URL text:
 * `strict`, as the parameter accepts it (a whole number plainly, a decimal in any of its
 * notations); else in any notation.
 */
export function validNumber(
  schema: { minimum?: number; maximum?: number },
  integer: boolean,
  near?: fc.Arbitrary<number>,
  strict = false,
) {
  const min = schema.minimum ?? -1e9
  const max = schema.maximum ?? 1e9
  const plain: fc.Arbitrary<number> = integer
    ? fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31) + 1)), max: Math.floor(Math.min(max, 2 ** 31 - 1)) })
    : fc.double({ min, max, noNaN: true })
  const centred = near?.filter((n) => n >= min && n <= max)
  const value = centred ? fc.oneof({ weight: 3, arbitrary: centred }, { weight: 1, arbitrary: plain }) : plain
  return fc.oneof(
    { weight: 4, arbitrary: value.map((n) => (integer ? String(Math.round(n)) : String(n))) },
    { weight: strict && integer ? 0 : 1, arbitrary: value.chain((n) => notations(n, strict)) },
  )
}

/** The edges of [min, max]: on them, just past them, and the edges of the doubles and integers. */
export function boundaryNumber(schema: { minimum?: number; maximum?: number }, integer: boolean) {
  const edges: number[] = [0, -0, 1, -1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, Number.MAX_VALUE]
  const eps = integer ? 1 : 1e-9
  for (const b of [schema.minimum, schema.maximum])
    if (b !== undefined) edges.push(b, b - eps, b + eps, b - 1, b + 1, b * 10, -b, b + Number.EPSILON * Math.abs(b))
  return fc.constantFrom(...edges).chain(notations)
}

/** Text that is not a (finite, plain) number. */
export const invalidNumber: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBER_JUNK).map(enc) },
  { weight: 1, arbitrary: junkText },
  { weight: 1, arbitrary: fc.double().map((n) => `${n}.${n}`) },
)

/** A value of an enumeration, in any case, sometimes with spaces around it (raw text, not encoded). */
export function enumText(values: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...values), fc.constantFrom('same', 'same', 'upper', 'lower', 'title', 'spaced'))
    .map(([v, how]) => {
      if (how === 'upper') return v.toUpperCase()
      if (how === 'lower') return v.toLowerCase()
      if (how === 'title') return v.charAt(0).toUpperCase() + v.slice(1).toLowerCase()
      if (how === 'spaced') return ` ${v} `
      return v
    })
}

/** An enumeration's values a letter off: cut short, extended, with a lookalike letter (raw text). */
export function nearEnumText(values: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...values), fc.constantFrom('cut', 'more', 'lookalike', 'nul', 'dup'))
    .map(([v, how]) => {
      if (how === 'cut') return v.slice(0, -1)
      if (how === 'more') return `${v}x`
      if (how === 'lookalike') return v.replace(/[aeo]/i, (c) => ({ a: 'а', e: 'е', o: 'о' })[c.toLowerCase()] ?? c)
      if (how === 'nul') return `${v}\0`
      return `${v},${v}`
    })
}

/** A calendar date (`YYYY-MM-DD`) from 1900 to 2100. */
export const validDate: fc.Arbitrary<string> = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))

/** A calendar date (`YYYY-MM-DD`), valid or one of the dates and near-dates at the edges, as URL text. */
export const dateText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: validDate },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0000-01-01',
      '0001-01-01',
      '9999-12-31',
      '1970-01-01',
      '2011-05-18',
      '2016-08-03',
      '2019-02-29',
      '2020-02-29',
      '2019-02-30',
      '2019-13-01',
      '2019-00-10',
      '2019-06-00',
      '2019-6-1',
      '20190601',
      '2019-06-01T00:00:00Z',
      '2019-06-01%2000%3A00',
      '%2B275760-09-13',
      '-000001-01-01',
      '2019/06/01',
      'today',
      'now',
    ),
  },
  { weight: 1, arbitrary: junkText },
)

/**
 * A comma list of `items` (1 to 4, sometimes repeated), as raw text; not `strict`, sometimes
 * with a list's oddities (empty members, a trailing comma, an unknown member).
 */
export function listText(items: readonly string[], strict = false): fc.Arbitrary<string> {
  const hows = strict
    ? ['plain', 'plain', 'upper']
    : ['plain', 'plain', 'plain', 'upper', 'trailing', 'leading', 'empty', 'spaced', 'unknown']
  return fc
    .tuple(fc.array(fc.constantFrom(...items), { minLength: 1, maxLength: 4 }), fc.constantFrom(...hows))
    .map(([xs, how]) => {
      if (how === 'upper') return xs.join(',').toUpperCase()
      if (how === 'trailing') return `${xs.join(',')},`
      if (how === 'leading') return `,${xs.join(',')}`
      if (how === 'empty') return xs.join(',,')
      if (how === 'spaced') return xs.join(' , ')
      if (how === 'unknown') return [...xs, 'nonsense'].join(',')
      return xs.join(',')
    })
}
