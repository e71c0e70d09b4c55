/**
 * Synthetic registration divisions: a partition of South Africa into exactly 221 cells, the
 * major regions of the cadastre's LPIs (docs/domain.md 1.3) and the `registration_division` layer of
 * the boundaries register. Pure and deterministic (no seed): the same geography always gives the
 * same cells, codes and names, computed once per {@link Geography} and cached.
 *
 * How the cells are made, per province (Natural Earth outline):
 * 1. a target count proportional to the province's area, the nine summing to 221, except
 *    KwaZulu-Natal, which has the 14 divisions docs/domain.md 1.3 lists (so Gauteng gets 3, for the
 *    JR, IR and IQ of docs/domain.md 1.4);
 * 2. a lon/lat grid of roughly square cells, a little smaller than the target size, clipped to
 *    the outline (Sutherland–Hodgman per cell, cleaned up by polyclip-ts), so the cells cannot
 *    overlap and together cover the province;
 * 3. the smallest cell merged into its smallest grid neighbour (or, for a cell with no
 *    neighbour such as the Prince Edward Islands, into the nearest cell) until the target is
 *    reached.
 *
 * Codes (two characters, unique across the country, so no LPI prefix repeats):
 * - the old Transvaal and Natal (GP, LP, MP, NW, KZ) use letter pairs like the real divisions:
 *   row letter by degree of latitude (… `J` 25–26° S, `I` 26–27° S, `H` 27–28° S …) and column
 *   letter by degree of longitude (… `Q` 27–28° E, `R` 28–29° E …), which reproduces JR
 *   (Pretoria), IR (Alberton), IQ (Krugersdorp) and the KwaZulu-Natal set; KZ and GP take
 *   exactly the docs/domain.md codes (nearest letter square first), the others their natural pair or
 *   the nearest free one;
 * - the Cape provinces and the Free State use 2-digit administrative-district numbers, in
 *   reading order (north to south, west to east), WC first, then EC, FS and NC; `13` is never
 *   used (the hand-made test fixtures own `C013…`) and neither is `00`; when the numbers run out
 *   (in NC) a letter and a digit follow (`A0`, `A1` …).
 * Names: a Transvaal/Natal division is named by its letters; a Cape/FS district by the
 * upper-cased name of the largest WOF town inside it (population, then current, polygon,
 * WOF id), unique across the country (the next town when taken). Shapes, codes and names are
 * assumptions: no registration-division layer is published (data-real README).
 *
 * @module
 */
import { intersection, union } from 'polyclip-ts'
import type { Geography, Province, ProvinceCode, SaLocality } from './geography.js'
import { Polygonal, type PolygonalGeometry } from './geo-math.js'

/** Registration divisions in the country (jurisdiction spec, standing coverage). */
export const REGISTRATION_DIVISION_COUNT = 221
/** KwaZulu-Natal's 14 divisions (docs/domain.md 1.3). */
export const KZ_DIVISION_CODES: readonly string[] = 'ER ES ET FS FT FU GS GT GU GV HS HT HU HV'.split(' ')
/** Gauteng's divisions (docs/domain.md 1.4: JR, IR; IQ expected). */
export const GP_DIVISION_CODES: readonly string[] = ['JR', 'IR', 'IQ']

/** Provinces whose major regions are registration-division letter pairs, in code-assignment order. */
export const LETTER_PROVINCES: readonly ProvinceCode[] = ['KZ', 'GP', 'LP', 'MP', 'NW']
/** Provinces whose major regions are numbered administrative districts, in numbering order. */
export const NUMBER_PROVINCES: readonly ProvinceCode[] = ['WC', 'EC', 'FS', 'NC']
/** District numbers never used: `13` belongs to the hand-made fixtures (C013…). */
export const UNUSED_DISTRICT_NUMBERS: readonly string[] = ['00', '13']

