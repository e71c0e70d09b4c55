/**
 * A hash index from LPI to parcel ids, a dataset file of its own (`parcels.lpi-hash`), mapped
 * like the spatial indexes: every lookup by LPI (`/parcels/{lpi}`, the encumbrance lookups,
 * jurisdiction by LPI) finds its rows' ids in one or two cache lines instead of descending
 * SQLite's `parcel_lpi` B-tree (226 MB at national scale), and then reads each row by id.
 *
 * Why: at national scale `SELECT … WHERE lpi = ?` cost 31–40 µs in a tight loop against 10 µs
 * for the index descent alone and 13 µs for the row by id; inside a request, with the caches
 * the rest of the request evicts, the descent costs about twice that.
 *
 * Layout (little-endian u32 words):
 *
 *   [0] magic 'LPIH'   [1] version   [2] bucket bits b   [3] entry count n
 *   [4 .. 4 + 2^b]        bucket offsets (2^b + 1 of them, into the entries)
 *   then n entries        (fingerprint, id) pairs, grouped by bucket, ids ascending within one
 *
 * The bucket is the top b bits of one hash of the LPI and the fingerprint a second, independent
 * hash; both are FNV-1a style over the string's UTF-16 code units with murmur3's finaliser. A
 * lookup yields the ids whose fingerprint matches, so a caller reads a wrong row only on a
 * 32-bit fingerprint collision inside one bucket, and must (and does) check each row's `lpi`.
 *
 * @module
 */

export const LPI_HASH_MAGIC = 0x4849504c // 'LPIH'
export const LPI_HASH_VERSION = 1
const HEAD_WORDS = 4

function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The bucket hash of an LPI (unsigned 32-bit). */
export function lpiBucketHash(s: string): number {
  let h = 0x811c9dc5
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x01000193)
  return fmix32(h)
}

/** The fingerprint of an LPI (unsigned 32-bit), independent of its bucket hash. */
export function lpiFingerprint(s: string): number {
  let h = 0x9747b28c
  for (let k = 0; k < s.length; k++) h = Math.imul(h ^ s.charCodeAt(k), 0x5bd1e995) ^ (h >>> 15)
  return fmix32(h)
}

/** Bucket bits for n entries: about two entries per bucket (16 bytes, within one cache line). */
export function lpiBucketBits(n: number): number {
  let bits = 0
  while (1 << bits < n / 2 && bits < 30) bits++
  return bits
}

/**
 * The file for ids 1..n, given each id's bucket hash and fingerprint (`bucketHash[id - 1]`,
 * `fingerprint[id - 1]`). `bits` defaults to {@link lpiBucketBits}; tests pass a small one to
 * force shared buckets.
 */
export function encodeLpiHash(
  bucketHash: Uint32Array,
  fingerprint: Uint32Array,
  n: number,
  bits = lpiBucketBits(n),
): Uint8Array {
  const buckets = 2 ** bits
  const shift = 32 - bits
  const bucketOf = (k: number) => (bits === 0 ? 0 : bucketHash[k] >>> shift)
  const words = new Uint32Array(HEAD_WORDS + buckets + 1 + 2 * n)
  words[0] = LPI_HASH_MAGIC
  words[1] = LPI_HASH_VERSION
  words[2] = bits
  words[3] = n
  const offsets = words.subarray(HEAD_WORDS, HEAD_WORDS + buckets + 1)
  for (let k = 0; k < n; k++) offsets[bucketOf(k) + 1]++
  for (let b = 0; b < buckets; b++) offsets[b + 1] += offsets[b]
  const next = offsets.slice(0, buckets)
  const entries = words.subarray(HEAD_WORDS + buckets + 1)
  // ids in ascending order, so each bucket lists its ids ascending
  for (let k = 0; k < n; k++) {
    const e = next[bucketOf(k)]++
    entries[2 * e] = fingerprint[k]
    entries[2 * e + 1] = k + 1
  }
  return new Uint8Array(words.buffer)
}

/** Returns null when the first 16 bytes are an LPI hash file's header, else why not. */
export function checkLpiHashHeader(head: Uint8Array): string | null {
  if (head.length < 16) return 'too short for an LPI hash index'
  const v = new DataView(head.buffer, head.byteOffset, 16)
  if (v.getUint32(0, true) !== LPI_HASH_MAGIC) return 'not an LPI hash index'
  const version = v.getUint32(4, true)
  if (version !== LPI_HASH_VERSION) return `LPI hash format v${version}, expected v${LPI_HASH_VERSION}`
  if (v.getUint32(8, true) > 30) return 'LPI hash index with more than 2^30 buckets'
  return null
}

/** Reader of {@link encodeLpiHash}, over the file's bytes (mapped or read). */
export class LpiHashIndex {
  private readonly shift: number
  private readonly bits: number
  private readonly offsets: Uint32Array
  private readonly entries: Uint32Array
  /** entries (parcels) indexed */
  readonly size: number

  constructor(data: ArrayBuffer) {
    const bad = checkLpiHashHeader(new Uint8Array(data, 0, Math.min(16, data.byteLength)))
    if (bad) throw new Error(bad)
    const head = new Uint32Array(data, 0, HEAD_WORDS)
    this.bits = head[2]
    this.size = head[3]
    const buckets = 2 ** this.bits
    const want = 4 * (HEAD_WORDS + buckets + 1 + 2 * this.size)
    if (data.byteLength !== want)
      throw new Error(`LPI hash index is ${data.byteLength} bytes, its header implies ${want}`)
    this.shift = 32 - this.bits
    this.offsets = new Uint32Array(data, 4 * HEAD_WORDS, buckets + 1)
    this.entries = new Uint32Array(data, 4 * (HEAD_WORDS + buckets + 1), 2 * this.size)
  }

  /**
   * Ids (ascending) that may carry this LPI: every id that does, and, rarely, one whose LPI only
   * shares the bucket and the fingerprint. The caller checks each row's LPI.
   */
  candidates(lpi: string): number[] {
    const b = this.bits === 0 ? 0 : lpiBucketHash(lpi) >>> this.shift
    const fp = lpiFingerprint(lpi)
    const out: number[] = []
    const e = this.entries
    for (let k = this.offsets[b], end = this.offsets[b + 1]; k < end; k++) if (e[2 * k] === fp) out.push(e[2 * k + 1])
    return out
  }
}
