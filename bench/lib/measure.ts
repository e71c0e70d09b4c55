/**
 * Per-call timing of an in-process query over a seeded probe set: one warm-up pass, `rounds`
 * timed passes (split by probe kind: near a real feature, or uniform in the extent), then one
 * untimed pass for ops/s.
 *
 * @module
 */
import { Samples, type Summary } from './stats.js'

/** Probes with their kind: 0 = near a real feature, 1 = uniform in the extent. */
export interface KindedProbes {
  kind: Uint8Array
  length: number
}

export interface OpRow<V extends string = string> {
  op: string
  variant: V
  all: Summary
  near: Summary | null
  random: Summary | null
  opsPerS: number
  /** mean results per call */
  meanResults: number
}

/** Times `op(k)` (which returns its result count) over every probe. */
export function measure<V extends string>(
  name: string,
  variant: V,
  probes: KindedProbes,
  rounds: number,
  op: (k: number) => number,
): OpRow<V> {
  // warm-up pass (JIT, page cache, SQLite statement caches)
  for (let k = 0; k < probes.length; k++) op(k)
  const all = new Samples(probes.length * rounds)
  const near = new Samples(probes.length * rounds)
  const random = new Samples(probes.length * rounds)
  let results = 0
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < probes.length; k++) {
      const t0 = performance.now()
      results += op(k)
      const dt = performance.now() - t0
      all.push(dt)
      ;(probes.kind[k] === 0 ? near : random).push(dt)
    }
  }
  // throughput without the per-call timer
  const t0 = performance.now()
  for (let k = 0; k < probes.length; k++) op(k)
  const opsPerS = probes.length / ((performance.now() - t0) / 1000)
  return {
    op: name,
    variant,
    all: all.summary(),
    near: near.summary(),
    random: random.summary(),
    opsPerS,
    meanResults: results / (probes.length * rounds),
  }
}

/**
 * Times `op(k)` for every `k` in `0..count-1`, as `measure` does (one warm-up pass, `rounds`
 * timed passes split by `kind` when given, one untimed pass for ops/s) but awaiting each call.
 * Also returns each k's own durations (ms).
 */
export async function measureAsync(
  name: string,
  variant: string,
  count: number,
  rounds: number,
  kind: Uint8Array | null,
  op: (k: number) => Promise<number> | number,
): Promise<{ row: OpRow; perKey: number[][] }> {
  for (let k = 0; k < count; k++) await op(k) // warm-up pass (JIT, page cache, statement caches)
  const all = new Samples(count * rounds)
  const split = [new Samples(count * rounds), new Samples(count * rounds)]
  const perKey: number[][] = Array.from({ length: count }, () => [])
  let results = 0
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < count; k++) {
      const t0 = performance.now()
      results += await op(k)
      const dt = performance.now() - t0
      all.push(dt)
      perKey[k].push(dt)
      if (kind) split[kind[k]].push(dt)
    }
  }
  // throughput without the per-call timer
  const t0 = performance.now()
  for (let k = 0; k < count; k++) await op(k)
  const opsPerS = count / ((performance.now() - t0) / 1000)
  return {
    row: {
      op: name,
      variant,
      all: all.summary(),
      near: kind ? split[0].summary() : null,
      random: kind ? split[1].summary() : null,
      opsPerS,
      meanResults: results / (count * rounds),
    },
    perKey,
  }
}
