/**
 * South African encumbrances: `south_africa/encumbrances/<PROV>/<class>.geojsonl` for the nine
 * classes of docs/source-formats.md "Encumbrances", with the fields `uid`, `ease_type`, `sg_no`,
 * `province` (spec code), `geom_area` (m², blank on lines), `width_m` (dimensioned lines only),
 * `date_stamp` and `status`.
 *
 * Laid over the cadastre: the layer replays the cadastre's layout ({@link layOutCadastre}: the
 * same township plan, stands and farm cells from the same random streams, nothing written) and,
 * township by township, draws its encumbrances from the parcels it sees, so that they really
 * cross, cover or touch them. Lines along a parcel edge reuse the cadastre's own vertices, and
 * every position is written at the cadastre's 7 decimals, so they share coordinates exactly.
 *
 * ```
 *      ROAD / RAILWAY / PIPELINE / ELECTRIC corridor: 20–80 km, a bend every 0.5–2 km, often
 *   ══════╗    through the township; a 10–60 m strip (servitude_area) and/or its centre line
 *         ╚════════╗                                                      (servitude_line)
 *   ┌─ farm cell ──╫────┬─────────────┐  mineral right: a portion, the parent farm or part of
 *   │ portion 1  ┌─╫────┴─────┐ ▒▒▒   │    one; lease: part of a portion (never KZ);
 *   │            │┌╫┬──┬──┬──┐│ ▒▒▒   │    state land: a whole cell (never GP)
 *   │            ││║│  ┃  │  ││       │  ┃ ROW / COMM_WALL strip on the side boundary of two stands
 *   │            │├╫┼━━┿━━┿━━┤│       │  ━ SEWER strip or line on the rear boundary (the spine)
 *   │            ││║│  │  │  ││       │    DRAINAGE strip across both rows, MUNICIPAL strip along
 *   │            │└╫┴──┴──┴──┘│       │    the frontage, boundary lines on erf edges
 *   └────────────┴─╫──────────┴───────┘  EST_BND / PROC_LINE: along farm-cell edges (not NC, NW)
 *     ~~~~ river bed, 30–200 m wide along a meandering river 10–60 km (EC, KZ and WC only) ~~~~
 * ```
 * PROC_AREA covers a township's extent (its General Plan) or a block of farm cells.
 *
 * Raw `ease_type` values come from the spec's vocabulary table. About 77 % of servitude areas
 * state no kind (blank, AREA, GENERAL, URBAN …), 2 % take an "other" value (OUTSPAN, RESERVE …),
 * 0.2 % a value the table does not list (WAYLEAVE …); the rest name the kind the geometry was
 * drawn as, one in {@link ODD_EVERY} in odd case or with stray spaces (" pipeline ", "Right of
 * Way"). About 3 % of records carry a non-blank `status`. The spec's coverage caveats hold
 * exactly ({@link hasEncumbranceLayer}); every other province–class pair gets at least one row.
 *
 * `uid`s run from 1 in write order over the whole export. Streams to disk township by township;
 * one province's files are open at a time.
 *
 * @module
 */
import type { LayerGenerator, SynthContext, WrittenFile } from '../context.js'
import type { LineWriter } from '../csv.js'
import { CADASTRE_FOLDER } from '../cadastre-codes.js'
import type { Province, ProvinceCode } from '../geography.js'
import { LocalFrame, metresPerDegree } from '../geo-math.js'
import type { Random } from '../random.js'
import { blockPitch } from '../street-blocks.js'
import {
  FARM_CELL_DEG,
  GridFrame,
  layOutCadastre,
  position,
  type CadastreSink,
  type ParcelLayerFile,
  type ParcelRow,
  type StandRow,
} from './south-africa-cadastre.js'
import { ENCUMBRANCE_CLASSES, LINE_CLASSES, type EncumbranceClass } from '../../../src/data/encumbrance-format.js'
import type { TownshipPlan } from './south-africa-erven.js'

// the classes and which are lines: the build's own definitions (src/data/encumbrance-format.ts)
export { ENCUMBRANCE_CLASSES, LINE_CLASSES, type EncumbranceClass }

/**
 * The spec's coverage caveats: "KwaZulu-Natal (KZ) has no lease layer; Gauteng (GP) has no
 * state_land layer; river_bed exists only for EC, KZ and WC; NC and NW have no
 * established_boundary layer".
 */
const MISSING_LAYERS: Readonly<Partial<Record<EncumbranceClass, ReadonlySet<ProvinceCode>>>> = {
  lease: new Set(['KZ']),
  state_land: new Set(['GP']),
  river_bed: new Set(['FS', 'GP', 'LP', 'MP', 'NC', 'NW']),
  established_boundary: new Set(['NC', 'NW']),
}

/** True when the export has the class's file for the province (see {@link MISSING_LAYERS}). */
export function hasEncumbranceLayer(province: ProvinceCode, cls: EncumbranceClass): boolean {
  return !MISSING_LAYERS[cls]?.has(province)
}

/** Where a file goes: the cadastre's province folders (KZN for KZ). */
export function encumbranceFile(province: ProvinceCode, cls: EncumbranceClass): string {
  return `south_africa/encumbrances/${CADASTRE_FOLDER[province]}/${cls}.geojsonl`
}

// ---- raw ease_type values (the spec's vocabulary table, "Raw values" column)

type Weighted = readonly (readonly [string, number])[]

const UNSPECIFIED: Weighted = [
  ['', 40],
  ['Servitude Area', 12],
  ['GENERAL', 10],
  ['URBAN', 9],
  ['RURAL', 8],
  ['AREA', 8],
  ['PRE_APP', 4],
  ['LINE', 2],
  ['HIST', 3],
  ['CANCELLED', 2],
  ['WITHDRAWN', 2],
]
const OTHER: Weighted = [
  ['RESERVE', 4],
  ['OUTSPAN', 3],
  ['PROV', 2],
  ['INT_BND', 1],
  ['HWM', 1],
  ['DWS_COAST', 1],
]
/** Values the table does not list: the build maps them to `other` and counts them as unlisted. */
const UNLISTED: Weighted = [
  ['WAYLEAVE', 3],
  ['SERVITUDE OF ABUTMENT', 2],
  ['ENCROACHMENT', 1],
  ['TRAMWAY', 1],
]
const UNSPECIFIED_LINE: Weighted = [
  ['', 5],
  ['LINE', 3],
  ['GENERAL', 1],
]

const RIGHT_OF_WAY: Weighted = [
  ['RIGHT OF WAY', 4],
  ['ROW', 3],
  ['ACCESS', 2],
  ['COMM_PASS', 1],
]
const DRAINAGE: Weighted = [
  ['DRAINAGE', 3],
  ['STORMWATER', 2],
  ['STORM', 1],
]
const SEWER: Weighted = [['SEWER', 1]]
const SUPPORT: Weighted = [['COMM_WALL', 1]]
const SERVICES: Weighted = [
  ['MUNICIPAL', 2],
  ['SERVICES', 1],
]
const FARM_ACCESS: Weighted = [
  ['ACCESS', 2],
  ['RIGHT OF WAY', 2],
  ['ROW', 1],
]
const WATER_AREA: Weighted = [
  ['BOREHOLE', 3],
  ['DAM', 2],
  ['WATER', 2],
]
const WATER_LINE: Weighted = [
  ['FURROW', 3],
  ['WATER', 1],
]
const ERF_SIDE_LINE: Weighted = [...RIGHT_OF_WAY, ...DRAINAGE, ['SEWER', 3]]
const ERF_SPINE_LINE: Weighted = [
  ['SEWER', 6],
  ['DRAINAGE', 2],
  ['STORMWATER', 1],
]
const ERF_FRONT_LINE: Weighted = [
  ['ELECTRIC', 2],
  ['MUNICIPAL', 2],
  ['SERVICES', 1],
  ['WATER', 1],
]
const ERF_CROSS_LINE: Weighted = [
  ['WATER', 2],
  ['PIPELINE', 1],
  ['ELECTRIC', 1],
  ['SEWER', 1],
]

