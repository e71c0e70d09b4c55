/**
 * The in-memory inverted trigram index behind `GET /api/v1/jurisdiction/search`, with pg_trgm
 * similarity (pg-trgm.ts, whose public functions are re-exported here). Pure: no I/O, no
 * project imports beyond pg-trgm.ts.
 */
import { calcSml, DEFAULT_SIMILARITY_THRESHOLD, nextWord, trigrams, word, wordTrigrams } from './pg-trgm.js'

export {
  DEFAULT_SIMILARITY_THRESHOLD,
  setSimilarity,
  similarity,
  strictWordSimilarity,
  trigrams,
  wordSimilarity,
} from './pg-trgm.js'

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
