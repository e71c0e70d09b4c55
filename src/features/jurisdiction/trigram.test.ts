import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SIMILARITY_THRESHOLD,
  TrigramIndex,
  similarity,
  strictWordSimilarity,
  trigrams,
  wordSimilarity,
  type TrigramHit,
} from './trigram.js'

const sorted = (s: Set<string>): string[] => [...s].sort()

/**
 * How psql prints a real with `extra_float_digits = 0` (6 significant digits), as in the pg_trgm regression outputs.
 */
const pg6 = (x: number): number => Number(x.toPrecision(6))

/** mulberry32: small seeded PRNG so the generated corpus is the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The specification of TrigramIndex.search, by brute force over similarity(). */
function bruteForce(
  names: string[],
  q: string,
  opts: { limit: number; threshold?: number; filter?: (id: number) => boolean },
): TrigramHit[] {
  const threshold = opts.threshold ?? 0.3
  const hits: TrigramHit[] = []
  names.forEach((name, id) => {
    const s = similarity(q, name)
    if (s >= threshold && (!opts.filter || opts.filter(id))) hits.push({ id, similarity: s })
  })
  hits.sort((a, b) => b.similarity - a.similarity || names[a.id].length - names[b.id].length || a.id - b.id)
  return hits.slice(0, opts.limit)
}

describe('trigrams (show_trgm)', () => {
  it('pads each word with two spaces before and one after (docs/domain.md §4.7 / pg_trgm docs: cat)', () => {
    expect(sorted(trigrams('cat'))).toEqual(['  c', ' ca', 'at ', 'cat'])
  })

  it('splits words on non-alphanumerics (pg_trgm docs: foo|bar)', () => {
    // Docs: "The set of trigrams in the string foo|bar is f, fo, foo, oo, b, ba, bar, and ar."
    expect(sorted(trigrams('foo|bar'))).toEqual(['  b', '  f', ' ba', ' fo', 'ar ', 'bar', 'foo', 'oo '])
  })

  it('matches the show_trgm outputs of the pg_trgm regression test (expected/pg_trgm.out)', () => {
    expect(sorted(trigrams(''))).toEqual([])
    expect(sorted(trigrams('(*&^$@%@'))).toEqual([])
    const abc = ['  a', '  b', '  c', ' a ', ' b ', ' c ']
    expect(sorted(trigrams('a b c'))).toEqual(abc)
    expect(sorted(trigrams(' a b c '))).toEqual(abc)
    const aabbcc = ['  a', '  b', '  c', ' aa', ' bb', ' cc', 'aa ', 'bb ', 'cc ']
    expect(sorted(trigrams('aA bB cC'))).toEqual(aabbcc)
    expect(sorted(trigrams(' aA bB cC '))).toEqual(aabbcc)
    expect(sorted(trigrams('a b C0*%^'))).toEqual(['  a', '  b', '  c', ' a ', ' b ', ' c0', 'c0 '])
  })

  it('gives a one-character word two trigrams and keeps them distinct', () => {
    expect(sorted(trigrams('a'))).toEqual(['  a', ' a '])
    // "aaaa" padded "  aaaa " → "  a", " aa", "aaa", "aaa", "aa " → 4 distinct.
    expect(sorted(trigrams('aaaa'))).toEqual(['  a', ' aa', 'aa ', 'aaa'])
  })

  it('treats underscore and other punctuation as separators, digits as word characters', () => {
    expect(trigrams('foo_bar')).toEqual(trigrams('foo bar'))
    expect(sorted(trigrams('Ward 12'))).toEqual(['  1', '  w', ' 12', ' wa', '12 ', 'ard', 'rd ', 'war'])
    expect(trigrams('Ga-Rankuwa')).toEqual(trigrams('ga rankuwa'))
  })

  it('handles non-ASCII letters by code point', () => {
    expect(trigrams('Kwêla')).toEqual(new Set(['  k', ' kw', 'kwê', 'wêl', 'êla', 'la ']))
    expect(trigrams('ÉMALAHLENI')).toEqual(trigrams('émalahleni'))
    // U+1D49C MATHEMATICAL SCRIPT CAPITAL A is a letter outside the BMP (a surrogate pair in JS).
    expect(trigrams('a\u{1D49C}b')).toEqual(new Set(['  a', ' a\u{1D49C}', 'a\u{1D49C}b', '\u{1D49C}b ']))
  })
})