const UNSPECIFIED_SHARE = 0.77
const OTHER_SHARE = 0.02
const UNLISTED_SHARE = 0.002
/** One specific value in this many is written in odd case or with stray spaces. */
const ODD_EVERY = 25
const STATUS_SHARE = 0.03
const STATUSES = ['CANCELLED', 'WITHDRAWN', 'HISTORIC', 'PENDING'] as const

/** A linear corridor kind: raw values and strip width. */
interface CorridorKind {
  raw: Weighted
  widthM: readonly [number, number]
}
const CORRIDORS: readonly CorridorKind[] = [
  { raw: [['ROAD', 1]], widthM: [16, 60] },
  { raw: [['ELECTRIC', 1]], widthM: [22, 55] },
  {
    raw: [
      ['PIPELINE', 2],
      ['PIPE', 1],
    ],
    widthM: [10, 30],
  },
  { raw: [['RAILWAY', 1]], widthM: [15, 40] },
]
const CORRIDOR_WEIGHTS = [40, 25, 20, 15]

// ---- geometry

/** [lon, lat], or [x, y] metres in a township's local frame. */
type Pt = [number, number]
/** A closed ring (last = first). */
type Ring = Pt[]

const D = FARM_CELL_DEG
/** Half a unit of the 7th decimal: positions parsed from the cadastre compare within this. */
const SAME_DEG = 5e-8
const TAU = 2 * Math.PI

const pad2 = (n: number) => String(n).padStart(2, '0')
/** The value {@link position} writes (7 decimals). */
const round7 = (v: number) => Number(v.toFixed(7))

function parsePosition(p: string): Pt {
  const c = p.indexOf(',')
  return [Number(p.slice(1, c)), Number(p.slice(c + 1, -1))]
}

function parseRing(ring: readonly string[]): Ring {
  return ring.map(parsePosition)
}

function signedArea2(ring: Ring): number {
  let s = 0
  for (let i = 0; i < ring.length - 1; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return s
}

/** Counter-clockwise (RFC 7946 exterior winding). */
function ccw(ring: Ring): Ring {
  return signedArea2(ring) < 0 ? [...ring].reverse() : ring
}

/**
 * Area in m² of lon/lat rings without holes (local projection at each ring's mid-latitude, as the cadastre computes
 * geom_area).
 */
function areaM2(parts: readonly Ring[]): number {
  let total = 0
  for (const ring of parts) {
    let lo = Infinity
    let hi = -Infinity
    for (const p of ring) {
      lo = Math.min(lo, p[1])
      hi = Math.max(hi, p[1])
    }
    const m = metresPerDegree((lo + hi) / 2)
    total += (Math.abs(signedArea2(ring)) / 2) * m.lon * m.lat
  }
  return total
}

/** Closed lon/lat box, counter-clockwise. */
function lonLatBox(lon0: number, lat0: number, lon1: number, lat1: number): Ring {
  return [
    [lon0, lat0],
    [lon1, lat0],
    [lon1, lat1],
    [lon0, lat1],
    [lon0, lat0],
  ]
}

/** A sub-box of a lon/lat box by fractions of its width and height. */
function subBox(b: Ring, fx0: number, fy0: number, fx1: number, fy1: number): Ring {
  const [[lon0, lat0], , [lon1, lat1]] = b
  return lonLatBox(
    lon0 + (lon1 - lon0) * fx0,
    lat0 + (lat1 - lat0) * fy0,
    lon0 + (lon1 - lon0) * fx1,
    lat0 + (lat1 - lat0) * fy1,
  )
}

/** True when closed segments ab and cd share a point. */
function segmentsMeet(a: Pt, b: Pt, c: Pt, d: Pt): boolean {
  const o = (p: Pt, q: Pt, r: Pt) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
  const on = (p: Pt, q: Pt, r: Pt) =>
    Math.min(p[0], q[0]) <= r[0] &&
    r[0] <= Math.max(p[0], q[0]) &&
    Math.min(p[1], q[1]) <= r[1] &&
    r[1] <= Math.max(p[1], q[1])
  const o1 = o(a, b, c)
  const o2 = o(a, b, d)
  const o3 = o(c, d, a)
  const o4 = o(c, d, b)
  if (o1 !== o2 && o3 !== o4) return true
  return (
    (o1 === 0 && on(a, b, c)) || (o2 === 0 && on(a, b, d)) || (o3 === 0 && on(c, d, a)) || (o4 === 0 && on(c, d, b))
  )
}

/**
 * True when no two non-neighbouring segments of the path meet (a ring when `closed`). A sweep
 * over x keeps the long corridor and river outlines cheap; neighbours may only share their joint.
 */
function isSimplePath(pts: readonly Pt[], closed: boolean): boolean {
  const n = pts.length - 1
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (p, q) => Math.min(pts[p][0], pts[p + 1][0]) - Math.min(pts[q][0], pts[q + 1][0]),
  )
  for (let a = 0; a < n; a++) {
    const i = order[a]
    const maxX = Math.max(pts[i][0], pts[i + 1][0])
    for (let b = a + 1; b < n; b++) {
      const j = order[b]
      if (Math.min(pts[j][0], pts[j + 1][0]) > maxX) break
      const lo = Math.min(i, j)
      const hi = Math.max(i, j)
      if (hi === lo + 1 || (closed && lo === 0 && hi === n - 1)) continue
      if (segmentsMeet(pts[i], pts[i + 1], pts[j], pts[j + 1])) return false
    }
  }
  return true
}

function pointSegmentDistance(p: Pt, a: Pt, b: Pt): number {
  const dx = b[0] - a[0]
  const dy = b[1] - a[1]
  const len2 = dx * dx + dy * dy
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2)) : 0
  return Math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])
}

/**
 * The province outline's edges near a township, in the township's local metres: long features
 * (corridors, rivers) stop before they come within a margin of it, so they stay inside the
 * province they are written under without clipping.
 */
class Fence {
  private readonly edges: Float64Array

  constructor(province: Province, frame: LocalFrame, radiusM: number) {
    const { lon0, lat0 } = frame
    if (province.outline.distanceToBoundaryM(lon0, lat0) > radiusM) {
      this.edges = new Float64Array(0)
      return
    }
    const m = metresPerDegree(lat0)
    const padLon = (radiusM + 5_000) / m.lon
    const padLat = (radiusM + 5_000) / m.lat
    const near = province.outline.edgesNear([lon0 - padLon, lat0 - padLat, lon0 + padLon, lat0 + padLat])
    this.edges = near.map((v, i) => (i % 2 === 0 ? frame.x(v) : frame.y(v)))
  }

  /** True when segment ab keeps `marginM` from every edge (and so never crosses one). */
  clear(a: Pt, b: Pt, marginM: number): boolean {
    const e = this.edges
    const minX = Math.min(a[0], b[0]) - marginM
    const maxX = Math.max(a[0], b[0]) + marginM
    const minY = Math.min(a[1], b[1]) - marginM
    const maxY = Math.max(a[1], b[1]) + marginM
    for (let i = 0; i < e.length; i += 4) {
      if (Math.max(e[i], e[i + 2]) < minX || Math.min(e[i], e[i + 2]) > maxX) continue
      if (Math.max(e[i + 1], e[i + 3]) < minY || Math.min(e[i + 1], e[i + 3]) > maxY) continue
      const c: Pt = [e[i], e[i + 1]]
      const d: Pt = [e[i + 2], e[i + 3]]
      if (segmentsMeet(a, b, c, d)) return false
      const dist = Math.min(
        pointSegmentDistance(a, c, d),
        pointSegmentDistance(b, c, d),
        pointSegmentDistance(c, a, b),
        pointSegmentDistance(d, a, b),
      )
      if (dist < marginM) return false
    }
    return true
  }
}