const FIXED_CODES: Partial<Record<ProvinceCode, readonly string[]>> = { KZ: KZ_DIVISION_CODES, GP: GP_DIVISION_CODES }
// coordinates are kept (and written) to 7 decimals, about 1 cm
const DECIMALS = 1e7
// clipped pieces smaller than this (square degrees, about 0.01 m²) are clipping noise and dropped
const MIN_PIECE_DEG2 = 1e-12

/** One registration division (Transvaal/Natal) or administrative district (Cape/FS). */
export interface RegistrationDivision {
  /** Two characters: letters, digits, or a letter and a digit. */
  code: string
  /** Upper-case name (`maj_region`). */
  name: string
  province: ProvinceCode
  /** Counter-clockwise exteriors, clockwise holes, 7 decimals. */
  geometry: PolygonalGeometry
  outline: Polygonal
  /** Approximate area, km². */
  areaKm2: number
  /** Area-weighted centre [lon, lat] (may lie outside a concave cell). */
  centre: [number, number]
}

/** The partition and its lookups. */
export interface RegistrationDivisions {
  /** Every division: province by province (spec-code order), then by code. */
  all: readonly RegistrationDivision[]
  /** Target count per province (sums to {@link REGISTRATION_DIVISION_COUNT}). */
  targets: Readonly<Record<ProvinceCode, number>>
  byProvince(code: ProvinceCode): readonly RegistrationDivision[]
  byCode(code: string): RegistrationDivision | undefined
  /**
   * The division of `province` containing the point; a point of the province that no cell
   * contains (only possible within ~1 cm of an edge) takes the nearest of its cells.
   */
  at(province: ProvinceCode, lon: number, lat: number): RegistrationDivision
  /** Any division containing the point (the lowest code on a shared edge), or null. */
  find(lon: number, lat: number): RegistrationDivision | null
}

type Pt = [number, number]
type Ring = Pt[]
type Poly = Ring[]
/** Polygons as polyclip-ts takes and gives them: rings of [lon, lat]. */
export type MultiPoly = Poly[]

const round = (v: number) => Math.round(v * DECIMALS) / DECIMALS

/** Sinusoidal-projection area of a ring in km² (signed: positive when counter-clockwise). */
function ringAreaKm2(ring: Ring): number {
  let s = 0
  const k = Math.PI / 180
  for (let i = 0; i < ring.length - 1; i++) {
    const [x1, y1] = ring[i]
    const [x2, y2] = ring[i + 1]
    const X1 = x1 * Math.cos(y1 * k) * 111.32
    const X2 = x2 * Math.cos(y2 * k) * 111.32
    s += X1 * (y2 * 110.95) - X2 * (y1 * 110.95)
  }
  return s / 2
}

function multiAreaKm2(mp: MultiPoly): number {
  let a = 0
  for (const poly of mp)
    poly.forEach((ring, i) => {
      a += i === 0 ? Math.abs(ringAreaKm2(ring)) : -Math.abs(ringAreaKm2(ring))
    })
  return a
}

/** Area-weighted centre of a multipolygon's exteriors (planar, degrees). */
function multiCentre(mp: MultiPoly): { cx: number; cy: number; w: number } {
  let w = 0
  let cx = 0
  let cy = 0
  for (const poly of mp) {
    const ring = poly[0]
    let a = 0
    let x = 0
    let y = 0
    for (let i = 0; i < ring.length - 1; i++) {
      const f = ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
      a += f
      x += (ring[i][0] + ring[i + 1][0]) * f
      y += (ring[i][1] + ring[i + 1][1]) * f
    }
    if (a === 0) continue
    cx += x / 3
    cy += y / 3
    w += a
  }
  return w === 0 ? { cx: NaN, cy: NaN, w: 0 } : { cx: cx / w, cy: cy / w, w: Math.abs(w) / 2 }
}

