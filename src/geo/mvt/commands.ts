/**
 * A feature's geometry as MVT 2.1 command integers (§4.3): dispatch by geometry type, then per
 * ring or part the tile-space stages (tile-space.ts), winding, and MoveTo/LineTo/ClosePath with
 * zigzag deltas into a reused command buffer that encode.ts writes out.
 */
import type { PbfWriter } from 'pbf'
import type { MultiPolygon } from '../polygon.js'
import {
  bufA,
  bufB,
  clipLine,
  clipRing,
  INSIDE,
  MISS,
  partStarts,
  project,
  relate,
  rounded,
  roundKept,
  simplify,
  type Context,
  type Flat,
} from './tile-space.js'

/** Line features: one or more parts, each `[lon, lat]` positions. */
export type MultiLineString = [number, number][][]
/** Point features: one or more `[lon, lat]` positions. */
export type MultiPoint = [number, number][]
/** Told apart by nesting depth: 4 levels polygons, 3 lines, 2 points. */
export type TileGeometry = MultiPolygon | MultiLineString | MultiPoint

/** MVT 2.1 geometry types (§4.3.4). */
const POINT = 1
const LINESTRING = 2
const POLYGON = 3

// ---------------------------------------------------------------------------------------------
// feature dispatch

/** Writes the feature's clipped, simplified geometry as commands into `cmd`; its MVT type, 0 when nothing is left. */
export function buildGeometry(ctx: Context, g: TileGeometry): 0 | 1 | 2 | 3 {
  cmdLen = 0
  curX = curY = 0
  const kind = geometryType(g)
  if (kind === POLYGON) polygons(ctx, g as MultiPolygon)
  else if (kind === LINESTRING) lines(ctx, g as MultiLineString)
  else if (kind === POINT) points(ctx, g as MultiPoint)
  return cmdLen === 0 ? 0 : kind
}

/** POINT / LINESTRING / POLYGON from the nesting depth, 0 when there is no position at all. */
function geometryType(g: TileGeometry): 0 | 1 | 2 | 3 {
  let v: unknown = g
  let depth = 0
  while (Array.isArray(v)) {
    depth++
    // first non-empty child, so a leading empty part does not hide the rest
    const arr = v as unknown[]
    let next: unknown
    for (let i = 0; i < arr.length; i++) {
      const c = arr[i]
      if (!Array.isArray(c) || c.length > 0) {
        next = c
        break
      }
    }
    if (next === undefined) return 0
    v = next
  }
  return depth === 2 ? POINT : depth === 3 ? LINESTRING : depth === 4 ? POLYGON : 0
}

// MVT 2.1 §4.3: a command integer is (count << 3) | id, parameters are zigzag-encoded deltas
// from the previous point (the cursor runs across all parts of a feature)
const MOVE_TO = 1
const LINE_TO = 2
const CLOSE_PATH = 7

/** The current feature's geometry commands, and the cursor. */
let cmd = new Uint32Array(4096)
let cmdLen = 0
let curX = 0
let curY = 0

function reserve(n: number): void {
  if (cmdLen + n <= cmd.length) return
  const g = new Uint32Array(Math.max(cmd.length * 2, cmdLen + n))
  g.set(cmd.subarray(0, cmdLen))
  cmd = g
}

/** Appends point i of `rounded` as a zigzag delta (room reserved by the caller). */
function delta(i: number): void {
  const x = rounded.d[2 * i]
  const y = rounded.d[2 * i + 1]
  const dx = x - curX
  const dy = y - curY
  cmd[cmdLen++] = (dx << 1) ^ (dx >> 31)
  cmd[cmdLen++] = (dy << 1) ^ (dy >> 31)
  curX = x
  curY = y
}

/**
 * Simplifies, rounds and winds the open ring in `f`, and writes it; false when it collapses.
 * MVT 2.1 §4.3.4.4: "An exterior ring is DEFINED as a linear ring having a positive area as
 * calculated by applying the surveyor's formula to the vertices of the polygon in tile
 * coordinates. [...] An interior ring is DEFINED as a linear ring having a negative area".
 */