/** How a wandering path bends. */
interface WalkShape {
  stepM: readonly [number, number]
  /** Standard deviation of the random turn per vertex. */
  turnSdRad: number
  /** Regular meander added to the heading (0 for corridors). */
  meanderRad: number
  /** Largest turn at one vertex. */
  maxTurnRad: number
  /** Largest deviation from the general heading: below 90° the path is monotone, so it never crosses itself. */
  maxDevRad: number
}

const CORRIDOR_WALK: WalkShape = {
  stepM: [500, 2000],
  turnSdRad: 0.14,
  meanderRad: 0,
  maxTurnRad: 0.4,
  maxDevRad: 0.85,
}
const RIVER_WALK: WalkShape = { stepM: [250, 600], turnSdRad: 0.12, meanderRad: 0.6, maxTurnRad: 0.6, maxDevRad: 0.95 }

/**
 * A path from `start` (metres) wandering about `heading` for `lengthM`, cut short where the fence
 * is near. The heading follows a slowly drifting target (plus a regular meander for rivers),
 * turning at most `maxTurnRad` per vertex.
 */
function walk(
  rnd: Random,
  fence: Fence,
  start: Pt,
  heading: number,
  lengthM: number,
  shape: WalkShape,
  marginM: number,
): Pt[] {
  const pts: Pt[] = [start]
  let h = heading
  let drift = 0
  let phase = rnd.range(0, TAU)
  const period = rnd.range(4, 9)
  let walked = 0
  while (walked < lengthM) {
    const step = rnd.range(shape.stepM[0], shape.stepM[1])
    // bends of uneven length, so a river does not look like a sine wave
    phase += (TAU / period) * rnd.range(0.5, 1.5)
    drift = Math.max(-0.6 * shape.maxDevRad, Math.min(0.6 * shape.maxDevRad, drift + rnd.normal(0, shape.turnSdRad)))
    const target = heading + drift + shape.meanderRad * Math.sin(phase)
    h += Math.max(-shape.maxTurnRad, Math.min(shape.maxTurnRad, target - h))
    h = Math.max(heading - shape.maxDevRad, Math.min(heading + shape.maxDevRad, h))
    const last = pts[pts.length - 1]
    const next: Pt = [last[0] + step * Math.cos(h), last[1] + step * Math.sin(h)]
    if (!fence.clear(last, next, marginM)) break
    pts.push(next)
    walked += step
  }
  return pts
}

/** A path through `start`: a forward walk, and with `backM` > 0 a backward one joined before it. */
function pathThrough(
  rnd: Random,
  fence: Fence,
  start: Pt,
  heading: number,
  forwardM: number,
  backM: number,
  shape: WalkShape,
  marginM: number,
): Pt[] {
  const forward = walk(rnd, fence, start, heading, forwardM, shape, marginM)
  if (backM <= 0) return forward
  const back = walk(rnd, fence, start, heading + Math.PI, backM, shape, marginM)
  return [...back.reverse(), ...forward.slice(1)]
}

function pathLengthM(pts: readonly Pt[]): number {
  let s = 0
  for (let i = 1; i < pts.length; i++) s += Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1])
  return s
}

/**
 * The strip of `halfWidthM(i)` either side of a path (metres), as a closed counter-clockwise
 * ring: the right side forward, the left side back, mitred at each bend. With the gentle bends
 * and long steps of {@link WalkShape} both sides stay simple.
 */
function stripAround(path: readonly Pt[], halfWidthM: (i: number) => number): Ring {
  const n = path.length
  const left: Pt[] = []
  const right: Pt[] = []
  const normal = (a: Pt, b: Pt): Pt => {
    const len = Math.hypot(b[0] - a[0], b[1] - a[1])
    return [-(b[1] - a[1]) / len, (b[0] - a[0]) / len]
  }
  for (let i = 0; i < n; i++) {
    const nIn = i > 0 ? normal(path[i - 1], path[i]) : null
    const nOut = i < n - 1 ? normal(path[i], path[i + 1]) : null
    let nx: number
    let ny: number
    let scale = 1
    if (nIn && nOut) {
      const sx = nIn[0] + nOut[0]
      const sy = nIn[1] + nOut[1]
      const len = Math.hypot(sx, sy)
      nx = sx / len
      ny = sy / len
      // the mitre: a bend of angle θ puts the corner 1/cos(θ/2) out
      scale = 1 / (nx * nIn[0] + ny * nIn[1])
    } else {
      ;[nx, ny] = (nIn ?? nOut)!
    }
    const off = halfWidthM(i) * scale
    const p = path[i]
    left.push([p[0] + nx * off, p[1] + ny * off])
    right.push([p[0] - nx * off, p[1] - ny * off])
  }
  return [...right, ...left.reverse(), right[0]]
}

// ---- what the replayed cadastre shows of one township

/** One stand of the street grid: the rings of its strips as the cadastre wrote them (strip p at p). */
interface Stand {
  i: number
  j: number
  k: number
  strips: string[][]
}

/** One parent farm (a 1/60° cell) and its portions, rings as the cadastre wrote them. */
interface Farm {
  fi: number
  fj: number
  parent: string[]
  portions: string[][]
}

/** Keeps, from the cadastre replay, what the encumbrances of the current township need. */
class TownshipCollector implements CadastreSink {
  /** Current erf rings in emission order: one per erven.csv row, so they zip with the stand rows. */
  erven: string[][] = []
  farms: Farm[] = []
  /** The township's General Plan (its extent); the holding scheme's plan comes later and is skipped. */
  extent: string[] | null = null

  parcel(layer: ParcelLayerFile, r: ParcelRow): void {
    if (layer === 'erf') {
      if (r.lstatus === 'R' && r.wstatus !== 'H') this.erven.push(r.rings[0])
    } else if (layer === 'parent_farm') {
      const fi = Math.floor(Number(r.tagLon) / D)
      const fj = Math.floor(Number(r.tagLat) / D)
      this.farms.push({ fi, fj, parent: r.rings[0], portions: [] })
    } else if (layer === 'farm_portion') {
      this.farms[this.farms.length - 1].portions.push(r.rings[0])
    }
  }

  beacon(): void {}

  generalPlan(_sgNo: string, _description: string, _date: string, ring: string[]): void {
    this.extent ??= ring
  }

  township(): void {}

  reset(): void {
    this.erven = []
    this.farms = []
    this.extent = null
  }
}

// ---- output

/** Counters shared by the whole run. */
interface RunState {
  uid: number
  statusCycle: number
  oddCycle: number
  /** Position in the low-discrepancy sequence that picks each servitude area's kind of raw value. */
  shareX: number
  counts: Record<EncumbranceClass, number>
  perProvince: Record<string, Partial<Record<EncumbranceClass, number>>>
  servitudeAreaTypes: { unspecified: number; other: number; unlisted: number; specific: number }
  withStatus: number
  dimensionedLines: number
  undimensionedLines: number
  multiPart: number
  corridors: number
  rivers: number
  /** Buffered outlines that came out not simple and were left out (expected 0). */
  dropped: number
  files: WrittenFile[]
}