/** Where segment p→q crosses `axis = c`, computed from the ends in a fixed order (so two cells agree). */
function crossing(p: Pt, q: Pt, axis: 0 | 1, c: number): Pt {
  const [a, b] = p[axis] < q[axis] || (p[axis] === q[axis] && p[1 - axis] <= q[1 - axis]) ? [p, q] : [q, p]
  const t = (c - a[axis]) / (b[axis] - a[axis])
  const other = a[1 - axis] + t * (b[1 - axis] - a[1 - axis])
  return axis === 0 ? [c, other] : [other, c]
}

/** One Sutherland–Hodgman stage on an open ring. */
function clipStage(pts: Pt[], axis: 0 | 1, c: number, keepGreater: boolean): Pt[] {
  const out: Pt[] = []
  const n = pts.length
  if (n === 0) return out
  const inside = (p: Pt) => (keepGreater ? p[axis] >= c : p[axis] <= c)
  let prev = pts[n - 1]
  let prevIn = inside(prev)
  for (const cur of pts) {
    const curIn = inside(cur)
    if (curIn !== prevIn) out.push(crossing(prev, cur, axis, c))
    if (curIn) out.push(cur)
    prev = cur
    prevIn = curIn
  }
  return out
}

/** A closed ring clipped to a box; may carry zero-width bridges along the box (cleaned by polyclip). */
function clipRingToBox(ring: Ring, x0: number, y0: number, x1: number, y1: number): Ring | null {
  let pts: Pt[] = ring.slice(0, -1)
  pts = clipStage(pts, 0, x0, true)
  pts = clipStage(pts, 0, x1, false)
  pts = clipStage(pts, 1, y0, true)
  pts = clipStage(pts, 1, y1, false)
  if (pts.length < 3) return null
  return [...pts, pts[0]]
}

const boxRing = (x0: number, y0: number, x1: number, y1: number): Ring => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
]

/** Rounds to 7 decimals, drops repeated positions and degenerate rings, and orients exteriors CCW / holes CW. */
export function tidy(mp: MultiPoly): MultiPoly {
  const out: MultiPoly = []
  for (const poly of mp) {
    const rings: Ring[] = []
    poly.forEach((ring, i) => {
      const r: Ring = []
      for (const [x, y] of ring) {
        const p: Pt = [round(x), round(y)]
        const last = r[r.length - 1]
        if (!last || last[0] !== p[0] || last[1] !== p[1]) r.push(p)
      }
      if (r.length > 1 && (r[0][0] !== r[r.length - 1][0] || r[0][1] !== r[r.length - 1][1])) r.push(r[0])
      if (r.length < 4) return
      const ccw = ringAreaKm2(r) > 0
      if ((i === 0) !== ccw) r.reverse()
      rings.push(r)
    })
    if (rings.length > 0) out.push(rings)
  }
  return out
}

/** A Polygon for one part, else a MultiPolygon. */
export const toGeometry = (mp: MultiPoly): PolygonalGeometry =>
  mp.length === 1 ? { type: 'Polygon', coordinates: mp[0] } : { type: 'MultiPolygon', coordinates: mp }

