/**
 * Street-block layout shared by the plot and erf layers (and, later, the cadastre polygons).
 *
 * A block is two back-to-back rows of stands between streets:
 *
 * ```
 *   ── street ─────────────────────────────
 *   | 0 | 1 | 2 | 3 | … | cols-1 |   row 0   ↑ depth
 *   | c | c+1 | …               |   row 1   ↓ depth
 *   ── street ─────────────────────────────
 *       ← frontage →
 * ```
 *
 * Blocks (or, in Botswana, whole extensions made of blocks) sit on a regular grid, which is
 * filled outward from the centre in an irregular, lobed order so settlements are compact blobs
 * rather than perfect squares or discs.
 *
 * @module
 */
import type { Random } from './random.js'

/** Dimensions of the stands and streets of one settlement. */
export interface BlockPlan {
  /** Stand width along the street, metres (the spacing between neighbouring points). */
  frontageM: number
  /** Stand depth from the street, metres (the spacing between the two rows). */
  depthM: number
  /** Stands per row; a block holds `2 * standsPerRow`. */
  standsPerRow: number
  /** Street reserve between blocks, metres. */
  streetM: number
  /** Rotation of the grid, radians anticlockwise from east. */
  angleRad: number
}

/** Centre-to-centre distance between neighbouring blocks, metres. */
export function blockPitch(plan: BlockPlan): { x: number; y: number } {
  return { x: plan.standsPerRow * plan.frontageM + plan.streetM, y: 2 * plan.depthM + plan.streetM }
}

/** Ground area per stand including its share of streets, m². */
export function areaPerStandM2(plan: BlockPlan): number {
  const p = blockPitch(plan)
  return (p.x * p.y) / (2 * plan.standsPerRow)
}

/** Offset of stand `k` (0 ≤ k < 2·standsPerRow) from its block centre, unrotated, metres. */
export function standOffsetX(plan: BlockPlan, k: number): number {
  const c = k % plan.standsPerRow
  return (c - (plan.standsPerRow - 1) / 2) * plan.frontageM
}

/** See {@link standOffsetX}. Row 0 is north of the block's spine, row 1 south. */
export function standOffsetY(plan: BlockPlan, k: number): number {
  return k < plan.standsPerRow ? plan.depthM / 2 : -plan.depthM / 2
}

/**
 * Grid cells `(i, j)` (cell centre at `i * pitchX, j * pitchY`) sorted outward from the origin,
 * with a lobed outline drawn from `rnd`. Returns a flat Int32Array `[i0, j0, i1, j1, …]` holding
 * at least `minCount` cells (more: the caller may skip cells that fall outside a boundary).
 */
export function orderCellsOutward(minCount: number, pitchX: number, pitchY: number, rnd: Random): Int32Array {
  // lobes: the radius a direction reaches scales by 1 + a·sin(2θ+φ) + b·sin(3θ+ψ)
  const a = rnd.range(0.05, 0.25)
  const b = rnd.range(0.0, 0.15)
  const phi = rnd.range(0, 2 * Math.PI)
  const psi = rnd.range(0, 2 * Math.PI)
  const minShape = 1 - a - b
  const radius = Math.sqrt((Math.max(1, minCount) * pitchX * pitchY) / Math.PI) / minShape
  const hx = Math.ceil(radius / pitchX) + 1
  const hy = Math.ceil(radius / pitchY) + 1
  const n = (2 * hx + 1) * (2 * hy + 1)
  const keys = new Float64Array(n)
  const order = new Uint32Array(n)
  const ci = new Int32Array(n)
  const cj = new Int32Array(n)
  let k = 0
  for (let j = -hy; j <= hy; j++) {
    for (let i = -hx; i <= hx; i++) {
      const x = i * pitchX
      const y = j * pitchY
      const theta = Math.atan2(y, x)
      const shape = 1 + a * Math.sin(2 * theta + phi) + b * Math.sin(3 * theta + psi)
      keys[k] = Math.sqrt(x * x + y * y) / shape
      ci[k] = i
      cj[k] = j
      order[k] = k
      k++
    }
  }
  // ties (symmetric cells) fall back to scan order, which is deterministic
  const sorted = Array.from(order).sort((p, q) => keys[p] - keys[q] || p - q)
  const out = new Int32Array(2 * n)
  for (let m = 0; m < n; m++) {
    out[2 * m] = ci[sorted[m]]
    out[2 * m + 1] = cj[sorted[m]]
  }
  return out
}

/** Largest distance from the origin of any of the cells' centres, metres. */
export function maxCellDistanceM(cells: Int32Array, pitchX: number, pitchY: number): number {
  let best = 0
  for (let m = 0; m < cells.length; m += 2) {
    const x = cells[m] * pitchX
    const y = cells[m + 1] * pitchY
    const d = x * x + y * y
    if (d > best) best = d
  }
  return Math.sqrt(best)
}

/**
 * Splits `total` into integer shares proportional to `weights`, each at least `min[i]` and at
 * most `cap[i]` (water-filling), summing exactly to `total` (largest remainder). When the caps
 * cannot hold `total` they are raised in proportion.
 */
export function allocate(
  total: number,
  weights: ArrayLike<number>,
  min: ArrayLike<number>,
  cap: ArrayLike<number>,
): Int32Array {
  const n = weights.length
  const lo = Float64Array.from(min)
  const hi = Float64Array.from(cap, (c, i) => Math.max(c, lo[i]))
  let minSum = 0
  let capSum = 0
  for (let i = 0; i < n; i++) {
    minSum += lo[i]
    capSum += hi[i]
  }
  if (minSum > total) throw new Error(`allocate: minimums ${minSum} exceed total ${total}`)
  if (capSum < total) {
    const f = total / capSum
    for (let i = 0; i < n; i++) hi[i] *= f * 1.0001
  }
  const x = Float64Array.from(lo)
  const fixed = new Uint8Array(n)
  for (;;) {
    let rest = total
    let wSum = 0
    for (let i = 0; i < n; i++) {
      if (fixed[i]) rest -= x[i]
      else {
        rest -= lo[i]
        wSum += weights[i]
      }
    }
    let violated = false
    for (let i = 0; i < n; i++) {
      if (fixed[i]) continue
      x[i] = lo[i] + (wSum > 0 ? (rest * weights[i]) / wSum : 0)
      if (x[i] > hi[i]) {
        x[i] = hi[i]
        fixed[i] = 1
        violated = true
      }
    }
    if (!violated) break
  }
  // integer shares: floor, then hand out the remainder by largest fractional part
  const out = new Int32Array(n)
  let sum = 0
  const frac: number[] = []
  for (let i = 0; i < n; i++) {
    out[i] = Math.floor(x[i])
    sum += out[i]
    frac.push(i)
  }
  frac.sort((p, q) => x[q] - Math.floor(x[q]) - (x[p] - Math.floor(x[p])) || p - q)
  for (let m = 0; sum < total; m = (m + 1) % n) {
    out[frac[m]]++
    sum++
  }
  return out
}
