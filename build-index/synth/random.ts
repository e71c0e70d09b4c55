/**
 * Seeded pseudo-random numbers for the generator.
 *
 * sfc32 (Chris Doty-Humphrey's "small fast counting" generator, 128-bit state) seeded through
 * splitmix32. Every stream is derived from the `--seed` value and a stream label, so a layer
 * asking for `ctx.random('plots')` gets the same numbers whether or not other layers ran before
 * it (that is what makes `--only` output identical to a full run).
 *
 * @module
 */

/** FNV-1a over the UTF-16 code units of `text`, as an unsigned 32-bit integer. */
export function hashString(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A splitmix32 sequence: good for turning one 32-bit seed into several well-mixed words. */
function splitmix32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
}

const TWO_POW_32 = 4294967296

/**
 * A deterministic random stream. Not cryptographic.
 *
 * @example
 * const rnd = new Random(42, 'plots')
 * rnd.int(1, 6) // same value on every run with seed 42
 */
export class Random {
  private a: number
  private b: number
  private c: number
  private d: number
  private spareNormal: number | null = null

  /**
   * @param seed unsigned 32-bit seed (the CLI `--seed`)
   * @param stream label naming the stream; different labels give independent sequences
   */
  constructor(
    readonly seed: number,
    readonly stream = '',
  ) {
    if (!Number.isInteger(seed) || seed < 0 || seed >= TWO_POW_32) {
      throw new Error(`Random seed must be an integer in [0, 2^32), got ${seed}`)
    }
    // two independent splitmix sequences so (seed, stream) pairs don't collide by xor
    const s1 = splitmix32(seed)
    const s2 = splitmix32(hashString(stream) ^ 0x5bd1e995)
    this.a = (s1() ^ s2()) >>> 0
    this.b = (s1() ^ s2()) >>> 0
    this.c = (s1() ^ s2()) >>> 0
    this.d = 1 // sfc32 counter
    // discard the first outputs, as the sfc32 reference does, to mix the state
    for (let i = 0; i < 15; i++) this.uint32()
  }

  /** An independent stream derived from this stream's seed and label plus `label`. */
  fork(label: string): Random {
    return new Random(this.seed, `${this.stream}/${label}`)
  }

  /** Next unsigned 32-bit integer. */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.uint32() / TWO_POW_32
  }

  /** Uniform float in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.float()
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (max < min) throw new Error(`Random.int: max ${max} < min ${min}`)
    return min + Math.floor(this.float() * (max - min + 1))
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p
  }

  /** A uniformly chosen element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Random.pick: empty array')
    return items[Math.floor(this.float() * items.length)]
  }

  /** Index chosen with probability proportional to `weights[i]` (non-negative, not all 0). */
  weightedIndex(weights: ArrayLike<number>): number {
    let total = 0
    for (let i = 0; i < weights.length; i++) total += weights[i]
    if (!(total > 0)) throw new Error('Random.weightedIndex: weights sum to 0')
    let r = this.float() * total
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]
      if (r < 0) return i
    }
    // float rounding: fall back to the last positive weight
    for (let i = weights.length - 1; i >= 0; i--) if (weights[i] > 0) return i
    return weights.length - 1
  }

  /** An element chosen with probability proportional to its weight. */
  weightedPick<T>(items: readonly T[], weights: ArrayLike<number>): T {
    if (items.length !== weights.length) throw new Error('Random.weightedPick: length mismatch')
    return items[this.weightedIndex(weights)]
  }

  /** Normally distributed value (Box-Muller, the spare value is kept for the next call). */
  normal(mean = 0, sd = 1): number {
    if (this.spareNormal !== null) {
      const z = this.spareNormal
      this.spareNormal = null
      return mean + sd * z
    }
    const u1 = 1 - this.float() // (0, 1], avoids log(0)
    const u2 = this.float()
    const r = Math.sqrt(-2 * Math.log(u1))
    this.spareNormal = r * Math.sin(2 * Math.PI * u2)
    return mean + sd * r * Math.cos(2 * Math.PI * u2)
  }

  /**
   * Sort key for weighted sampling without replacement (Efraimidis–Spirakis): take the items
   * with the largest keys. Larger weight gives a larger expected key.
   */
  weightedKey(weight: number): number {
    if (!(weight > 0)) return -Infinity
    return Math.log(1 - this.float()) / weight
  }

  /** Shuffles `items` in place (Fisher–Yates) and returns it. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1))
      const t = items[i]
      items[i] = items[j]
      items[j] = t
    }
    return items
  }
}
