/**
 * Trigram similarity with PostgreSQL pg_trgm semantics: trigram extraction and the similarity
 * functions (the inverted index for `GET /api/v1/jurisdiction/search` is trigram.ts, built on
 * the word scan and CALCSML exported here). Pure: no I/O, no project imports.
 *
 * Ported from postgres `contrib/pg_trgm` (trgm.h, trgm_op.c); see docs/domain.md §4.7.
 * - trgm.h: LPADDING 2, RPADDING 1, KEEPONLYALNUM, IGNORECASE, DIVUNION;
 *   `ISWORDCHR(c) = t_isalpha(c) || t_isdigit(c)`.
 * - generate_trgm_only(): words are found on the original text with ISWORDCHR, each word is then
 *   lower-cased (str_tolower), padded "  word " and cut into every 3-character window.
 * - generate_trgm(): sorts and de-duplicates → a set.
 * - cnt_sml(): returns 0 when either set is empty (avoids 0/0), else
 *   `CALCSML(count, len1, len2) = (float4) count / (float4) (len1 + len2 - count)`.
 * - calc_word_similarity() / iterate_word_similarity(): ported literally below.
 *
 * Results are float4 in PostgreSQL (`real`), so every similarity here is rounded with
 * `Math.fround`: e.g. similarity('word', 'two words') = Math.fround(4/11), which PostgreSQL prints
 * as 0.36363637. (float64 division then rounding to float32 equals a float32 division: double
 * rounding is innocuous for division since 53 ≥ 2·24 + 2.)
 *
 * Known, deliberate divergences from a live PostgreSQL:
 * - Character classes: PostgreSQL asks the database locale (libc iswalpha / ICU / builtin).
 *   Here a word character is `\p{Alphabetic}` or `\p{Nd}` (Unicode letters, letter-like marks and
 *   decimal digits); anything else — space, punctuation, `_`, symbols — separates words.
 * - Lower-casing uses `String.prototype.toLowerCase` (full Unicode mapping, like the ICU provider).
 * - PostgreSQL stores a trigram containing multi-byte characters as 3 bytes of its CRC32, so two
 *   such trigrams could in theory collide (and `show_trgm` prints them as `0x…` hex). Here the
 *   actual characters are kept, so sets are exact; ASCII trigrams are identical to PostgreSQL's.
 */

/** pg_trgm.similarity_threshold default (`%` operator). */
export const DEFAULT_SIMILARITY_THRESHOLD = 0.3

const WORD_CP_RE = /^[\p{Alphabetic}\p{Nd}]$/u
const SURROGATE_RE = /[\uD800-\uDFFF]/

/** ASCII word characters: A-Z, a-z, 0-9. */
const ASCII_WORD = new Uint8Array(128)
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0

function isWordCodePoint(cp: number): boolean {
  return cp < 128 ? ASCII_WORD[cp] === 1 : WORD_CP_RE.test(String.fromCodePoint(cp))
}

/** The word found by the last successful nextWord() call (module scratch: callers are synchronous and never nest). */
export const word = { start: 0, end: 0, ascii: true }

/**
 * find_word(): the next maximal run of word characters at or after `pos`, into `word`.
 * Returns false when there is none. `word.ascii` tells whether the run is pure ASCII.
 */
export function nextWord(text: string, pos: number): boolean {
  const len = text.length
  let i = pos
  while (i < len) {
    const cp = text.codePointAt(i)!
    if (isWordCodePoint(cp)) break
    i += cp > 0xffff ? 2 : 1
  }
  if (i >= len) return false
  word.start = i
  let ascii = true
  while (i < len) {
    const cp = text.codePointAt(i)!
    if (!isWordCodePoint(cp)) break
    if (cp >= 128) ascii = false
    i += cp > 0xffff ? 2 : 1
  }
  word.end = i
  word.ascii = ascii
  return true
}

/**
 * Appends the trigrams of one lower-cased word in generation order (make_trigrams on "  word ").
 */
export function wordTrigrams(lower: string, out: string[]): void {
  const padded = '  ' + lower + ' '
  if (!SURROGATE_RE.test(padded)) {
    for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3))
  } else {
    const cps = Array.from(padded)
    for (let i = 0; i + 3 <= cps.length; i++) out.push(cps[i] + cps[i + 1] + cps[i + 2])
  }
}

/**
 * Appends the trigrams of `text` in generation order (duplicates kept), like
 * generate_trgm_only(): words are found on the original text, then lower-cased. If `bounds` is
 * given, pushes one flag per trigram: 1 = first trigram of a word, 2 = last (TRGM_BOUND_LEFT/RIGHT).
 */
function orderedTrigrams(text: string, out: string[], bounds?: number[]): void {
  let pos = 0
  while (nextWord(text, pos)) {
    pos = word.end
    const start = out.length
    wordTrigrams(text.slice(word.start, word.end).toLowerCase(), out)
    if (bounds) {
      // A word of n ≥ 1 characters always yields n + 1 ≥ 2 trigrams.
      for (let i = start; i < out.length; i++) bounds.push(0)
      bounds[start] |= 1
      bounds[out.length - 1] |= 2
    }
  }
}