/** One province's encumbrance files, opened on first use. */
class ProvinceFiles {
  private readonly files = new Map<EncumbranceClass, LineWriter>()

  constructor(
    private readonly ctx: SynthContext,
    readonly province: Province,
    private readonly state: RunState,
  ) {}

  /** Province count so far of one class. */
  count(cls: EncumbranceClass): number {
    return this.state.perProvince[this.province.code]?.[cls] ?? 0
  }

  write(cls: EncumbranceClass, line: (uid: number) => string): void {
    const code = this.province.code
    if (!hasEncumbranceLayer(code, cls)) throw new Error(`encumbrances: ${code} has no ${cls} layer`)
    let w = this.files.get(cls)
    if (!w) {
      w = this.ctx.openLines(encumbranceFile(code, cls))
      this.files.set(cls, w)
    }
    const s = this.state
    s.counts[cls]++
    const pp = (s.perProvince[code] ??= {})
    pp[cls] = (pp[cls] ?? 0) + 1
    w.line(line(++s.uid))
  }

  close(): void {
    for (const cls of ENCUMBRANCE_CLASSES) {
      const w = this.files.get(cls)
      if (!w) continue
      w.close()
      this.state.files.push({ path: encumbranceFile(this.province.code, cls), rows: w.rows, bytes: w.bytes })
    }
  }
}

const formatRing = (ring: readonly Pt[]) => `[${ring.map((p) => position(p[0], p[1])).join(',')}]`

/** The survey years of a record: a range for the diagram, the stamp at or after it. */
type Years = readonly [number, number]
const ERF_YEARS: Years = [1955, 2024]
const FARM_YEARS: Years = [1905, 2024]
const CORRIDOR_YEARS: Years = [1925, 2022]

/** Everything one township writes, with its own random stream. */
class TownshipWork {
  readonly grid: GridFrame
  readonly frame: LocalFrame
  readonly pitch: { x: number; y: number }
  readonly stands = new Map<string, Stand>()
  readonly standList: Stand[] = []
  readonly farmAt = new Map<string, Farm>()
  private fenceCache: Fence | null = null

  constructor(
    readonly ctx: SynthContext,
    readonly rnd: Random,
    readonly out: ProvinceFiles,
    readonly state: RunState,
    readonly plan: TownshipPlan,
    readonly rows: readonly StandRow[],
    readonly seen: TownshipCollector,
  ) {
    this.grid = new GridFrame(plan)
    this.frame = new LocalFrame(plan.locality.lon, plan.locality.lat)
    this.pitch = blockPitch(plan.block)
    if (seen.erven.length !== rows.length) {
      throw new Error(
        `encumbrances: ${plan.name} replayed ${seen.erven.length} current erven for ${rows.length} stand rows`,
      )
    }
    // rows and current erf rings come in the same order: strip p of a stand is its p-th row
    rows.forEach((row, n) => {
      const { i, j, k } = row.stand
      const key = `${i},${j},${k}`
      let s = this.stands.get(key)
      if (!s) {
        s = { i, j, k, strips: [] }
        this.stands.set(key, s)
        this.standList.push(s)
      }
      s.strips.push(seen.erven[n])
    })
    for (const f of seen.farms) this.farmAt.set(`${f.fi},${f.fj}`, f)
  }

  /** The province fence, built on first use (most townships need it only for corridors and rivers). */
  get fence(): Fence {
    return (this.fenceCache ??= new Fence(this.plan.province, this.frame, 95_000))
  }

  get province(): ProvinceCode {
    return this.plan.province.code
  }

  // ---- the grid frame (metres along / across the township's street grid)

  get spr(): number {
    return this.plan.block.standsPerRow
  }

  /** Frontage coordinate of the left side of column `c` of block column `i` (the cadastre's arithmetic). */
  standU(i: number, c: number): number {
    return i * this.pitch.x + (c - this.spr / 2) * this.plan.block.frontageM
  }

  /** Depth range of a row of block row `j`: row 0 above the spine, row 1 below. */
  rowV(j: number, row: number): [number, number] {
    const spine = j * this.pitch.y
    return row === 0 ? [spine, spine + this.plan.block.depthM] : [spine - this.plan.block.depthM, spine]
  }

  gridPt(u: number, v: number): Pt {
    return [this.grid.lon(u, v), this.grid.lat(u, v)]
  }

  gridBox(u0: number, v0: number, u1: number, v1: number): Ring {
    const a = this.gridPt(u0, v0)
    return [a, this.gridPt(u1, v0), this.gridPt(u1, v1), this.gridPt(u0, v1), a]
  }

  stand(i: number, j: number, k: number): Stand | undefined {
    return this.stands.get(`${i},${j},${k}`)
  }

  localPt(p: Pt): Pt {
    return [this.frame.lon(p[0]), this.frame.lat(p[1])]
  }

  // ---- raw values, survey references, statuses

  pickFrom(list: Weighted): string {
    return list[this.rnd.weightedIndex(list.map((w) => w[1]))][0]
  }

  /** A specific raw value, one in {@link ODD_EVERY} written oddly to exercise trimmed, case-insensitive matching. */
  specific(list: Weighted): string {
    const raw = this.pickFrom(list)
    const s = this.state
    if (++s.oddCycle % ODD_EVERY !== 0) return raw
    switch ((s.oddCycle / ODD_EVERY) % 3) {
      case 0:
        return ` ${raw.toLowerCase()} `
      case 1:
        return raw
          .toLowerCase()
          .replace(/(^|\s)([a-z])/g, (_m, sp: string, ch: string) => sp + ch.toUpperCase())
          .replace(/ Of /g, ' of ')
      default:
        return `${raw} `
    }
  }

  /**
   * A servitude area's raw value. A golden-ratio sequence splits the records into unspecified,
   * other, unlisted and specific in the set shares, closely even over a few hundred records (the
   * tiny export); it starts in the unlisted slot so even that export has one unlisted value.
   */
  servitudeAreaType(list: Weighted): string {
    const s = this.state
    const x = s.shareX
    s.shareX = (s.shareX + (Math.sqrt(5) - 1) / 2) % 1
    const t = s.servitudeAreaTypes
    if (x < UNSPECIFIED_SHARE) {
      t.unspecified++
      return this.pickFrom(UNSPECIFIED)
    }
    if (x < UNSPECIFIED_SHARE + OTHER_SHARE) {
      t.other++
      return this.pickFrom(OTHER)
    }
    if (x < UNSPECIFIED_SHARE + OTHER_SHARE + UNLISTED_SHARE) {
      t.unlisted++
      return this.pickFrom(UNLISTED)
    }
    t.specific++
    return this.specific(list)
  }

  /** A servitude line's raw value: mostly specific, a fifth unstated. */
  servitudeLineType(list: Weighted): string {
    const r = this.rnd.float()
    if (r < 0.2) return this.pickFrom(UNSPECIFIED_LINE)
    if (r < 0.245) return this.pickFrom(OTHER)
    if (r < 0.25) return this.pickFrom(UNLISTED)
    return this.specific(list)
  }

  /** `sg_no`, `date_stamp` and `status` properties (after `province` and `geom_area`). */
  private reference(years: Years): { sgNo: string; date: string; status: string } {
    const rnd = this.rnd
    const year = rnd.int(years[0], years[1])
    const stamp = rnd.int(year, Math.min(2025, year + 30))
    let status = ''
    if (rnd.chance(STATUS_SHARE)) {
      status = STATUSES[this.state.statusCycle++ % STATUSES.length]
      this.state.withStatus++
    }
    return {
      sgNo: `${rnd.int(1, 9999)}/${year}`,
      date: `${stamp}${pad2(rnd.int(1, 12))}${pad2(rnd.int(1, 28))}`,
      status,
    }
  }