function writeRing(ctx: Context, f: Flat, exterior: boolean): boolean {
  if (f.n < 3) return false
  // close the ring for Douglas–Peucker, which keeps both ends (the same point)
  f.push(f.d[0], f.d[1])
  simplify(f, 0, f.n - 1, ctx.sqTol)
  roundKept(f, 0, f.n - 1)
  let n = rounded.n
  const r = rounded.d
  if (n > 1 && r[0] === r[2 * n - 2] && r[1] === r[2 * n - 1]) n--
  if (n < 3) return false
  let area2 = 0
  for (let i = 0, j = n - 1; i < n; j = i++) area2 += r[2 * j] * r[2 * i + 1] - r[2 * i] * r[2 * j + 1]
  if (area2 === 0) return false
  reserve(2 * n + 3)
  const forward = area2 > 0 === exterior
  cmd[cmdLen++] = (1 << 3) | MOVE_TO
  delta(forward ? 0 : n - 1)
  cmd[cmdLen++] = ((n - 1) << 3) | LINE_TO
  if (forward) for (let i = 1; i < n; i++) delta(i)
  else for (let i = n - 2; i >= 0; i--) delta(i)
  cmd[cmdLen++] = (1 << 3) | CLOSE_PATH
  return true
}

function polygons(ctx: Context, mp: MultiPolygon): void {
  for (const poly of mp) {
    if (poly.length === 0) continue
    const rel = relate(ctx, poly[0])
    if (rel === MISS) continue
    for (let ri = 0; ri < poly.length; ri++) {
      // a hole whose bbox misses the buffered tile cannot cut into it
      if (ri > 0 && rel !== INSIDE && relate(ctx, poly[ri]) === MISS) continue
      project(ctx, poly[ri], true, bufA)
      const clipped = rel === INSIDE ? bufA : clipRing(ctx, bufA, bufB)
      // exterior collapsed: its holes go with it
      if (!writeRing(ctx, clipped, ri === 0) && ri === 0) break
    }
  }
}

function lines(ctx: Context, ml: MultiLineString): void {
  for (const part of ml) {
    if (part.length < 2) continue
    const rel = relate(ctx, part)
    if (rel === MISS) continue
    project(ctx, part, false, bufA)
    let src = bufA
    if (rel === INSIDE) {
      partStarts.length = 0
      partStarts.push(0)
    } else {
      clipLine(ctx, bufA, bufB)
      src = bufB
    }
    for (let k = 0; k < partStarts.length; k++) {
      const first = partStarts[k]
      const last = (k + 1 < partStarts.length ? partStarts[k + 1] : src.n) - 1
      if (last <= first) continue
      simplify(src, first, last, ctx.sqTol)
      roundKept(src, first, last)
      const n = rounded.n
      if (n < 2) continue
      reserve(2 * n + 2)
      cmd[cmdLen++] = (1 << 3) | MOVE_TO
      delta(0)
      cmd[cmdLen++] = ((n - 1) << 3) | LINE_TO
      for (let i = 1; i < n; i++) delta(i)
    }
  }
}

function points(ctx: Context, pts: MultiPoint): void {
  if (relate(ctx, pts) === MISS) return
  const { lo, hi } = ctx
  project(ctx, pts, false, bufA)
  rounded.n = 0
  for (let i = 0; i < bufA.n; i++) {
    const x = bufA.d[2 * i]
    const y = bufA.d[2 * i + 1]
    if (x >= lo && x <= hi && y >= lo && y <= hi) rounded.push(Math.round(x), Math.round(y))
  }
  const n = rounded.n
  if (n === 0) return
  reserve(2 * n + 1)
  cmd[cmdLen++] = (n << 3) | MOVE_TO
  for (let i = 0; i < n; i++) delta(i)
}

export function writeCommands(_: null, pbf: PbfWriter): void {
  for (let i = 0; i < cmdLen; i++) pbf.writeVarint(cmd[i])
}