describe('similarity', () => {
  it("similarity('word', 'two words') = 4/11, printed 0.36363637 (PostgreSQL docs example)", () => {
    // word:      "  w" " wo" "wor" "ord" "rd "                                      (5)
    // two words: "  t" " tw" "two" "wo " "  w" " wo" "wor" "ord" "rds" "ds "        (10)
    // shared 4 → 4 / (5 + 10 − 4) = 4/11, as float4.
    const s = similarity('word', 'two words')
    expect(s).toBe(Math.fround(4 / 11))
    expect(s.toPrecision(8)).toBe('0.36363637')
    expect(similarity('two words', 'word')).toBe(s)
  })

  it('matches the similarity values of the pg_trgm regression test', () => {
    // expected/pg_trgm.out
    expect(similarity('wow', 'WOWa ')).toBe(0.5) // {  w, wo, wow, ow } vs + {owa, wa }: 4/(4+6−4)
    expect(similarity('wow', ' WOW ')).toBe(1)
    expect(similarity('---', '####---')).toBe(0) // both empty: cnt_sml returns 0, not NaN
    // "qwertyu0980 | 0.714286": 12 trigrams each, 10 shared → 10/14.
    expect(similarity('qwertyu0980', 'qwertyu0988')).toBe(Math.fround(10 / 14))
    expect(pg6(similarity('qwertyu0980', 'qwertyu0988'))).toBe(0.714286)
    // "qwertyu0088 | 0.6": 12 each, shared 8 + "88 " = 9 → 9/15.
    expect(similarity('qwertyu0088', 'qwertyu0988')).toBe(Math.fround(0.6))
  })

  it('is 0 when either side has no trigrams', () => {
    expect(similarity('', '')).toBe(0)
    expect(similarity('', 'Tshwane')).toBe(0)
    expect(similarity('Tshwane', '?!')).toBe(0)
  })

  it('is case and punctuation insensitive', () => {
    expect(similarity('eThekwini', 'ETHEKWINI!')).toBe(1)
    expect(trigrams('eThekwini')).toEqual(trigrams('  ETHEKWINI!'))
    expect(similarity('Nelson Mandela Bay', 'nelson-mandela, bay.')).toBe(1)
  })

  it('scores realistic jurisdiction queries (hand-computed)', () => {
    // tshwan: "  t" " ts" tsh shw hwa wan "an "                                     (7)
    // City of Tshwane: city 5 + of 3 + tshwane 8                                    (16)
    // shared: "  t" " ts" tsh shw hwa wan = 6 → 6 / (7 + 16 − 6) = 6/17 ≈ 0.353
    expect(similarity('tshwan', 'City of Tshwane')).toBe(Math.fround(6 / 17))
    // mandela bay: 8 + 4 = 12, all inside Nelson Mandela Bay (7 + 8 + 4 = 19) → 12/19 ≈ 0.632
    expect(similarity('mandela bay', 'Nelson Mandela Bay')).toBe(Math.fround(12 / 19))
    // joburg: "  j" " jo" job obu bur urg "rg " (7); City of Johannesburg: 5 + 3 + 13 = 21;
    // shared "  j" " jo" bur urg "rg " = 5 → 5/23 ≈ 0.217 < 0.3
    expect(similarity('Joburg', 'City of Johannesburg')).toBe(Math.fround(5 / 23))
  })
})