  /** Writes an area record: one part a Polygon, several a MultiPolygon (parts disjoint). */
  area(cls: EncumbranceClass, easeType: string, parts: Ring[], years: Years): void {
    if (LINE_CLASSES.has(cls)) throw new Error(`encumbrances: ${cls} is a line class`)
    // the area of the positions as written: rounding moves a 0.5 m party-wall strip's sides by up to 1 cm
    const rings = parts.map((ring) => ccw(ring.map(([lon, lat]): Pt => [round7(lon), round7(lat)])))
    const area = areaM2(rings)
    const { sgNo, date, status } = this.reference(years)
    const geometry =
      rings.length === 1
        ? `{"type":"Polygon","coordinates":[${formatRing(rings[0])}]}`
        : `{"type":"MultiPolygon","coordinates":[${rings.map((r) => `[${formatRing(r)}]`).join(',')}]}`
    if (rings.length > 1) this.state.multiPart++
    this.out.write(
      cls,
      (uid) =>
        `{"type":"Feature","properties":{"uid":${uid},"ease_type":${JSON.stringify(easeType)},"sg_no":"${sgNo}","province":"${this.province}",` +
        `"geom_area":${area.toFixed(2)},"date_stamp":"${date}","status":"${status}"},"geometry":${geometry}}\n`,
    )
  }

  /**
   * Writes a line record: one part a LineString, several a MultiLineString (parts disjoint); `widthM` makes it
   * dimensioned.
   */
  line(cls: EncumbranceClass, easeType: string, parts: Pt[][], widthM: number | null, years: Years): void {
    if (!LINE_CLASSES.has(cls)) throw new Error(`encumbrances: ${cls} is an area class`)
    const { sgNo, date, status } = this.reference(years)
    const geometry =
      parts.length === 1
        ? `{"type":"LineString","coordinates":${formatRing(parts[0])}}`
        : `{"type":"MultiLineString","coordinates":[${parts.map(formatRing).join(',')}]}`
    if (parts.length > 1) this.state.multiPart++
    if (widthM === null) this.state.undimensionedLines++
    else this.state.dimensionedLines++
    const width = widthM === null ? '' : `"width_m":${widthM},`
    this.out.write(
      cls,
      (uid) =>
        `{"type":"Feature","properties":{"uid":${uid},"ease_type":${JSON.stringify(easeType)},"sg_no":"${sgNo}","province":"${this.province}",` +
        `"geom_area":"",${width}"date_stamp":"${date}","status":"${status}"},"geometry":${geometry}}\n`,
    )
  }
}

const halfMetre = (w: number) => Math.round(w * 2) / 2
const decimetre = (w: number) => Math.round(w * 10) / 10

/** `rate` as a whole count, rounding the fraction up by chance. */
function stochasticRound(rate: number, rnd: Random): number {
  const n = Math.floor(rate)
  return n + (rnd.chance(rate - n) ? 1 : 0)
}

// ---- linear corridors

/**
 * A road, railway, pipeline or power line through (or out of) the township: a strip, a centre
 * line (dimensioned or not), or both. Returns false when the province edge left no room.
 */
function corridor(t: TownshipWork): boolean {
  const rnd = t.rnd
  if (t.rows.length === 0) return false
  const kind = CORRIDORS[rnd.weightedIndex(CORRIDOR_WEIGHTS)]
  const widthM = halfMetre(rnd.range(kind.widthM[0], kind.widthM[1]))
  const row = rnd.pick(t.rows)
  const start: Pt = [t.frame.x(row.lon), t.frame.y(row.lat)]
  const total = rnd.range(20_000, 80_000)
  const backM = rnd.chance(0.6) ? total * rnd.range(0.3, 0.7) : 0
  const margin = widthM / 2 + 50
  const path = pathThrough(rnd, t.fence, start, rnd.range(0, TAU), total - backM, backM, CORRIDOR_WALK, margin)
  if (path.length < 2 || pathLengthM(path) < 2_000) return false
  t.state.corridors++
  const form = rnd.float()
  if (form < 0.7) {
    const ring = stripAround(path, () => widthM / 2).map((p) => t.localPt(p))
    if (isSimplePath(ring, true)) t.area('servitude_area', t.servitudeAreaType(kind.raw), [ring], CORRIDOR_YEARS)
    else t.state.dropped++
  }
  if (form >= 0.45) {
    const dimensioned = rnd.chance(0.6)
    t.line(
      'servitude_line',
      t.servitudeLineType(kind.raw),
      [path.map((p) => t.localPt(p))],
      dimensioned ? widthM : null,
      CORRIDOR_YEARS,
    )
  }
  return true
}

// ---- servitudes between erven

/** The kinds of erf-level servitude, with their weights. */
const ERF_KINDS = [
  ['rightOfWay', 20],
  ['support', 3],
  ['drainage', 12],
  ['sewer', 12],
  ['services', 5],
  ['rightOfWayPair', 4],
  ['sideLine', 14],
  ['spineLine', 14],
  ['frontLine', 6],
  ['crossLine', 10],
] as const
type ErfKind = (typeof ERF_KINDS)[number][0]
const ERF_KIND_WEIGHTS = ERF_KINDS.map((k) => k[1])

const rowOf = (t: TownshipWork, s: Stand) => (s.k < t.spr ? 0 : 1)
const columnOf = (t: TownshipWork, s: Stand) => s.k % t.spr

/** The stand `dc` columns along in the same row, if the layout placed it. */
function along(t: TownshipWork, s: Stand, dc: number): Stand | undefined {
  const c = columnOf(t, s) + dc
  if (c < 0 || c >= t.spr) return undefined
  return t.stand(s.i, s.j, s.k + dc)
}

/** The stand back to back with `s` across the spine. */
function across(t: TownshipWork, s: Stand): Stand | undefined {
  return t.stand(s.i, s.j, rowOf(t, s) === 0 ? s.k + t.spr : s.k - t.spr)
}

/** `s` and the next `count - 1` stands along its row, when all exist. */
function run(t: TownshipWork, s: Stand, count: number): Stand[] | null {
  const out: Stand[] = []
  for (let d = 0; d < count; d++) {
    const x = along(t, s, d)
    if (!x) return null
    out.push(x)
  }
  return out
}

/**
 * A strip `widthM` wide centred on the side boundary between `s` and the next stand, over `rows` (its own, or both).
 */
function sideStrip(t: TownshipWork, s: Stand, widthM: number, bothRows: boolean): Ring {
  const u = t.standU(s.i, columnOf(t, s) + 1)
  const [v0, v1] = bothRows ? [t.rowV(s.j, 1)[0], t.rowV(s.j, 0)[1]] : t.rowV(s.j, rowOf(t, s))
  return t.gridBox(u - widthM / 2, v0, u + widthM / 2, v1)
}

/**
 * The cadastre vertices of a run of stands' edge on one side: `spine` (rear boundary) or
 * `front` (street frontage), in frontage order, so each segment is exactly one erf edge.
 */
function edgeVertices(t: TownshipWork, stands: readonly Stand[], side: 'spine' | 'front'): Pt[] | null {
  const out: string[] = []
  for (const s of stands) {
    // strip 0 is the lowest in depth: the spine of row 0, the frontage of row 1
    const low = (side === 'spine') === (rowOf(t, s) === 0)
    const ring = low ? s.strips[0] : s.strips[s.strips.length - 1]
    const [a, b] = low ? [ring[0], ring[1]] : [ring[3], ring[2]]
    if (out.length === 0) out.push(a)
    else if (out[out.length - 1] !== a) return null
    out.push(b)
  }
  return out.map(parsePosition)
}

