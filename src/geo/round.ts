/**
 * The one rounding rule of every answer: `places` decimals, halves away from zero as
 * `Math.round` does (towards +∞). `JsonBytes.rounded` writes the same numbers as bytes.
 */
export function round(v: number, places: number): number {
  const k = 10 ** places
  return Math.round(v * k) / k
}
