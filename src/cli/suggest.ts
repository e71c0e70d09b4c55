/**
 * "Did you mean": the known word closest to a mistyped one, for option names, subcommands and
 * values with a fixed set of choices.
 *
 * @module
 */

/**
 * The optimal-string-alignment form of the Damerau-Levenshtein distance: insertions, deletions,
 * substitutions and transpositions of two neighbouring characters each count 1, so `scael` is 1
 * from `scale` (plain Levenshtein says 2).
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1
  const cols = b.length + 1
  const d: number[] = new Array(rows * cols)
  for (let i = 0; i < rows; i++) d[i * cols] = i
  for (let j = 0; j < cols; j++) d[j] = j
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[(i - 1) * cols + j] + 1, d[i * cols + j - 1] + 1, d[(i - 1) * cols + j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[(i - 2) * cols + j - 2] + 1)
      d[i * cols + j] = v
    }
  }
  return d[rows * cols - 1]
}

/**
 * The candidate a person most likely meant by `word`, or null when none is close: the nearest
 * within 2 edits (and fewer edits than `word` has characters, so `x` never suggests `id`), else
 * the only candidate that `word` (3 characters or more) begins, as `--over` for `--overlap-days`.
 * Case is ignored; ties go to the earlier candidate.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase()
  let best: string | null = null
  let bestD = Infinity
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase())
    if (d < bestD) {
      best = c
      bestD = d
    }
  }
  if (best !== null && bestD <= 2 && bestD < w.length) return best
  if (w.length < 3) return null
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(w))
  return prefixed.length === 1 ? prefixed[0] : null
}