/** The cadastre vertices of a stand's right-hand side boundary, strip by strip. */
function sideVertices(s: Stand): Pt[] {
  const out = [s.strips[0][1]]
  for (const ring of s.strips) out.push(ring[2])
  return out.map(parsePosition)
}

function erfLineWidth(t: TownshipWork): number | null {
  return t.rnd.chance(0.5) ? decimetre(t.rnd.range(1, 3)) : null
}

/** One erf-level servitude anchored on `s`; false when the stands it needs are not there. */
function erfServitude(t: TownshipWork, kind: ErfKind, s: Stand): boolean {
  const rnd = t.rnd
  const row = rowOf(t, s)
  switch (kind) {
    case 'rightOfWay':
    case 'support': {
      if (!along(t, s, 1)) return false
      const w = kind === 'support' ? decimetre(rnd.range(0.5, 1)) : decimetre(rnd.range(2, 4))
      t.area(
        'servitude_area',
        t.servitudeAreaType(kind === 'support' ? SUPPORT : RIGHT_OF_WAY),
        [sideStrip(t, s, w, false)],
        ERF_YEARS,
      )
      return true
    }
    case 'drainage': {
      const other = across(t, s)
      if (!along(t, s, 1) || !other || !along(t, other, 1)) return false
      t.area(
        'servitude_area',
        t.servitudeAreaType(DRAINAGE),
        [sideStrip(t, s, decimetre(rnd.range(2, 4)), true)],
        ERF_YEARS,
      )
      return true
    }
    case 'sewer':
    case 'services': {
      const stands = run(t, s, rnd.int(2, 6))
      if (!stands) return false
      const c0 = columnOf(t, s)
      const u0 = t.standU(s.i, c0)
      const u1 = t.standU(s.i, c0 + stands.length)
      if (kind === 'sewer') {
        if (!stands.every((x) => across(t, x))) return false
        const w = decimetre(rnd.range(2, 4))
        const spine = s.j * t.pitch.y
        t.area(
          'servitude_area',
          t.servitudeAreaType(SEWER),
          [t.gridBox(u0, spine - w / 2, u1, spine + w / 2)],
          ERF_YEARS,
        )
      } else {
        // inside the stands along the street frontage
        const w = decimetre(rnd.range(1.5, 3))
        const [v0, v1] = t.rowV(s.j, row)
        const box = row === 0 ? t.gridBox(u0, v1 - w, u1, v1) : t.gridBox(u0, v0, u1, v0 + w)
        t.area('servitude_area', t.servitudeAreaType(SERVICES), [box], ERF_YEARS)
      }
      return true
    }
    case 'rightOfWayPair': {
      // one diagram, two strips on two side boundaries of the same row
      const gap = rnd.int(2, 4)
      const second = along(t, s, gap)
      if (!along(t, s, 1) || !second || !along(t, second, 1)) return false
      const w = decimetre(rnd.range(2, 4))
      t.area(
        'servitude_area',
        t.servitudeAreaType(RIGHT_OF_WAY),
        [sideStrip(t, s, w, false), sideStrip(t, second, w, false)],
        ERF_YEARS,
      )
      return true
    }
    case 'sideLine':
      t.line('servitude_line', t.servitudeLineType(ERF_SIDE_LINE), [sideVertices(s)], erfLineWidth(t), ERF_YEARS)
      return true
    case 'spineLine':
    case 'frontLine': {
      const stands = run(t, s, rnd.int(2, 6))
      const first = stands && edgeVertices(t, stands, kind === 'spineLine' ? 'spine' : 'front')
      if (!first) return false
      const parts = [first]
      // now and then a second part along another block's spine (streets keep the parts apart)
      if (kind === 'spineLine' && rnd.chance(0.15)) {
        const o = rnd.pick(t.standList)
        const more = o.i !== s.i || o.j !== s.j ? run(t, o, 2) : null
        const second = more && edgeVertices(t, more, 'spine')
        if (second) parts.push(second)
      }
      const types = kind === 'spineLine' ? ERF_SPINE_LINE : ERF_FRONT_LINE
      t.line('servitude_line', t.servitudeLineType(types), parts, erfLineWidth(t), ERF_YEARS)
      return true
    }
    case 'crossLine': {
      // through the middle of two stands back to back, frontage to frontage: it crosses their interiors
      const other = across(t, s)
      if (!other) return false
      const c = columnOf(t, s)
      const u = t.standU(s.i, c) + t.plan.block.frontageM * rnd.range(0.3, 0.7)
      const v0 = t.rowV(s.j, 1)[0]
      const v1 = t.rowV(s.j, 0)[1]
      const line = [t.gridPt(u, v0), t.gridPt(u, (v0 + v1) / 2), t.gridPt(u, v1)]
      t.line(
        'servitude_line',
        t.servitudeLineType(ERF_CROSS_LINE),
        [line],
        rnd.chance(0.3) ? decimetre(rnd.range(1, 3)) : null,
        ERF_YEARS,
      )
      return true
    }
  }
}

/** An erf-level servitude of a random kind on a random stand, trying a few stands. */
function anyErfServitude(t: TownshipWork, kind?: ErfKind): boolean {
  if (t.standList.length === 0) return false
  const k = kind ?? ERF_KINDS[t.rnd.weightedIndex(ERF_KIND_WEIGHTS)][0]
  for (let attempt = 0; attempt < 4; attempt++) {
    if (erfServitude(t, k, t.rnd.pick(t.standList))) return true
  }
  return false
}

// ---- farms

function farmBox(f: Farm): Ring {
  return parseRing(f.parent)
}

/**
 * The cadastre vertices of a farm cell's side (`S`, `E`, `N`, `W`): the cell corners and the
 * portion corners on it, in order along the side (west to east, or south to north).
 */
function cellSide(f: Farm, side: 'S' | 'E' | 'N' | 'W'): Pt[] {
  const horizontal = side === 'S' || side === 'N'
  const fixed = side === 'S' ? f.fj * D : side === 'N' ? (f.fj + 1) * D : side === 'W' ? f.fi * D : (f.fi + 1) * D
  const axis = horizontal ? 1 : 0
  const seen = new Map<string, Pt>()
  for (const ring of [f.parent, ...f.portions]) {
    for (const p of ring) {
      const pt = parsePosition(p)
      if (Math.abs(pt[axis] - fixed) < SAME_DEG && !seen.has(p)) seen.set(p, pt)
    }
  }
  return [...seen.values()].sort((a, b) => a[1 - axis] - b[1 - axis])
}

/**
 * The lines through a farm cell dividing its portions: longitudes of its columns and latitudes of its bands, inside the
 * cell.
 */
function divisionLines(f: Farm): { lons: number[]; lats: number[] } {
  const lons = new Set<number>()
  const lats = new Set<number>()
  for (const ring of f.portions) {
    for (const p of ring) {
      const [lon, lat] = parsePosition(p)
      if (lon > f.fi * D + SAME_DEG && lon < (f.fi + 1) * D - SAME_DEG) lons.add(lon)
      if (lat > f.fj * D + SAME_DEG && lat < (f.fj + 1) * D - SAME_DEG) lats.add(lat)
    }
  }
  return { lons: [...lons].sort((a, b) => a - b), lats: [...lats].sort((a, b) => a - b) }
}