/** The distinct trigrams of `text`, as pg_trgm `show_trgm` builds them (in no particular order). */
export function trigrams(text: string): Set<string> {
  const list: string[] = []
  orderedTrigrams(text, list)
  return new Set(list)
}

/** CALCSML with DIVUNION, as float4. Callers guarantee a positive denominator. */
export function calcSml(count: number, len1: number, len2: number): number {
  return Math.fround(count / (len1 + len2 - count))
}

/** Similarity of two trigram sets (cnt_sml): 0 when either is empty. */
export function setSimilarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  let shared = 0
  for (const t of small) if (large.has(t)) shared++
  return calcSml(shared, a.size, b.size)
}

/** pg_trgm `similarity(a, b)`: shared / (|A| + |B| − shared), 0 if either string has no trigrams. */
export function similarity(a: string, b: string): number {
  return setSimilarity(trigrams(a), trigrams(b))
}

/** calc_word_similarity() + iterate_word_similarity() without WORD_SIMILARITY_CHECK_ONLY. */
function calcWordSimilarity(query: string, target: string, strict: boolean): number {
  const trg1: string[] = []
  const trg2: string[] = []
  const bounds: number[] | undefined = strict ? [] : undefined
  orderedTrigrams(query, trg1)
  orderedTrigrams(target, trg2, bounds)
  const len2 = trg2.length

  // Enumerate the distinct trigrams of both strings (PostgreSQL does it by sorting; only identity
  // matters): found[j] = trigram j occurs in the query; ulen1 = distinct trigrams of the query.
  const index = new Map<string, number>()
  const found: boolean[] = []
  for (const t of trg1) {
    if (!index.has(t)) {
      index.set(t, found.length)
      found.push(true)
    }
  }
  const ulen1 = found.length
  const trg2indexes = new Int32Array(len2)
  for (let i = 0; i < len2; i++) {
    let j = index.get(trg2[i])
    if (j === undefined) {
      j = found.length
      index.set(trg2[i], j)
      found.push(false)
    }
    trg2indexes[i] = j
  }

  const lastpos = new Int32Array(found.length).fill(-1)
  let ulen2 = 0
  let count = 0
  let upper = -1
  let lower = strict ? 0 : -1
  let smlrMax = 0

  for (let i = 0; i < len2; i++) {
    const trgindex = trg2indexes[i]

    // Update last position of this trigram.
    if (lower >= 0 || found[trgindex]) {
      if (lastpos[trgindex] < 0) {
        ulen2++
        if (found[trgindex]) count++
      }
      lastpos[trgindex] = i
    }

    // Upper bound: a word's last trigram (strict) or any trigram present in the query (plain).
    if (strict ? (bounds![i] & 2) !== 0 : found[trgindex]) {
      upper = i
      if (lower === -1) {
        lower = i
        ulen2 = 1
      }

      let smlrCur = calcSml(count, ulen1, ulen2)

      // Also try to move the lower bound right for a greater similarity.
      let tmpCount = count
      let tmpUlen2 = ulen2
      const prevLower = lower
      for (let tmpLower = lower; tmpLower <= upper; tmpLower++) {
        if (!strict || (bounds![tmpLower] & 1) !== 0) {
          const smlrTmp = calcSml(tmpCount, ulen1, tmpUlen2)
          if (smlrTmp > smlrCur) {
            smlrCur = smlrTmp
            ulen2 = tmpUlen2
            lower = tmpLower
            count = tmpCount
          }
        }
        const tmpTrgindex = trg2indexes[tmpLower]
        if (lastpos[tmpTrgindex] === tmpLower) {
          tmpUlen2--
          if (found[tmpTrgindex]) tmpCount--
        }
      }

      smlrMax = Math.max(smlrMax, smlrCur)

      for (let tmpLower = prevLower; tmpLower < lower; tmpLower++) {
        const tmpTrgindex = trg2indexes[tmpLower]
        if (lastpos[tmpTrgindex] === tmpLower) lastpos[tmpTrgindex] = -1
      }
    }
  }
  return smlrMax
}

/**
 * pg_trgm `word_similarity(query, target)`: the greatest similarity between the query's trigram
 * set and a continuous extent of the target's ordered trigrams, computed with PostgreSQL's own
 * iterative extent search (ported from iterate_word_similarity), so results match it exactly.
 */
export function wordSimilarity(query: string, target: string): number {
  return calcWordSimilarity(query, target, false)
}

/** pg_trgm `strict_word_similarity(query, target)`: like wordSimilarity, extents on word bounds. */
export function strictWordSimilarity(query: string, target: string): number {
  return calcWordSimilarity(query, target, true)
}