/** A province outline as polyclip polygons. */
export function outlinePolys(p: Province): MultiPoly {
  const g = p.outline.geometry
  return (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as MultiPoly
}

/**
 * Division targets: proportional to area (largest remainder), summing to 221, KwaZulu-Natal
 * fixed at its 14 and Gauteng at least its 3.
 */
export function divisionTargets(geography: Geography): Record<ProvinceCode, number> {
  const areas = geography.provinces.map((p) => multiAreaKm2(outlinePolys(p)))
  const fixed = geography.provinces.map((p) => FIXED_CODES[p.code]?.length ?? 0)
  const targets = {} as Record<ProvinceCode, number>
  const free = geography.provinces.map((p, i) => (p.code === 'KZ' ? 0 : areas[i]))
  const budget = REGISTRATION_DIVISION_COUNT - (FIXED_CODES.KZ?.length ?? 0)
  const total = free.reduce((s, a) => s + a, 0)
  const exact = free.map((a) => (a / total) * budget)
  const counts = exact.map(Math.floor)
  let left = budget - counts.reduce((s, n) => s + n, 0)
  const order = exact
    .map((x, i) => ({ i, r: x - Math.floor(x) }))
    .filter(({ i }) => free[i] > 0)
    .sort((a, b) => b.r - a.r || a.i - b.i)
  for (const { i } of order) {
    if (left === 0) break
    counts[i]++
    left--
  }
  geography.provinces.forEach((p, i) => {
    targets[p.code] = p.code === 'KZ' ? fixed[i] : Math.max(counts[i], fixed[i])
  })
  const sum = Object.values(targets).reduce((s, n) => s + n, 0)
  if (sum !== REGISTRATION_DIVISION_COUNT)
    throw new Error(`division targets sum to ${sum}, not ${REGISTRATION_DIVISION_COUNT}`)
  return targets
}

/** A grid cell's piece of the province, then a group of merged pieces. */
interface Group {
  cells: number[]
  pieces: MultiPoly[]
  area: number
  cx: number
  cy: number
  minKey: number
}

/** The grid pieces of a province for cell size `sKm`. */
function gridPieces(p: Province, sKm: number): { nx: number; pieces: Map<number, MultiPoly> } {
  const polys = outlinePolys(p)
  const [bx0, by0, bx1, by1] = p.outline.bbox
  // the largest part's latitude sets the cell width (WC's outline reaches the Prince Edward Islands)
  let latMid = (by0 + by1) / 2
  let largest = 0
  for (const poly of polys) {
    const a = Math.abs(ringAreaKm2(poly[0]))
    if (a > largest) {
      largest = a
      latMid = poly[0].reduce((s, q) => s + q[1], 0) / poly[0].length
    }
  }
  const sLat = sKm / 110.95
  const sLon = sKm / (111.32 * Math.cos((latMid * Math.PI) / 180))
  const nx = Math.ceil((bx1 - bx0) / sLon) + 1
  const ny = Math.ceil((by1 - by0) / sLat) + 1
  const gx = (i: number) => bx0 + i * sLon
  const gy = (j: number) => by0 + j * sLat
  const key = (i: number, j: number) => j * nx + i
  // cells an edge's bbox touches may be cut; the rest are wholly in or out
  const cut = new Set<number>()
  for (const poly of polys) {
    for (const ring of poly) {
      for (let e = 0; e < ring.length - 1; e++) {
        const [ax, ay] = ring[e]
        const [qx, qy] = ring[e + 1]
        const i0 = Math.floor((Math.min(ax, qx) - bx0) / sLon)
        const i1 = Math.floor((Math.max(ax, qx) - bx0) / sLon)
        const j0 = Math.floor((Math.min(ay, qy) - by0) / sLat)
        const j1 = Math.floor((Math.max(ay, qy) - by0) / sLat)
        for (let j = j0; j <= j1; j++) for (let i = i0; i <= i1; i++) cut.add(key(i, j))
      }
    }
  }
  const pieces = new Map<number, MultiPoly>()
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const k = key(i, j)
      const [x0, y0, x1, y1] = [gx(i), gy(j), gx(i + 1), gy(j + 1)]
      if (!cut.has(k)) {
        if (p.outline.contains((x0 + x1) / 2, (y0 + y1) / 2)) pieces.set(k, [[boxRing(x0, y0, x1, y1)]])
        continue
      }
      const parts: MultiPoly = []
      for (const poly of polys) {
        const outer = clipRingToBox(poly[0], x0, y0, x1, y1)
        if (!outer) continue
        const holes = poly
          .slice(1)
          .map((h) => clipRingToBox(h, x0, y0, x1, y1))
          .filter((h): h is Ring => h !== null)
        // polyclip removes the bridges the clip left along the box edges
        for (const q of intersection([outer, ...holes] as Poly, [boxRing(x0, y0, x1, y1)] as Poly) as MultiPoly)
          parts.push(q)
      }
      const cleaned = parts.filter((q) => Math.abs(multiCentre([q]).w) > MIN_PIECE_DEG2)
      if (cleaned.length > 0) pieces.set(k, cleaned)
    }
  }
  return { nx, pieces }
}

