/**
 * Trigram similarity with PostgreSQL pg_trgm semantics, plus an in-memory inverted index for
 * `GET /api/v1/jurisdiction/search`. Pure: no I/O, no project imports.
 *
 * Ported from postgres `contrib/pg_trgm` (trgm.h, trgm_op.c); see DOMAIN.md §4.7.
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
const word = { start: 0, end: 0, ascii: true }

/**
 * find_word(): the next maximal run of word characters at or after `pos`, into `word`.
 * Returns false when there is none. `word.ascii` tells whether the run is pure ASCII.
 */
function nextWord(text: string, pos: number): boolean {
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
function wordTrigrams(lower: string, out: string[]): void {
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
function calcSml(count: number, len1: number, len2: number): number {
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

export interface TrigramSearchOptions {
  /** Maximum number of hits returned. */
  limit: number
  /** Minimum similarity (inclusive, like `%`); default pg_trgm.similarity_threshold = 0.3. */
  threshold?: number
  /** Only ids for which this returns true are returned (called only for ids above threshold). */
  filter?: (id: number) => boolean
}

export interface TrigramHit {
  id: number
  similarity: number
}

/** Dense codes for trigram characters ' ' (0), a-z (1..26), 0-9 (27..36); -1 otherwise. */
const DENSE_BASE = 37
const DENSE_SIZE = DENSE_BASE * DENSE_BASE * DENSE_BASE
const DENSE_CODE = new Int8Array(128).fill(-1)
DENSE_CODE[32] = 0
for (let c = 0; c < 26; c++) {
  DENSE_CODE[97 + c] = 1 + c
  DENSE_CODE[65 + c] = 1 + c // only reached for ASCII words, whose lower case this is
}
for (let c = 0; c < 10; c++) DENSE_CODE[48 + c] = 27 + c

/** Dense key of a trigram string made only of ' ', a-z, 0-9; -1 for any other string. */
function denseKey(t: string): number {
  if (t.length !== 3) return -1
  const a = t.charCodeAt(0)
  const b = t.charCodeAt(1)
  const c = t.charCodeAt(2)
  if (a >= 128 || b >= 128 || c >= 128) return -1
  // Upper-case letters never reach here: trigram strings are built from lower-cased words.
  const ka = a >= 65 && a <= 90 ? -1 : DENSE_CODE[a]
  const kb = b >= 65 && b <= 90 ? -1 : DENSE_CODE[b]
  const kc = c >= 65 && c <= 90 ? -1 : DENSE_CODE[c]
  if (ka < 0 || kb < 0 || kc < 0) return -1
  return (ka * DENSE_BASE + kb) * DENSE_BASE + kc
}

/**
 * Inverted trigram index over a fixed list of names; a name's id is its index in the list.
 * Trigrams are interned to integer ids: those made of ' ', a-z, 0-9 through a 37³ Int32Array
 * (200 KB), any other through a Map. Posting lists are CSR (Uint32Array offsets + ids); per name
 * only its trigram count and length are kept, not the name. A query adds 1 per shared trigram
 * into a reusable Int32Array of counts (reset through the list of touched ids), so its cost is
 * the total length of the query trigrams' posting lists.
 */
export class TrigramIndex {
  readonly size: number
  /** Trigram ids of trigrams made only of ' ', a-z, 0-9, by denseKey(); -1 = not in the index. */
  private readonly denseIds = new Int32Array(DENSE_SIZE).fill(-1)
  /** Trigram ids of every other trigram. */
  private readonly otherIds = new Map<string, number>()
  /** postings[offsets[t] .. offsets[t + 1]) = ids of the names containing trigram t, ascending. */
  private readonly offsets: Uint32Array
  private readonly postings: Uint32Array
  /** Number of distinct trigrams per name. */
  private readonly setSizes: Uint32Array
  /** names[id].length (UTF-16 code units), the first tie-breaker. */
  private readonly nameLengths: Uint32Array
  /** Shared trigram counts per name, all zero between queries. */
  private readonly counts: Int32Array
  /** Ids whose count became non-zero during the current query. */
  private readonly touched: Uint32Array
  private readonly sims: Float64Array
  /** Ids passing threshold and filter during the current query. */
  private readonly candidates: Uint32Array
  private searching = false

  constructor(names: readonly string[]) {
    const n = names.length
    this.size = n
    this.setSizes = new Uint32Array(n)
    this.nameLengths = new Uint32Array(n)

    // Pass 1: distinct trigram ids per name, concatenated; document frequency per trigram.
    let flat = new Uint32Array(Math.max(16, n * 16))
    let flatLen = 0
    const nameStart = new Uint32Array(n + 1)
    let df = new Uint32Array(1024)
    let lastSeen = new Int32Array(1024).fill(-1)
    let trigramCount = 0
    const scratch: string[] = []
    const dense = this.denseIds
    const other = this.otherIds

    const add = (tid: number, id: number): void => {
      if (lastSeen[tid] === id) return
      lastSeen[tid] = id
      df[tid]++
      if (flatLen === flat.length) {
        const grown = new Uint32Array(flat.length * 2)
        grown.set(flat)
        flat = grown
      }
      flat[flatLen++] = tid
    }
    const newTrigram = (): number => {
      if (trigramCount === df.length) {
        const grownDf = new Uint32Array(df.length * 2)
        grownDf.set(df)
        df = grownDf
        const grownSeen = new Int32Array(lastSeen.length * 2).fill(-1)
        grownSeen.set(lastSeen)
        lastSeen = grownSeen
      }
      return trigramCount++
    }

    for (let id = 0; id < n; id++) {
      const name = names[id]
      this.nameLengths[id] = name.length
      nameStart[id] = flatLen
      let pos = 0
      while (nextWord(name, pos)) {
        pos = word.end
        if (word.ascii) {
          // Fast path, no strings: slide over the dense codes of "  word ".
          let c0 = 0
          let c1 = 0
          for (let i = word.start; i <= word.end; i++) {
            const c2 = i < word.end ? DENSE_CODE[name.charCodeAt(i)] : 0
            const key = (c0 * DENSE_BASE + c1) * DENSE_BASE + c2
            let tid = dense[key]
            if (tid < 0) dense[key] = tid = newTrigram()
            add(tid, id)
            c0 = c1
            c1 = c2
          }
        } else {
          scratch.length = 0
          wordTrigrams(name.slice(word.start, word.end).toLowerCase(), scratch)
          for (const t of scratch) {
            const key = denseKey(t)
            let tid: number
            if (key >= 0) {
              tid = dense[key]
              if (tid < 0) dense[key] = tid = newTrigram()
            } else {
              const known = other.get(t)
              if (known === undefined) other.set(t, (tid = newTrigram()))
              else tid = known
            }
            add(tid, id)
          }
        }
      }
      this.setSizes[id] = flatLen - nameStart[id]
    }
    nameStart[n] = flatLen

    // Pass 2: CSR posting lists; filling in id order keeps every list sorted.
    const t = trigramCount
    this.offsets = new Uint32Array(t + 1)
    for (let i = 0; i < t; i++) this.offsets[i + 1] = this.offsets[i] + df[i]
    this.postings = new Uint32Array(flatLen)
    const cursor = this.offsets.slice(0, t)
    for (let id = 0; id < n; id++) {
      for (let k = nameStart[id]; k < nameStart[id + 1]; k++) this.postings[cursor[flat[k]]++] = id
    }

    this.counts = new Int32Array(n)
    this.touched = new Uint32Array(n)
    this.sims = new Float64Array(n)
    this.candidates = new Uint32Array(n)
  }

  /** Number of distinct trigrams in the index. */
  get trigramCount(): number {
    return this.offsets.length - 1
  }

  /** Exactly `similarity(q, names[id])`, for every id. */
  private similarityOf(id: number, shared: number, querySize: number): number {
    const size = this.setSizes[id]
    if (querySize === 0 || size === 0) return 0
    return calcSml(shared, querySize, size)
  }

  /**
   * Names with similarity(q, name) ≥ threshold, best first: similarity desc, then name length
   * asc, then id asc. With threshold ≤ 0 every name qualifies (as `%` would on a sequential scan).
   */
  search(q: string, opts: TrigramSearchOptions): TrigramHit[] {
    const { limit, filter } = opts
    const threshold = opts.threshold ?? DEFAULT_SIMILARITY_THRESHOLD
    if (!(limit > 0) || this.size === 0) return []

    if (this.searching) throw new Error('TrigramIndex.search is not re-entrant (called from a filter?)')
    const qset = trigrams(q)
    const qsize = qset.size
    const { counts, touched, sims, offsets, postings, candidates } = this
    let nTouched = 0
    let nCandidates = 0
    this.searching = true
    try {
      for (const t of qset) {
        const key = denseKey(t)
        const tid = key >= 0 ? this.denseIds[key] : (this.otherIds.get(t) ?? -1)
        if (tid < 0) continue
        const end = offsets[tid + 1]
        for (let p = offsets[tid]; p < end; p++) {
          const id = postings[p]
          if (counts[id]++ === 0) touched[nTouched++] = id
        }
      }

      // With threshold ≤ 0 names sharing no trigram (similarity 0) qualify too.
      const all = threshold <= 0
      const m = all ? this.size : nTouched
      for (let k = 0; k < m; k++) {
        const id = all ? k : touched[k]
        const s = this.similarityOf(id, counts[id], qsize)
        if (s >= threshold && (!filter || filter(id))) {
          sims[id] = s
          candidates[nCandidates++] = id
        }
      }
    } finally {
      for (let k = 0; k < nTouched; k++) counts[touched[k]] = 0
      this.searching = false
    }

    const lengths = this.nameLengths
    /** Result order: similarity desc, then name length asc, then id asc. */
    const before = (a: number, b: number): boolean =>
      sims[a] !== sims[b] ? sims[a] > sims[b] : lengths[a] !== lengths[b] ? lengths[a] < lengths[b] : a < b
    let top: number[]
    if (limit < nCandidates) {
      // Keep the best `limit` in a heap whose root is the worst kept.
      const k = Math.floor(limit)
      const heap: number[] = []
      for (let c = 0; c < nCandidates; c++) {
        const id = candidates[c]
        if (heap.length < k) {
          let i = heap.length
          heap.push(id)
          while (i > 0) {
            const parent = (i - 1) >> 1
            if (!before(heap[parent], heap[i])) break
            ;[heap[parent], heap[i]] = [heap[i], heap[parent]]
            i = parent
          }
        } else if (k > 0 && before(id, heap[0])) {
          heap[0] = id
          let i = 0
          for (;;) {
            const l = 2 * i + 1
            const r = l + 1
            let worst = i
            if (l < k && before(heap[worst], heap[l])) worst = l
            if (r < k && before(heap[worst], heap[r])) worst = r
            if (worst === i) break
            ;[heap[worst], heap[i]] = [heap[i], heap[worst]]
            i = worst
          }
        }
      }
      top = heap
    } else {
      top = Array.from(candidates.subarray(0, nCandidates))
    }
    top.sort((a, b) => (a === b ? 0 : before(a, b) ? -1 : 1))
    return top.map((id) => ({ id, similarity: sims[id] }))
  }
}