describe('wordSimilarity / strictWordSimilarity', () => {
  it("word_similarity('word', 'two words') = 0.8 (PostgreSQL docs example)", () => {
    // Best extent "  w" " wo" "wor" "ord": 4 shared, 4 in extent → 4 / (5 + 4 − 4).
    expect(wordSimilarity('word', 'two words')).toBe(Math.fround(0.8))
  })

  it('matches expected/pg_word_trgm.out', () => {
    const baykal: [string, number][] = [
      ['Baykal', 1],
      ['Boloto Malyy Baykal', 1],
      ['Baykalikha', 0.857143],
      ['Baykalo-Amurskaya Zheleznaya Doroga', 0.857143],
      ['Baykalovskiy Rayon', 0.857143],
      ['Zabaykal', 0.714286],
      ['Bakal Batu', 0.571429],
      ['Zabaykalka', 0.571429],
      ['Zabaykalovskiy', 0.571429],
    ]
    for (const [t, v] of baykal) expect([t, pg6(wordSimilarity('Baykal', t))]).toEqual([t, v])
    const kabankala: [string, number][] = [
      ['Kabankala', 1],
      ['Kabankalan City Public Plaza', 0.9],
      ['Abankala', 0.7],
      ['Ntombankala School', 0.6],
      ['Kabakala', 0.583333],
      ['Nehalla Bankalah Reserved Forest', 0.5],
    ]
    for (const [t, v] of kabankala) expect([t, pg6(wordSimilarity('Kabankala', t))]).toEqual([t, v])
    // "t <->> 'Kabankala'" = 1 − word_similarity('Kabankala', t): "0.538462 | Kabikala".
    expect(pg6(Math.fround(1 - wordSimilarity('Kabankala', 'Kabikala')))).toBe(0.538462)
    expect(pg6(Math.fround(1 - wordSimilarity('Kabankala', 'Kabakala')))).toBe(0.416667)
  })

  it('matches expected/pg_strict_word_trgm.out', () => {
    const baykal: [string, number][] = [
      ['Polevoy Stan Baykal', 1],
      ['Baykalo-Amurskaya Zheleznaya Doroga', 0.666667],
      ['Baykalovo', 0.545455],
      ['Maloye Baykalovo', 0.545455],
      ['Baykalikha', 0.5],
      ['Zabaykal', 0.454545],
      ['Air Bakal-kecil', 0.444444],
      ['Zaouia Oulad Bakal', 0.444444],
      ['Baykalovskiy Rayon', 0.428571],
      ['Lake Baikal', 0.4],
      ['Sidi Mohammed Bakkal', 0.4],
    ]
    for (const [t, v] of baykal) expect([t, pg6(strictWordSimilarity('Baykal', t))]).toEqual([t, v])
    const kabankala: [string, number][] = [
      ['Kabankalan City Public Plaza', 0.75],
      ['Abankala', 0.583333],
      ['Kabakala', 0.583333],
      ['Kabikala', 0.461538],
    ]
    for (const [t, v] of kabankala) expect([t, pg6(strictWordSimilarity('Kabankala', t))]).toEqual([t, v])
    // "t <->>> 'Alaikallupoddakulam'": 0.25 and 0.32.
    expect(pg6(Math.fround(1 - strictWordSimilarity('Alaikallupoddakulam', 'Alaikallupodda Alankulam')))).toBe(0.25)
    expect(pg6(Math.fround(1 - strictWordSimilarity('Alaikallupoddakulam', 'Alaikalluppodda Kulam')))).toBe(0.32)
    expect(pg6(Math.fround(1 - strictWordSimilarity('Alaikallupoddakulam', 'Mulaikallu Kulam')))).toBe(0.615385)
  })

  it('is 0 with nothing to compare', () => {
    expect(wordSimilarity('', 'Tshwane')).toBe(0)
    expect(wordSimilarity('Tshwane', '')).toBe(0)
    expect(strictWordSimilarity('', 'Tshwane')).toBe(0)
    expect(strictWordSimilarity('', '')).toBe(0)
  })
})

const JURISDICTIONS = [
  'City of Tshwane Metropolitan Municipality',
  'City of Tshwane',
  'Nelson Mandela Bay',
  'Nelson Mandela Bay Metropolitan Municipality',
  'City of Johannesburg',
  'eThekwini Metropolitan Municipality',
  'Gauteng',
  'KwaZulu-Natal',
  'Western Cape',
  'Ga-Rankuwa',
  'Ward 12',
  'Tlokwe',
  'Mandeni',
]