/** Merges a province's grid pieces down to `target` groups (smallest into its smallest neighbour). */
function mergeToTarget(p: Province, target: number): Group[] {
  const area = multiAreaKm2(outlinePolys(p))
  let sKm = Math.sqrt(area / target) * 0.75
  let grid = gridPieces(p, sKm)
  for (let tries = 0; grid.pieces.size < target; tries++) {
    if (tries > 30) throw new Error(`cannot cut ${p.code} into ${target} cells`)
    sKm *= 0.85
    grid = gridPieces(p, sKm)
  }
  const { nx, pieces } = grid
  const groups = new Map<number, Group>()
  const groupOf = new Map<number, number>()
  for (const [k, mp] of [...pieces.entries()].sort((a, b) => a[0] - b[0])) {
    const c = multiCentre(mp)
    groups.set(k, { cells: [k], pieces: [mp], area: multiAreaKm2(mp), cx: c.cx, cy: c.cy, minKey: k })
    groupOf.set(k, k)
  }
  while (groups.size > target) {
    let small: Group | null = null
    for (const g of groups.values())
      if (!small || g.area < small.area || (g.area === small.area && g.minKey < small.minKey)) small = g
    const s = small!
    const neighbours = new Set<number>()
    for (const k of s.cells) {
      const i = k % nx
      for (const n of [k - nx, k + nx, i > 0 ? k - 1 : -1, i < nx - 1 ? k + 1 : -1]) {
        const g = n >= 0 ? groupOf.get(n) : undefined
        if (g !== undefined && g !== s.minKey) neighbours.add(g)
      }
    }
    let into: Group | null = null
    if (neighbours.size > 0) {
      for (const id of neighbours) {
        const g = groups.get(id)!
        if (!into || g.area < into.area || (g.area === into.area && g.minKey < into.minKey)) into = g
      }
    } else {
      // an island cell: the nearest group
      let best = Infinity
      for (const g of groups.values()) {
        if (g === s) continue
        const d = (g.cx - s.cx) ** 2 + (g.cy - s.cy) ** 2
        if (d < best || (d === best && into && g.minKey < into.minKey)) {
          best = d
          into = g
        }
      }
    }
    const t = into!
    const w = t.area + s.area
    const merged: Group = {
      cells: [...t.cells, ...s.cells],
      pieces: [...t.pieces, ...s.pieces],
      area: w,
      cx: (t.cx * t.area + s.cx * s.area) / w,
      cy: (t.cy * t.area + s.cy * s.area) / w,
      minKey: Math.min(t.minKey, s.minKey),
    }
    groups.delete(t.minKey)
    groups.delete(s.minKey)
    groups.set(merged.minKey, merged)
    for (const k of merged.cells) groupOf.set(k, merged.minKey)
  }
  return [...groups.values()]
}

/** The natural letter pair of a point: row by degree of latitude, column by degree of longitude. */
function letterSquare(lon: number, lat: number): [number, number] {
  const row = 12 - (Math.floor(-lat) - 22) // 22–23° S → M (12), 25–26° S → J, 26–27° S → I
  const col = 17 + Math.floor(lon) - 28 // 28–29° E → R (17), 27–28° E → Q
  return [Math.min(25, Math.max(0, row)), Math.min(25, Math.max(0, col))]
}
const letterCode = (row: number, col: number) => String.fromCharCode(65 + row) + String.fromCharCode(65 + col)
const codeSquare = (code: string): [number, number] => [code.charCodeAt(0) - 65, code.charCodeAt(1) - 65]

