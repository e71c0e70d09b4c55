/**
 * Cases for coversByArea: an outer parcel, a rectangle (axis-aligned or turned) with a turned
 * rectangular hole in its right half, and an inner parcel placed by kind: inside the shell's left
 * half, filling the hole exactly, inside the hole, straddling the hole's edge, across the hole
 * with every vertex outside it, along the shell's edges from inside, or across the shell's edge.
 */
import { logUniform, PARCEL_KINDS, parcelAround, type Rand, type Stored, somewhereInSA, stored } from './cases.js'
import { type PRing, rotatedRect, type XY } from './plane.js'

export const COVER_KINDS = [
  'in the shell',
  'filling the hole',
  'in the hole',
  'straddling the hole',
  'across the hole',
  'along the shell',
  'across the shell',
] as const

export interface CoversCase {
  kind: (typeof COVER_KINDS)[number]
  outer: Stored
  inner: Stored
  /** What the case was built to be: covered or not. */
  expect: boolean
}

export function coversCase(r: Rand, seed: number): CoversCase {
  const plane = somewhereInSA(r)
  const A = logUniform(r, 60, 2000)
  const B = A * (0.5 + r())
  const m = Math.min(A, B)
  const rot = seed % 2 ? Math.PI * r() : 0
  // the shell's own frame (u along A, v along B) to the plane
  const F = (u: number, v: number): XY => [u * Math.cos(rot) - v * Math.sin(rot), u * Math.sin(rot) + v * Math.cos(rot)]
  const box = (u0: number, v0: number, u1: number, v1: number): PRing => [
    F(u0, v0),
    F(u1, v0),
    F(u1, v1),
    F(u0, v1),
    F(u0, v0),
  ]
  const shell = box(-A / 2, -B / 2, A / 2, B / 2)
  const ha = m * (0.1 + 0.1 * r())
  const hb = m * (0.1 + 0.1 * r())
  const hc = F(A / 4, (r() - 0.5) * 0.1 * B)
  const hole = rotatedRect(hc[0], hc[1], ha, hb, rot + Math.PI * r())
  const outer = stored(plane, [shell, [...hole].reverse()])
  const kind = COVER_KINDS[seed % COVER_KINDS.length]
  const shape = PARCEL_KINDS[Math.floor(r() * 3)]
  let inner: Stored
  if (kind === 'in the shell') {
    const c = F(-A * (0.15 + 0.2 * r()), B * (r() - 0.5) * 0.4)
    inner = stored(plane, parcelAround(r, shape, c[0], c[1], 0.1 * m * (0.2 + 0.8 * r())))
  } else if (kind === 'filling the hole') {
    // the same stored positions as the hole
    inner = { deg: [[[...outer.deg[0][1]].reverse()]], xy: [[[...outer.xy[0][1]].reverse()]] }
  } else if (kind === 'in the hole') {
    inner = stored(plane, parcelAround(r, shape, hc[0], hc[1], 0.2 * Math.min(ha, hb) * (0.3 + 0.7 * r())))
  } else if (kind === 'straddling the hole') {
    const corner = hole[Math.floor(4 * r())]
    inner = stored(plane, parcelAround(r, shape, corner[0], corner[1], 0.3 * Math.min(ha, hb)))
  } else if (kind === 'across the hole') {
    // a thin strip through the hole, its four corners in the shell
    const along = hole.slice(0, 4).map(([x, y]) => Math.hypot(x - hc[0], y - hc[1]))
    const half = Math.max(...along) + 0.05 * m * (0.2 + r())
    const thick = 0.02 * m * (0.2 + r())
    inner = stored(plane, [rotatedRect(hc[0], hc[1], 2 * half, thick, rot + Math.PI * r())])
  } else if (kind === 'along the shell') {
    // in the left half, on the shell's left side, reaching its corners or not
    const form = Math.floor(3 * r())
    const u1 = -A * (0.1 + 0.3 * r())
    const v0 = form === 0 ? -B * (0.05 + 0.4 * r()) : -B / 2
    const v1 = form === 2 ? B / 2 : B * (0.05 + 0.4 * r())
    const ring = box(-A / 2, v0, u1, v1)
    // sometimes a vertex of its own midway along the shared side
    if (r() < 0.5) ring.splice(4, 0, F(-A / 2, v0 + (v1 - v0) * (0.2 + 0.6 * r())))
    inner = stored(plane, [ring])
    // the shell's corners it reaches are the shell's own stored positions
    const [c0, , , c3] = outer.deg[0][0]
    const own = inner.deg[0][0]
    if (v0 === -B / 2) own[0] = own[own.length - 1] = c0
    if (v1 === B / 2) own[3] = c3
    inner.xy = [[plane.back(own)]]
  } else {
    const c = F(-A / 2, B * (r() - 0.5) * 0.6)
    inner = stored(plane, parcelAround(r, shape, c[0], c[1], 0.05 * m * (0.2 + 0.8 * r())))
  }
  const expect = kind === 'in the shell' || kind === 'along the shell'
  return { kind, outer, inner, expect }
}