describe('TrigramIndex', () => {
  const idx = new TrigramIndex(JURISDICTIONS)
  const ids = (hits: TrigramHit[]) => hits.map((h) => JURISDICTIONS[h.id])

  it('finds "City of Tshwane" for "tshwan" above 0.3', () => {
    const hits = idx.search('tshwan', { limit: 5 })
    expect(ids(hits)).toContain('City of Tshwane')
    const hit = hits.find((h) => JURISDICTIONS[h.id] === 'City of Tshwane')!
    expect(hit.similarity).toBeGreaterThan(0.3)
    expect(hit.similarity).toBe(similarity('tshwan', 'City of Tshwane'))
  })

  it('finds "Nelson Mandela Bay" first for "mandela bay"', () => {
    expect(ids(idx.search('mandela bay', { limit: 3 }))[0]).toBe('Nelson Mandela Bay')
  })

  it('misses "City of Johannesburg" for "Joburg" at the default threshold', () => {
    expect(DEFAULT_SIMILARITY_THRESHOLD).toBe(0.3)
    expect(ids(idx.search('Joburg', { limit: 10 }))).not.toContain('City of Johannesburg')
    expect(ids(idx.search('Joburg', { limit: 10, threshold: 0.2 }))).toContain('City of Johannesburg')
  })

  it('is case and punctuation insensitive', () => {
    // ethekwini 10 trigrams; "metropolitan" 13 and "municipality" 13 share "  m" and "lit" → 34
    // distinct in the long name, 10 shared → 10/34 ≈ 0.294: just under the default threshold.
    const long = 'eThekwini Metropolitan Municipality'
    expect(similarity('ETHEKWINI!', long)).toBe(Math.fround(10 / 34))
    expect(ids(idx.search('ETHEKWINI!', { limit: 3 }))).not.toContain(long)
    const a = idx.search('ETHEKWINI!', { limit: 3, threshold: 0.25 })
    expect(a).toEqual(idx.search('eThekwini', { limit: 3, threshold: 0.25 }))
    expect(ids(a)).toEqual([long])
    expect(idx.search('  nelson-MANDELA  bay?', { limit: 3 })).toEqual(idx.search('Nelson Mandela Bay', { limit: 3 }))
  })

  it('returns nothing for empty, non-alphanumeric or non-positive-limit queries', () => {
    expect(idx.search('', { limit: 5 })).toEqual([])
    expect(idx.search('--!', { limit: 5 })).toEqual([])
    expect(idx.search('tshwane', { limit: 0 })).toEqual([])
    expect(new TrigramIndex([]).search('tshwane', { limit: 5 })).toEqual([])
  })

  it('orders ties by name length, then id', () => {
    const names = ['(Soweto)', 'Soweto', 'Soweto!!', 'SOWETO', 'Soweto West', 'Sowet']
    const tie = new TrigramIndex(names)
    const hits = tie.search('soweto', { limit: 10 })
    // Four names have similarity 1: lengths 8, 6, 8, 6 → ids 1, 3 (length 6), then 0, 2 (length 8).
    expect(hits.slice(0, 4)).toEqual([
      { id: 1, similarity: 1 },
      { id: 3, similarity: 1 },
      { id: 0, similarity: 1 },
      { id: 2, similarity: 1 },
    ])
    expect(hits.slice(4).map((h) => h.id)).toEqual(
      bruteForce(names, 'soweto', { limit: 10 })
        .slice(4)
        .map((h) => h.id),
    )
    for (let i = 1; i < hits.length; i++) expect(hits[i].similarity).toBeLessThanOrEqual(hits[i - 1].similarity)
  })

  it('obeys filter and limit', () => {
    const even = (id: number) => id % 2 === 0
    const hits = idx.search('Metropolitan Municipality', { limit: 100, threshold: 0.1, filter: even })
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.every((h) => h.id % 2 === 0)).toBe(true)
    expect(hits).toEqual(
      bruteForce(JURISDICTIONS, 'Metropolitan Municipality', { limit: 100, threshold: 0.1, filter: even }),
    )
    const all = idx.search('Metropolitan Municipality', { limit: 100, threshold: 0.1 })
    expect(all.length).toBeGreaterThan(2)
    expect(idx.search('Metropolitan Municipality', { limit: 2, threshold: 0.1 })).toEqual(all.slice(0, 2))
  })

  it('refuses re-entrant searches from a filter and stays usable', () => {
    expect(() => idx.search('tshwane', { limit: 5, filter: () => idx.search('x', { limit: 1 }).length > 0 })).toThrow(
      /re-entrant/,
    )
    expect(idx.search('tshwane', { limit: 5 })).toEqual(bruteForce(JURISDICTIONS, 'tshwane', { limit: 5 }))
  })

  it('equals brute-force similarity on 2000 generated names and 50 queries', () => {
    const rand = mulberry32(20240607)
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]
    const syll = [
      'ka',
      'ma',
      'tsh',
      'wa',
      'ne',
      'lo',
      'bo',
      'thu',
      'ng',
      'zi',
      'mo',
      'ri',
      'se',
      'kwe',
      'ê',
      'ba',
      'di',
      'la',
    ]
    const word = () => {
      let w = ''
      const n = 1 + Math.floor(rand() * 4)
      for (let i = 0; i < n; i++) w += pick(syll)
      return rand() < 0.3 ? w[0].toUpperCase() + w.slice(1) : w
    }
    const suffixes = [
      '',
      ' Local Municipality',
      ' Ward ' + 0,
      ' District',
      '-Noord',
      ' (Pty)',
      ' 12',
      ' Township',
      '!!',
    ]
    const names: string[] = []
    for (let i = 0; i < 2000; i++) {
      const words = 1 + Math.floor(rand() * 3)
      const parts: string[] = []
      for (let k = 0; k < words; k++) parts.push(word())
      let suffix = pick(suffixes)
      if (suffix.startsWith(' Ward')) suffix = ' Ward ' + Math.floor(rand() * 120)
      names.push(parts.join(rand() < 0.2 ? '-' : ' ') + suffix)
    }
    names.push('', '***', 'a') // names without trigrams and with a one-letter word
    const queries: string[] = []
    for (let i = 0; i < 50; i++) {
      if (i % 3 === 0) queries.push(word())
      else {
        // A name with one character dropped or changed, often lower-cased.
        const name = pick(names)
        const at = Math.floor(rand() * Math.max(1, name.length))
        const typo =
          rand() < 0.5 ? name.slice(0, at) + name.slice(at + 1) : name.slice(0, at) + 'x' + name.slice(at + 1)
        queries.push(rand() < 0.5 ? typo.toLowerCase() : typo)
      }
    }
    queries.push('', 'a')

    const index = new TrigramIndex(names)
    let nonEmpty = 0
    for (const q of queries) {
      for (const threshold of [0.3, 0.1, 0.6]) {
        const expected = bruteForce(names, q, { limit: Infinity, threshold })
        const got = index.search(q, { limit: Infinity, threshold })
        expect(got).toEqual(expected)
        if (got.length > 0) nonEmpty++
        expect(index.search(q, { limit: 7, threshold })).toEqual(expected.slice(0, 7))
      }
      const filter = (id: number) => id % 3 !== 1
      expect(index.search(q, { limit: 20, filter })).toEqual(bruteForce(names, q, { limit: 20, filter }))
    }
    // threshold 0 makes every name a hit (similarity 0 included), as `%` on a sequential scan.
    for (const q of queries.slice(0, 5)) {
      const got = index.search(q, { limit: Infinity, threshold: 0 })
      expect(got).toHaveLength(names.length)
      expect(got).toEqual(bruteForce(names, q, { limit: Infinity, threshold: 0 }))
    }
    // The comparison must not be vacuous.
    expect(nonEmpty).toBeGreaterThan(80)
  })
})