/** Is the name fit for a district or town (same rules as township names; no street addresses). */
export function usableTownName(name: string): boolean {
  return !/\(\d+\)\s*$/.test(name) && !/kaff[ei]r/i.test(name) && !/^\d/.test(name)
}

// GeoNames gives a few farms and buildings single-digit "populations": not a town's
const TOWN_MIN_POPULATION = 100
const townPopulation = (l: SaLocality) => (l.population >= TOWN_MIN_POPULATION ? l.population : 0)

/**
 * Ranks WOF towns largest first: population (from 100 up; few WOF records have one), current,
 * polygon, then the stable WOF id.
 */
export function compareTowns(a: SaLocality, b: SaLocality): number {
  return (
    townPopulation(b) - townPopulation(a) ||
    Number(b.isCurrent) - Number(a.isCurrent) ||
    Number(b.hasPolygon) - Number(a.hasPolygon) ||
    a.wofId - b.wofId
  )
}

function build(geography: Geography): RegistrationDivisions {
  const targets = divisionTargets(geography)
  const cellsByProvince = new Map<ProvinceCode, { mp: MultiPoly; area: number; cx: number; cy: number }[]>()
  for (const p of geography.provinces) {
    const groups = mergeToTarget(p, targets[p.code])
    const cells = groups.map((g) => {
      const mp = tidy(union(...(g.pieces as [MultiPoly, ...MultiPoly[]])) as MultiPoly)
      const c = multiCentre(mp)
      return { mp, area: multiAreaKm2(mp), cx: c.cx, cy: c.cy }
    })
    // reading order: north to south in bands, west to east
    const band = Math.sqrt(multiAreaKm2(outlinePolys(p)) / targets[p.code]) / 110.95
    cells.sort((a, b) => Math.round(-a.cy / band) - Math.round(-b.cy / band) || a.cx - b.cx)
    cellsByProvince.set(p.code, cells)
  }

  const divisions: RegistrationDivision[] = []
  const used = new Set<string>()
  const make = (
    province: ProvinceCode,
    cell: { mp: MultiPoly; area: number; cx: number; cy: number },
    code: string,
  ) => {
    used.add(code)
    const geometry = toGeometry(cell.mp)
    const d: RegistrationDivision = {
      code,
      name: code,
      province,
      geometry,
      outline: new Polygonal(geometry),
      areaKm2: cell.area,
      centre: [cell.cx, cell.cy],
    }
    divisions.push(d)
    return d
  }

  // letter pairs: KZ and GP from their fixed lists, then LP, MP, NW (never a fixed code)
  const reserved = new Set<string>([...KZ_DIVISION_CODES, ...GP_DIVISION_CODES])
  for (const code of LETTER_PROVINCES) {
    const cells = [...cellsByProvince.get(code)!].sort((a, b) => b.area - a.area || a.cy - b.cy)
    const fixed = FIXED_CODES[code]
    for (const cell of cells) {
      const [row, col] = letterSquare(cell.cx, cell.cy)
      const candidates: string[] = []
      if (fixed) candidates.push(...fixed.filter((c) => !used.has(c)))
      else {
        for (let r = 0; r < 26; r++)
          for (let c = 0; c < 26; c++) {
            const cc = letterCode(r, c)
            if (!used.has(cc) && !reserved.has(cc)) candidates.push(cc)
          }
      }
      const dist = (cc: string) => {
        const [r, c] = codeSquare(cc)
        return (r - row) ** 2 + (c - col) ** 2
      }
      candidates.sort((a, b) => dist(a) - dist(b) || (a < b ? -1 : 1))
      if (candidates.length === 0) throw new Error(`no registration-division code left for ${code}`)
      make(code, cell, candidates[0])
    }
  }

  // numbers: 01–99 less the unused ones, then letter + digit
  const numberCodes: string[] = []
  for (let n = 1; n <= 99; n++) {
    const c = String(n).padStart(2, '0')
    if (!UNUSED_DISTRICT_NUMBERS.includes(c)) numberCodes.push(c)
  }
  for (let l = 0; l < 26; l++) for (let d = 0; d <= 9; d++) numberCodes.push(String.fromCharCode(65 + l) + d)
  let next = 0
  const names = new Set<string>()
  for (const code of NUMBER_PROVINCES) {
    const made = cellsByProvince.get(code)!.map((cell) => make(code, cell, numberCodes[next++]))
    // name each district after its largest town
    const towns = new Map<RegistrationDivision, SaLocality[]>()
    for (const loc of geography.saLocalities) {
      if (loc.province !== code || loc.placetype !== 'locality' || !usableTownName(loc.name)) continue
      const d = made.find((x) => x.outline.contains(loc.lon, loc.lat))
      if (!d) continue
      const list = towns.get(d) ?? []
      list.push(loc)
      towns.set(d, list)
    }
    const all = [...towns.values()].flat()
    for (const d of made) {
      const list = (towns.get(d) ?? []).sort(compareTowns)
      let pick = list.find((t) => !names.has(t.name.toUpperCase()))
      if (!pick) {
        // no free town inside (empty desert cells): the province's nearest free one
        const [cx, cy] = d.centre
        const near = all.filter((t) => !names.has(t.name.toUpperCase()))
        near.sort(
          (a, b) =>
            (a.lon - cx) ** 2 + (a.lat - cy) ** 2 - ((b.lon - cx) ** 2 + (b.lat - cy) ** 2) || a.wofId - b.wofId,
        )
        pick = near[0]
      }
      d.name = pick ? pick.name.toUpperCase() : `${geography.province(code).name} ${d.code}`
      names.add(d.name)
    }
  }

  const order = new Map(geography.provinces.map((p, i) => [p.code, i]))
  divisions.sort((a, b) => order.get(a.province)! - order.get(b.province)! || (a.code < b.code ? -1 : 1))
  if (used.size !== REGISTRATION_DIVISION_COUNT || divisions.length !== REGISTRATION_DIVISION_COUNT) {
    throw new Error(
      `made ${divisions.length} registration divisions with ${used.size} codes, expected ${REGISTRATION_DIVISION_COUNT}`,
    )
  }
  const byProvince = new Map<ProvinceCode, RegistrationDivision[]>()
  for (const d of divisions) byProvince.set(d.province, [...(byProvince.get(d.province) ?? []), d])
  const byCode = new Map(divisions.map((d) => [d.code, d]))
  return {
    all: divisions,
    targets,
    byProvince: (code) => byProvince.get(code) ?? [],
    byCode: (code) => byCode.get(code),
    at(province, lon, lat) {
      const list = byProvince.get(province) ?? []
      const hit = list.find((d) => d.outline.contains(lon, lat))
      if (hit) return hit
      let best = list[0]
      let bestD = Infinity
      for (const d of list) {
        const dist = d.outline.distanceToBoundaryM(lon, lat)
        if (dist < bestD) {
          bestD = dist
          best = d
        }
      }
      if (!best) throw new Error(`no registration divisions in ${province}`)
      return best
    },
    find(lon, lat) {
      let hit: RegistrationDivision | null = null
      for (const d of divisions) if (d.outline.contains(lon, lat) && (!hit || d.code < hit.code)) hit = d
      return hit
    },
  }
}

const cache = new WeakMap<Geography, RegistrationDivisions>()

/** The 221 registration divisions of this geography (computed once per {@link Geography}). */
export function registrationDivisions(geography: Geography): RegistrationDivisions {
  let r = cache.get(geography)
  if (!r) {
    r = build(geography)
    cache.set(geography, r)
  }
  return r
}