/** Mineral rights over a farm: the parent farm, a portion, part of one, or parts of two (a MultiPolygon). */
function mineralRight(t: TownshipWork, f: Farm): boolean {
  const rnd = t.rnd
  const r = rnd.float()
  let parts: Ring[]
  if (r < 0.3) parts = [farmBox(f)]
  else if (r < 0.65) parts = [parseRing(rnd.pick(f.portions))]
  else if (r < 0.9) {
    const box = rnd.chance(0.5) ? farmBox(f) : parseRing(rnd.pick(f.portions))
    parts = [subBox(box, rnd.range(0, 0.4), rnd.range(0, 0.4), rnd.range(0.6, 1), rnd.range(0.6, 1))]
  } else {
    // inset parts of two portions, so the parts never touch
    const picks = rnd.shuffle([...f.portions]).slice(0, 2)
    parts = picks.map((p) =>
      subBox(parseRing(p), rnd.range(0.05, 0.3), rnd.range(0.05, 0.3), rnd.range(0.7, 0.95), rnd.range(0.7, 0.95)),
    )
  }
  t.area('mineral_right', t.specific([['MINERAL', 1]]), parts, FARM_YEARS)
  return true
}

/** A registered lease over part of a farm portion (a box, now and then with a corner cut off). */
function lease(t: TownshipWork, f: Farm): boolean {
  const rnd = t.rnd
  const box = subBox(
    parseRing(rnd.pick(f.portions)),
    rnd.range(0.05, 0.5),
    rnd.range(0.05, 0.5),
    rnd.range(0.55, 0.95),
    rnd.range(0.55, 0.95),
  )
  let ring = box
  if (rnd.chance(0.3)) {
    const [a, b, c, d] = box
    const cut = rnd.range(0.2, 0.5)
    const p: Pt = [c[0] - (c[0] - d[0]) * cut, c[1]]
    const q: Pt = [c[0], c[1] - (c[1] - b[1]) * cut]
    ring = [a, b, q, p, d, a]
  }
  t.area('lease', t.specific([['LEASE', 1]]), [ring], FARM_YEARS)
  return true
}

/** Unalienated state land: a whole farm cell. */
function stateLand(t: TownshipWork, f: Farm): boolean {
  const r = t.rnd.float()
  t.area('state_land', r < 0.6 ? '' : r < 0.9 ? 'STATE LAND' : 'State Land', [farmBox(f)], FARM_YEARS)
  return true
}

/** An established boundary along a farm cell's edge: one side, two sides meeting at a corner, or two opposite sides. */
function establishedBoundary(t: TownshipWork, f: Farm): boolean {
  const rnd = t.rnd
  const r = rnd.float()
  let parts: Pt[][]
  if (r < 0.65) parts = [cellSide(f, rnd.pick(['S', 'E', 'N', 'W'] as const))]
  else if (r < 0.85) parts = [[...cellSide(f, 'S'), ...cellSide(f, 'E').slice(1)]]
  else parts = rnd.chance(0.5) ? [cellSide(f, 'S'), cellSide(f, 'N')] : [cellSide(f, 'W'), cellSide(f, 'E')]
  t.line('established_boundary', t.specific([['EST_BND', 1]]), parts, null, FARM_YEARS)
  return true
}

/** A farm access road along a line dividing two portions: a strip crossing both. */
function farmAccess(t: TownshipWork, f: Farm): boolean {
  const rnd = t.rnd
  const { lons, lats } = divisionLines(f)
  if (lons.length + lats.length === 0) return false
  const w = halfMetre(rnd.range(6, 12))
  const m = metresPerDegree((f.fj + 0.5) * D)
  const n = rnd.int(0, lons.length + lats.length - 1)
  const ring =
    n < lons.length
      ? lonLatBox(lons[n] - w / 2 / m.lon, f.fj * D, lons[n] + w / 2 / m.lon, (f.fj + 1) * D)
      : lonLatBox(
          f.fi * D,
          lats[n - lons.length] - w / 2 / m.lat,
          (f.fi + 1) * D,
          lats[n - lons.length] + w / 2 / m.lat,
        )
  t.area('servitude_area', t.servitudeAreaType(FARM_ACCESS), [ring], FARM_YEARS)
  return true
}

/** A water servitude in a portion: a borehole square, a dam, or a furrow line across it. */
function farmWater(t: TownshipWork, f: Farm): boolean {
  const rnd = t.rnd
  const box = parseRing(rnd.pick(f.portions))
  const [[lon0, lat0], , [lon1, lat1]] = box
  const frame = new LocalFrame((lon0 + lon1) / 2, (lat0 + lat1) / 2)
  const halfW = frame.x(lon1)
  const halfH = frame.y(lat1)
  const r = rnd.float()
  if (r < 0.3) {
    // a furrow from the portion's west side to its east side, monotone so never crossing itself
    const n = rnd.int(3, 6)
    const pts: Pt[] = []
    for (let q = 0; q < n; q++) {
      const x = -halfW * 0.9 + (1.8 * halfW * q) / (n - 1)
      pts.push([frame.lon(x), frame.lat(rnd.range(-0.7, 0.7) * halfH)])
    }
    t.line(
      'servitude_line',
      t.servitudeLineType(WATER_LINE),
      [pts],
      rnd.chance(0.5) ? decimetre(rnd.range(1, 3)) : null,
      FARM_YEARS,
    )
    return true
  }
  // a star-shaped outline (angles increasing) is always simple
  const radius = r < 0.6 ? rnd.range(10, 30) : rnd.range(60, 250)
  const cx = rnd.range(-1, 1) * Math.max(0, halfW - radius * 1.2)
  const cy = rnd.range(-1, 1) * Math.max(0, halfH - radius * 1.2)
  const corners = r < 0.6 ? 4 : rnd.int(6, 9)
  const turn = rnd.range(0, TAU)
  const ring: Ring = []
  for (let q = 0; q < corners; q++) {
    const a = turn + (TAU * q) / corners
    const rr = r < 0.6 ? radius : radius * rnd.range(0.7, 1)
    ring.push([frame.lon(cx + rr * Math.cos(a)), frame.lat(cy + rr * Math.sin(a))])
  }
  ring.push(ring[0])
  t.area('servitude_area', t.servitudeAreaType(WATER_AREA), [ring], FARM_YEARS)
  return true
}

// ---- proclamations

/** The south-west cell of a `w` × `h` block of this township's farm cells, all present, or null. */
function farmBlock(t: TownshipWork, w: number, h: number): Farm | null {
  const farms = t.seen.farms
  // a township may have no cells of its own: its neighbours claimed them all
  if (farms.length === 0) return null
  for (let attempt = 0; attempt < 6; attempt++) {
    const f = t.rnd.pick(farms)
    let ok = true
    for (let a = 0; a < w && ok; a++) for (let b = 0; b < h && ok; b++) ok = t.farmAt.has(`${f.fi + a},${f.fj + b}`)
    if (ok) return f
  }
  return null
}

/** A proclamation area: the township's extent (its General Plan) or a block of farm cells. */
function proclamationArea(t: TownshipWork): boolean {
  const rnd = t.rnd
  if (t.seen.extent && rnd.chance(0.55)) {
    t.area('proclamation_area', t.specific([['PROC_AREA', 1]]), [parseRing(t.seen.extent)], FARM_YEARS)
    return true
  }
  const w = rnd.int(1, 3)
  const h = rnd.int(1, 3)
  const f = farmBlock(t, w, h)
  if (!f) return false
  // cell corners computed as the cadastre computes them (integer cell index × 1/60°)
  t.area(
    'proclamation_area',
    t.specific([['PROC_AREA', 1]]),
    [lonLatBox(f.fi * D, f.fj * D, (f.fi + w) * D, (f.fj + h) * D)],
    FARM_YEARS,
  )
  return true
}

/**
 * A proclamation line along the south edges of a row of one to four farm cells, through every cadastre vertex on it.
 */
function proclamationLine(t: TownshipWork): boolean {
  const w = t.rnd.int(1, 4)
  const f = farmBlock(t, w, 1)
  if (!f) return false
  const pts: Pt[] = []
  for (let a = 0; a < w; a++) {
    const side = cellSide(t.farmAt.get(`${f.fi + a},${f.fj}`)!, 'S')
    pts.push(...(a === 0 ? side : side.slice(1)))
  }
  t.line('proclamation_line', t.specific([['PROC_LINE', 1]]), [pts], null, FARM_YEARS)
  return true
}

// ---- river beds

/** A river bed 30–200 m wide along a meandering river through one of the township's farm cells. */
function riverBed(t: TownshipWork): boolean {
  const rnd = t.rnd
  if (t.seen.farms.length === 0) return false
  const f = rnd.pick(t.seen.farms)
  const start: Pt = [t.frame.x((f.fi + rnd.range(0.2, 0.8)) * D), t.frame.y((f.fj + rnd.range(0.2, 0.8)) * D)]
  const total = rnd.range(10_000, 60_000)
  const backM = rnd.chance(0.7) ? total * rnd.range(0.3, 0.7) : 0
  const base = rnd.range(30, 200)
  const path = pathThrough(rnd, t.fence, start, rnd.range(0, TAU), total - backM, backM, RIVER_WALK, 150)
  if (path.length < 4) return false
  // the width wanders slowly between 30 and 200 m
  const phase = rnd.range(0, TAU)
  const half = (i: number) => Math.max(30, Math.min(200, base * (1 + 0.25 * Math.sin(phase + i / 5)))) / 2
  const ring = stripAround(path, half).map((p) => t.localPt(p))
  if (!isSimplePath(ring, true)) {
    t.state.dropped++
    return false
  }
  t.state.rivers++
  const r = rnd.float()
  t.area('river_bed', r < 0.85 ? '' : 'RIVER BED', [ring], FARM_YEARS)
  return true
}

// ---- one township

/** A farm-level generator and its chance per farm cell. */
const FARM_ENCUMBRANCES: readonly {
  cls: EncumbranceClass
  chance: number
  make: (t: TownshipWork, f: Farm) => boolean
}[] = [
  { cls: 'mineral_right', chance: 0.3, make: mineralRight },
  { cls: 'lease', chance: 0.12, make: lease },
  { cls: 'state_land', chance: 0.03, make: stateLand },
  { cls: 'established_boundary', chance: 0.12, make: establishedBoundary },
  { cls: 'servitude_area', chance: 0.12, make: farmAccess },
  { cls: 'servitude_area', chance: 0.15, make: farmWater },
]

/** Writes one township's encumbrances. */
function writeTownship(t: TownshipWork): void {
  const rnd = t.rnd
  const { scale } = t.ctx
  const code = t.province

  for (let n = stochasticRound(scale.corridorsPerTownship, rnd); n > 0; n--) corridor(t)

  for (let n = stochasticRound((t.rows.length * scale.erfServitudesPer100Erven) / 100, rnd); n > 0; n--)
    anyErfServitude(t)

  for (const f of t.seen.farms) {
    for (const g of FARM_ENCUMBRANCES) {
      if (hasEncumbranceLayer(code, g.cls) && rnd.chance(g.chance * scale.farmEncumbranceShare)) g.make(t, f)
    }
  }

  if (rnd.chance(0.6)) proclamationArea(t)
  if (rnd.chance(0.5)) proclamationLine(t)
  if (hasEncumbranceLayer(code, 'river_bed') && rnd.chance(0.35)) riverBed(t)

  ensureEveryLayer(t)
}

/**
 * Every layer the province has gets a row: a class the province has not written yet is forced
 * here (in practice in its first township), so even the tiny export has every file.
 */
function ensureEveryLayer(t: TownshipWork): void {
  const farms = t.seen.farms
  const tries = (make: () => boolean) => {
    for (let attempt = 0; attempt < 8; attempt++) if (make()) return
  }
  for (const cls of ENCUMBRANCE_CLASSES) {
    if (!hasEncumbranceLayer(t.province, cls) || t.out.count(cls) > 0) continue
    switch (cls) {
      case 'servitude_area':
        tries(() => anyErfServitude(t, 'rightOfWay') || (farms.length > 0 && farmAccess(t, t.rnd.pick(farms))))
        break
      case 'servitude_line':
        tries(() => anyErfServitude(t, 'sideLine'))
        break
      case 'proclamation_area':
        tries(() => proclamationArea(t))
        break
      case 'proclamation_line':
        tries(() => farms.length > 0 && proclamationLine(t))
        break
      case 'river_bed':
        tries(() => farms.length > 0 && riverBed(t))
        break
      default: {
        const g = FARM_ENCUMBRANCES.find((x) => x.cls === cls)!
        tries(() => farms.length > 0 && g.make(t, t.rnd.pick(farms)))
      }
    }
  }
}

/** The encumbrance layer. */
export const southAfricaEncumbrances: LayerGenerator = {
  name: 'encumbrances',
  domain: 'encumbrances',
  description:
    'south_africa/encumbrances/<PROV>/<class>.geojsonl: servitudes, mineral rights, leases, state land, river ' +
    'beds, proclamations, established boundaries over the cadastre',
  async generate(ctx) {
    const zero = () => Object.fromEntries(ENCUMBRANCE_CLASSES.map((c) => [c, 0])) as Record<EncumbranceClass, number>
    const state: RunState = {
      uid: 0,
      statusCycle: 0,
      oddCycle: 0,
      // the first record lands in the unlisted slot (see servitudeAreaType)
      shareX: UNSPECIFIED_SHARE + OTHER_SHARE + UNLISTED_SHARE / 2,
      counts: zero(),
      perProvince: {},
      servitudeAreaTypes: { unspecified: 0, other: 0, unlisted: 0, specific: 0 },
      withStatus: 0,
      dimensionedLines: 0,
      undimensionedLines: 0,
      multiPart: 0,
      corridors: 0,
      rivers: 0,
      dropped: 0,
      files: [],
    }
    const progress = ctx.progress('encumbrances', ctx.scale.southAfricaErven)
    const seen = new TownshipCollector()
    let out: ProvinceFiles | null = null
    let erven = 0
    layOutCadastre(
      ctx,
      (province) => {
        out?.close()
        out = new ProvinceFiles(ctx, province, state)
        return seen
      },
      (plan, rows) => {
        const rnd = ctx.random(`encumbrances/${plan.streamLabel}`)
        writeTownship(new TownshipWork(ctx, rnd, out!, state, plan, rows, seen))
        seen.reset()
        erven += rows.length
        progress(erven)
      },
    )
    ;(out as ProvinceFiles | null)?.close()
    if (state.dropped > 0)
      ctx.log(`  encumbrances: ${state.dropped} buffered outlines came out self-intersecting and were left out`)

    const records = ENCUMBRANCE_CLASSES.reduce((s, c) => s + state.counts[c], 0)
    const t = state.servitudeAreaTypes
    return {
      layer: 'encumbrances',
      domain: 'encumbrances',
      files: state.files,
      counts: {
        records,
        ...state.counts,
        servitude_areas_unspecified: t.unspecified,
        servitude_areas_other: t.other,
        servitude_areas_unlisted: t.unlisted,
        with_status: state.withStatus,
        dimensioned_lines: state.dimensionedLines,
        undimensioned_lines: state.undimensionedLines,
        multi_part: state.multiPart,
        corridors: state.corridors,
        rivers: state.rivers,
      },
      details: { provinces: state.perProvince, servitude_area_types: t },
    }
  },
}
