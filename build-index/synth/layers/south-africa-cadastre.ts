/**
 * South African cadastre: `south_africa/cadastre/<PROV>/<layer>.geojsonl` for the six parcel
 * layers (erf, farm_portion, holding, parent_farm, public_place, street), beacons and General
 * Plans, in the CSG field layout of docs/source-formats.md "Cadastre parcels".
 *
 * Built on the erven layer's township plan and street-block layout (same random streams), so
 * every row of `south_africa/erven.csv` is exactly one current erf here: its label point is the
 * CSV point and its polygon is the stand (or the strip of a subdivided stand) around it.
 *
 * ```
 *   ┌──────────── parent farm (1/60° cell) ───────────┐   farms: a grid of 1/60° cells over
 *   │ portion 1      │ portion 2      │ portion 3     │   each township plus a ring of margin
 *   │   ┌──street ring──┬──────────┐  │               │   cells inside the province; every
 *   │   │ ┌erf┬erf┬erf┐ │ public   │  │               │   cell is split into 2–9 portions.
 *   │   │ └───┴───┴───┘ │ place    │  │               │   A margin cell near some townships
 *   │   └───────────────┴──────────┘  │  holdings ▤▤  │   holds an agricultural-holding scheme.
 *   └─────────────────────────────────────────────────┘
 * ```
 *
 * Extra rows beyond erven.csv, all hidden by the default status filter: a historic version
 * (wstatus H, same `id`, older date, other `prcl_key`) of every subdivided erf's remainder (the
 * whole stand before subdivision) and of ~1 % of whole erven (a corner moved 0.4 m); and an
 * archived or withdrawn (lstatus A/W) erf for each erf number the layout skipped (a stand
 * consolidated into its neighbour). One parcel in `repairableEvery` has a repairable defect.
 *
 * Also writes `south_africa/boundaries/register/township.geojsonl` ({@link TOWNSHIP_BOUNDARY_FILE}):
 * the extent of every township, for the boundaries register.
 *
 * Streams to disk township by township; one province's files are open at a time.
 *
 * @module
 */
import type { LayerGenerator, SynthContext, WrittenFile } from '../context.js'
import type { LineWriter } from '../csv.js'
import { CADASTRE_FOLDER, HOLDING_PROVINCES, formatLpi, majorRegionAt, type MajorRegion } from '../cadastre-codes.js'
import type { Province, ProvinceCode } from '../geography.js'
import { LocalFrame, insideTestNear, metresPerDegree } from '../geo-math.js'
import type { Random } from '../random.js'
import { blockPitch } from '../street-blocks.js'
import { layOutTownships, planTownships, type StandRef, type TownshipPlan } from './south-africa-erven.js'

/** The six parcel layers, in the build's source order. */
export const PARCEL_LAYER_FILES = ['erf', 'farm_portion', 'holding', 'parent_farm', 'public_place', 'street'] as const
/** A parcel layer file name. */
export type ParcelLayerFile = (typeof PARCEL_LAYER_FILES)[number]
type CadastreFile = ParcelLayerFile | 'beacon' | 'general_plan'

/**
 * The townships of the boundaries register, written here because a township's extent is the
 * cadastre's own geometry (its General Plan): without the cadastre layer there is no township
 * file. Fields as docs/source-formats.md "Boundaries": `code` the township's 8-character LPI prefix
 * (office, `0`, major code, minor code), `name` its name (`min_region`), `province` the spec
 * code, `parent` the registration division (major code), blank category and dates.
 */
export const TOWNSHIP_BOUNDARY_FILE = 'south_africa/boundaries/register/township.geojsonl'

/** Side of a parent-farm cell, degrees (about 1.7 × 1.85 km, ~300 ha: farms near towns are small). */
export const FARM_CELL_DEG = 1 / 60

// beacons kept per province: the Capes' exports are sparse (docs/source-formats.md "sparse in some provinces")
const BEACON_KEEP: Readonly<Record<ProvinceCode, number>> = {
  EC: 0.2,
  FS: 0.7,
  GP: 0.7,
  KZ: 0.7,
  LP: 0.7,
  MP: 0.7,
  NC: 0.2,
  NW: 0.7,
  WC: 0.7,
}
const BEACON_DESCRIPTIONS = [
  'iron peg',
  'iron peg in concrete',
  'brass bolt in concrete',
  'stone cairn',
  'nail in wall',
  'iron standard',
]
// share of whole erven with a superseded (historic) version
const HISTORIC_SHARE = 0.01
// about half of the Northern Cape export leaves the work status blank (docs/source-formats.md)
const BLANK_WSTATUS_SHARE: Readonly<Partial<Record<ProvinceCode, number>>> = { NC: 0.5 }
const DEFECTS = ['clockwise', 'duplicate-vertex', 'open-ring'] as const
type Defect = (typeof DEFECTS)[number]

/** One parcel row, geometry as rings of `[lon,lat]` JSON positions (closed, exterior CCW, holes CW). */
export interface ParcelRow {
  lpi: string
  version: number
  parcelNo: number
  portion: number
  tag: string
  tagLon: string
  tagLat: string
  lstatus: string
  wstatus: string
  major: MajorRegion
  minRegion: string
  minCode: string
  areaM2: number
  date: string
  rings: string[][]
}

interface OpenFile {
  writer: LineWriter
  gid: number
}

/** Rows the layout adds beyond erven.csv, counted over the whole run. */
export interface CadastreTally {
  historic: number
  archivedOrWithdrawn: number
  holdingSchemes: number
}

/**
 * Receives, in order, everything one township of the cadastre emits. {@link ProvinceOutput}
 * writes it to disk; a later layer (the encumbrances) keeps what it needs in memory, so both see
 * the very same parcels without reading the files back.
 */
export interface CadastreSink {
  parcel(layer: ParcelLayerFile, r: ParcelRow): void
  beacon(position: string, description: string, date: string): void
  generalPlan(sgNo: string, description: string, date: string, ring: string[]): void
  /** The township's extent for the boundaries register: `code` its 8-character LPI prefix, `parent` its major code. */
  township(code: string, name: string, parent: string, extent: string[]): void
}

/** Counters shared by the whole run. */
interface RunState {
  parcels: number
  repaired: Record<Defect, number>
  counts: Record<CadastreFile, number>
  files: WrittenFile[]
  perProvince: Record<string, Partial<Record<CadastreFile, number>>>
  /** `south_africa/boundaries/register/township.geojsonl`: one extent per township. */
  townships: LineWriter
}

const pad2 = (n: number) => String(n).padStart(2, '0')

/** A YYYYMMDD date in `year` (days 1–28, so every month is valid). */
function dateIn(year: number, rnd: Random): string {
  return `${year}${pad2(rnd.int(1, 12))}${pad2(rnd.int(1, 28))}`
}

/** One province's output files, opened on first use (so a province without holdings has no holding file). */
class ProvinceOutput implements CadastreSink {
  private readonly files = new Map<CadastreFile, OpenFile>()
  readonly folder: string
  private beaconSeq = 0

  constructor(
    private readonly ctx: SynthContext,
    readonly province: Province,
    private readonly state: RunState,
  ) {
    this.folder = `south_africa/cadastre/${CADASTRE_FOLDER[province.code]}`
  }

  private file(layer: CadastreFile): OpenFile {
    let f = this.files.get(layer)
    if (!f) {
      f = { writer: this.ctx.openLines(`${this.folder}/${layer}.geojsonl`), gid: 0 }
      this.files.set(layer, f)
    }
    this.state.counts[layer]++
    const pp = (this.state.perProvince[this.province.code] ??= {})
    pp[layer] = (pp[layer] ?? 0) + 1
    return f
  }

  parcel(layer: ParcelLayerFile, r: ParcelRow): void {
    const f = this.file(layer)
    f.gid++
    const s = this.state
    s.parcels++
    let rings = r.rings
    const every = this.ctx.scale.repairableEvery
    if (s.parcels % every === every >> 1) {
      const defect = DEFECTS[Math.floor(s.parcels / every) % DEFECTS.length]
      rings = withDefect(rings, defect)
      s.repaired[defect]++
    }
    const coords = rings.map((ring) => `[${ring.join(',')}]`).join(',')
    f.writer.line(
      `{"type":"Feature","properties":{"gid":${f.gid},"id":"${r.lpi}","prcl_key":"${r.lpi}${String(r.version).padStart(5, '0')}",` +
        `"parcel_no":${r.parcelNo},"portion":${r.portion},"tag_value":"${r.tag}","tag_x":${r.tagLon},"tag_y":${r.tagLat},` +
        `"lstatus":"${r.lstatus}","wstatus":"${r.wstatus}","maj_region":${JSON.stringify(r.major.name)},"maj_code":"${r.major.code}",` +
        `"min_region":${JSON.stringify(r.minRegion)},"min_code":"${r.minCode}","province":"${this.province.title}",` +
        `"geom_area":${r.areaM2.toFixed(2)},"date_stamp":"${r.date}"},"geometry":{"type":"Polygon","coordinates":[${coords}]}}\n`,
    )
  }

  beacon(position: string, description: string, date: string): void {
    const f = this.file('beacon')
    f.gid++
    this.beaconSeq++
    const id = `${this.province.code}B${String(this.beaconSeq).padStart(8, '0')}`
    f.writer.line(
      `{"type":"Feature","properties":{"beacon_id":"${id}","name":"B${this.beaconSeq}","description":"${description}","date_stamp":"${date}"},` +
        `"geometry":{"type":"Point","coordinates":${position}}}\n`,
    )
  }

  generalPlan(sgNo: string, description: string, date: string, ring: string[]): void {
    const f = this.file('general_plan')
    f.gid++
    f.writer.line(
      `{"type":"Feature","properties":{"sg_no":"${sgNo}","description":${JSON.stringify(description)},"date_stamp":"${date}"},` +
        `"geometry":{"type":"Polygon","coordinates":[[${ring.join(',')}]]}}\n`,
    )
  }

  township(code: string, name: string, parent: string, extent: string[]): void {
    this.state.townships.line(
      `{"type":"Feature","properties":{"code":"${code}","name":${JSON.stringify(name)},"category":"",` +
        `"province":"${this.province.code}","parent":"${parent}","effective_from":"","effective_to":""},` +
        `"geometry":{"type":"Polygon","coordinates":[[${extent.join(',')}]]}}\n`,
    )
  }

  close(): void {
    const order: CadastreFile[] = [...PARCEL_LAYER_FILES, 'beacon', 'general_plan']
    for (const layer of order) {
      const f = this.files.get(layer)
      if (!f) continue
      f.writer.close()
      this.state.files.push({ path: `${this.folder}/${layer}.geojsonl`, rows: f.writer.rows, bytes: f.writer.bytes })
    }
  }
}

/** The exterior ring made invalid in a way the build repairs without changing the area. */
function withDefect(rings: string[][], defect: Defect): string[][] {
  const [outer, ...holes] = rings
  switch (defect) {
    case 'clockwise':
      return [[...outer].reverse(), ...holes]
    case 'duplicate-vertex':
      return [[outer[0], outer[1], outer[1], ...outer.slice(2)], ...holes]
    case 'open-ring':
      return [outer.slice(0, -1), ...holes]
  }
}

/** A `[lon,lat]` JSON position at 7 decimals (about 1 cm), as every cadastre vertex is written. */
export const position = (lon: number, lat: number) => `[${lon.toFixed(7)},${lat.toFixed(7)}]`

/** A township's rotated street-grid frame: `u` along the frontage, `v` across, metres. */
export class GridFrame {
  private readonly frame: LocalFrame
  private readonly cos: number
  private readonly sin: number
  constructor(plan: TownshipPlan) {
    this.frame = new LocalFrame(plan.locality.lon, plan.locality.lat)
    this.cos = Math.cos(plan.block.angleRad)
    this.sin = Math.sin(plan.block.angleRad)
  }
  lon(u: number, v: number): number {
    return this.frame.lon(u * this.cos - v * this.sin)
  }
  lat(u: number, v: number): number {
    return this.frame.lat(u * this.sin + v * this.cos)
  }
  pos(u: number, v: number): string {
    return position(this.lon(u, v), this.lat(u, v))
  }
  /** Closed counter-clockwise ring of the box. */
  rect(u0: number, v0: number, u1: number, v1: number): string[] {
    const a = this.pos(u0, v0)
    return [a, this.pos(u1, v0), this.pos(u1, v1), this.pos(u0, v1), a]
  }
}

/** Closed counter-clockwise ring of a lon/lat box. */
function lonLatRect(lon0: number, lat0: number, lon1: number, lat1: number): string[] {
  const a = position(lon0, lat0)
  return [a, position(lon1, lat0), position(lon1, lat1), position(lon0, lat1), a]
}

/** One erf row as the layout emitted it. */
export interface StandRow {
  erf: number
  portion: number
  lon: number
  lat: number
  stand: StandRef
}

/** Shared, run-wide allocation of codes and farm cells. */
class Registry {
  private readonly minorNext = new Map<string, number>()
  private readonly farmNext = new Map<string, number>()
  private readonly claimed = new Map<ProvinceCode, Set<string>>()

  minor(province: ProvinceCode, major: MajorRegion, rnd: Random): number {
    const key = `${province}|${major.code}`
    const code = this.minorNext.get(key) ?? 1
    this.minorNext.set(key, code + rnd.int(1, 2))
    return code
  }

  farm(province: ProvinceCode, major: MajorRegion, rnd: Random): number {
    const key = `${province}|${major.code}`
    const no = this.farmNext.get(key) ?? rnd.int(1, 40)
    this.farmNext.set(key, no + rnd.int(1, 3))
    return no
  }

  /** Claims a farm cell for the province; false when some township already has it. */
  claim(province: ProvinceCode, fi: number, fj: number): boolean {
    let set = this.claimed.get(province)
    if (!set) this.claimed.set(province, (set = new Set()))
    const key = `${fi},${fj}`
    if (set.has(key)) return false
    set.add(key)
    return true
  }

  isClaimed(province: ProvinceCode, fi: number, fj: number): boolean {
    return this.claimed.get(province)?.has(`${fi},${fj}`) ?? false
  }
}

/** Everything one township writes. */
function writeTownship(
  ctx: SynthContext,
  out: CadastreSink,
  registry: Registry,
  state: CadastreTally,
  plan: TownshipPlan,
  rows: StandRow[],
  wantsHoldings: boolean,
): boolean {
  const rnd = ctx.random(`cadastre/${plan.streamLabel}`)
  const code = plan.province.code
  const { block } = plan
  const pitch = blockPitch(block)
  const spr = block.standsPerRow
  const f = block.frontageM
  const d = block.depthM
  const grid = new GridFrame(plan)
  const major = majorRegionAt(ctx.geography, code, plan.locality.lon, plan.locality.lat)
  const minor = registry.minor(code, major, rnd)
  const minCode = String(minor).padStart(4, '0')
  const established = rnd.int(1948, 2012)
  const blankShare = BLANK_WSTATUS_SHARE[code] ?? 0
  const wstatus = () => (blankShare > 0 && rnd.chance(blankShare) ? '' : 'C')
  const currentDate = () => dateIn(rnd.int(established, 2025), rnd)
  const keepBeacon = BEACON_KEEP[code] * ctx.scale.beaconShare
  const beaconSeen = new Set<string>()
  const beaconDate = dateIn(established, rnd)
  const beacons = (ring: string[]) => {
    for (let q = 0; q < ring.length - 1; q++) {
      const p = ring[q]
      if (beaconSeen.has(p)) continue
      beaconSeen.add(p)
      if (rnd.chance(keepBeacon)) out.beacon(p, rnd.pick(BEACON_DESCRIPTIONS), beaconDate)
    }
  }
  const standU = (i: number, c: number) => i * pitch.x + (c - spr / 2) * f
  const erfLpi = (no: number, portion: number) => formatLpi(code, major.code, minor, no, portion)

  // ---- erven: one per CSV row, plus historic versions and archived/withdrawn numbers
  const usedCells = new Map<string, [number, number]>()
  let maxErf = 0
  let prevErf = 0
  for (let r = 0; r < rows.length; ) {
    const first = rows[r]
    const { i, j, k, strips } = first.stand
    usedCells.set(`${i},${j}`, [i, j])
    const c = k % spr
    const u0 = standU(i, c)
    const u1 = standU(i, c + 1)
    const vLow = k < spr ? j * pitch.y : j * pitch.y - d
    const vHigh = k < spr ? j * pitch.y + d : j * pitch.y
    const erf = first.erf
    maxErf = Math.max(maxErf, erf)
    if (erf > prevErf + 1) {
      // the skipped number was consolidated into this stand: its old record is archived or withdrawn
      out.parcel('erf', {
        major,
        minRegion: plan.name,
        minCode,
        lpi: erfLpi(prevErf + 1, 0),
        version: 1,
        parcelNo: prevErf + 1,
        portion: 0,
        tag: String(prevErf + 1),
        tagLon: grid.lon((u0 + u1) / 2, (vLow + vHigh) / 2).toFixed(7),
        tagLat: grid.lat((u0 + u1) / 2, (vLow + vHigh) / 2).toFixed(7),
        lstatus: rnd.chance(0.5) ? 'A' : 'W',
        wstatus: wstatus(),
        areaM2: (u1 - u0) * d,
        date: dateIn(rnd.int(established, 2025), rnd),
        rings: [grid.rect(u0, vLow, u1, vHigh)],
      })
      state.archivedOrWithdrawn++
    }
    prevErf = erf
    const whole = grid.rect(u0, vLow, u1, vHigh)
    for (let p = 0; p < strips; p++) {
      const row = rows[r + p]
      const v0 = p === 0 ? vLow : vLow + (p * d) / strips
      const v1 = p === strips - 1 ? vHigh : vLow + ((p + 1) * d) / strips
      const ring = strips === 1 ? whole : grid.rect(u0, v0, u1, v1)
      const historic = strips > 1 ? p === 0 : rnd.chance(HISTORIC_SHARE)
      const current: ParcelRow = {
        major,
        minRegion: plan.name,
        minCode,
        lpi: erfLpi(erf, p),
        version: historic ? 2 : 1,
        parcelNo: erf,
        portion: p,
        tag: strips === 1 ? String(erf) : p === 0 ? `RE/${erf}` : `${p}/${erf}`,
        tagLon: row.lon.toFixed(7),
        tagLat: row.lat.toFixed(7),
        lstatus: 'R',
        wstatus: wstatus(),
        areaM2: (u1 - u0) * (v1 - v0),
        date: currentDate(),
        rings: [ring],
      }
      out.parcel('erf', current)
      beacons(ring)
      if (historic) {
        // a subdivided erf's remainder was once the whole stand; a whole erf had one corner re-surveyed
        const old = strips > 1 ? whole : [whole[0], whole[1], grid.pos(u1 + 0.4, vHigh), whole[3], whole[0]]
        out.parcel('erf', {
          ...current,
          version: 1,
          wstatus: 'H',
          areaM2: strips > 1 ? (u1 - u0) * d : (u1 - u0) * d + 0.2 * d,
          // a year before the current version at the latest
          date: dateIn(rnd.int(established - 10, established - 1), rnd),
          rings: [old],
        })
        state.historic++
      }
    }
    r += strips
  }

  // ---- streets: the reserve around each used block, to the street centre lines
  let nextNo = maxErf + 1
  const cells = [...usedCells.values()].sort((a, b) => a[1] - b[1] || a[0] - b[0])
  let [uMin, vMin, uMax, vMax] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const [i, j] of cells) {
    const cu0 = (i - 0.5) * pitch.x
    const cu1 = (i + 0.5) * pitch.x
    const cv0 = (j - 0.5) * pitch.y
    const cv1 = (j + 0.5) * pitch.y
    const hole = grid.rect(standU(i, 0), j * pitch.y - d, standU(i, spr), j * pitch.y + d).reverse()
    out.parcel('street', {
      major,
      minRegion: plan.name,
      minCode,
      lpi: erfLpi(nextNo, 0),
      version: 1,
      parcelNo: nextNo,
      portion: 0,
      tag: String(nextNo),
      tagLon: grid.lon(cu0 + block.streetM / 4, j * pitch.y).toFixed(7),
      tagLat: grid.lat(cu0 + block.streetM / 4, j * pitch.y).toFixed(7),
      lstatus: 'R',
      wstatus: wstatus(),
      areaM2: pitch.x * pitch.y - spr * f * 2 * d,
      date: dateIn(established, rnd),
      rings: [grid.rect(cu0, cv0, cu1, cv1), hole],
    })
    nextNo++
    uMin = Math.min(uMin, cu0)
    vMin = Math.min(vMin, cv0)
    uMax = Math.max(uMax, cu1)
    vMax = Math.max(vMax, cv1)
  }

  // every point the township reaches, for the farm cells below and the province test
  let reachM = 0
  for (const row of rows) {
    const x = (row.lon - plan.locality.lon) * metresPerDegree(plan.locality.lat).lon
    const y = (row.lat - plan.locality.lat) * metresPerDegree(plan.locality.lat).lat
    reachM = Math.max(reachM, Math.hypot(x, y))
  }
  const inside = insideTestNear(plan.province.outline, plan.locality.lon, plan.locality.lat, reachM + 8_000)

  // ---- public places: a few empty block sites beside the built-up ones (parks, school sites)
  const candidates: [number, number][] = []
  const seenCandidate = new Set<string>()
  for (const [i, j] of cells) {
    for (const [di, dj] of [
      [1, 0],
      [-1, 0],
      [0, 1],
      [0, -1],
    ]) {
      const key = `${i + di},${j + dj}`
      if (usedCells.has(key) || seenCandidate.has(key)) continue
      seenCandidate.add(key)
      candidates.push([i + di, j + dj])
    }
  }
  candidates.sort((a, b) => a[1] - b[1] || a[0] - b[0])
  const wantPlaces = Math.min(6, 1 + Math.floor(cells.length / 40))
  for (let n = 0; n < wantPlaces && candidates.length > 0; ) {
    const [i, j] = candidates.splice(rnd.int(0, candidates.length - 1), 1)[0]
    const u0 = standU(i, 0)
    const u1 = standU(i, spr)
    const v0 = j * pitch.y - d
    const v1 = j * pitch.y + d
    const corners = [
      [u0, v0],
      [u1, v0],
      [u1, v1],
      [u0, v1],
    ]
    if (!corners.every(([u, v]) => inside(grid.lon(u, v), grid.lat(u, v)))) continue
    out.parcel('public_place', {
      major,
      minRegion: plan.name,
      minCode,
      lpi: erfLpi(nextNo, 0),
      version: 1,
      parcelNo: nextNo,
      portion: 0,
      tag: String(nextNo),
      tagLon: grid.lon((u0 + u1) / 2, (v0 + v1) / 2).toFixed(7),
      tagLat: grid.lat((u0 + u1) / 2, (v0 + v1) / 2).toFixed(7),
      lstatus: 'R',
      wstatus: wstatus(),
      areaM2: (u1 - u0) * (v1 - v0),
      date: dateIn(established, rnd),
      rings: [grid.rect(u0, v0, u1, v1)],
    })
    nextNo++
    n++
    uMin = Math.min(uMin, (i - 0.5) * pitch.x)
    vMin = Math.min(vMin, (j - 0.5) * pitch.y)
    uMax = Math.max(uMax, (i + 0.5) * pitch.x)
    vMax = Math.max(vMax, (j + 0.5) * pitch.y)
  }

  // ---- General Plan over the township, and the township's extent in the boundaries register
  const extent = grid.rect(uMin, vMin, uMax, vMax)
  out.generalPlan(
    `${rnd.int(100, 9999)}/${established}`,
    `General Plan of ${plan.name} township`,
    dateIn(established, rnd),
    extent,
  )
  out.township(erfLpi(0, 0).slice(0, 8), plan.name, major.code, extent)

  // ---- farms: every 1/60° cell the township touches, plus a margin ring inside the province
  const D = FARM_CELL_DEG
  const needed = new Map<string, [number, number]>()
  const addCellsOf = (lon: number, lat: number) => {
    const key = `${Math.floor(lon / D)},${Math.floor(lat / D)}`
    if (!needed.has(key)) needed.set(key, [Math.floor(lon / D), Math.floor(lat / D)])
  }
  for (const row of rows) addCellsOf(row.lon, row.lat)
  for (const [u, v] of [
    [uMin, vMin],
    [uMax, vMin],
    [uMax, vMax],
    [uMin, vMax],
  ])
    addCellsOf(grid.lon(u, v), grid.lat(u, v))
  // fill the box of touched cells so no gap is left between them
  let [fiMin, fjMin, fiMax, fjMax] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const [fi, fj] of needed.values()) {
    fiMin = Math.min(fiMin, fi)
    fjMin = Math.min(fjMin, fj)
    fiMax = Math.max(fiMax, fi)
    fjMax = Math.max(fjMax, fj)
  }
  const farmCells: { fi: number; fj: number; margin: boolean }[] = []
  for (let fj = fjMax + 1; fj >= fjMin - 1; fj--) {
    for (let fi = fiMin - 1; fi <= fiMax + 1; fi++) {
      const margin = fi < fiMin || fi > fiMax || fj < fjMin || fj > fjMax
      if (registry.isClaimed(code, fi, fj)) continue
      if (margin) {
        const lons = [fi * D, (fi + 0.5) * D, (fi + 1) * D]
        const lats = [fj * D, (fj + 0.5) * D, (fj + 1) * D]
        if (!lons.every((lon) => lats.every((lat) => inside(lon, lat)))) continue
      }
      registry.claim(code, fi, fj)
      farmCells.push({ fi, fj, margin })
    }
  }
  for (const { fi, fj } of farmCells) {
    const farmNo = registry.farm(code, major, rnd)
    const lon0 = fi * D
    const lon1 = (fi + 1) * D
    const lat0 = fj * D
    const lat1 = (fj + 1) * D
    const m = metresPerDegree((lat0 + lat1) / 2)
    const surveyed = rnd.int(1860, 1960)
    out.parcel('parent_farm', {
      major,
      minRegion: '',
      minCode: '',
      lpi: formatLpi(code, major.code, 0, farmNo, 0),
      version: 1,
      parcelNo: farmNo,
      portion: 0,
      tag: String(farmNo),
      tagLon: ((lon0 + lon1) / 2).toFixed(7),
      tagLat: ((lat0 + lat1) / 2).toFixed(7),
      lstatus: 'R',
      wstatus: wstatus(),
      areaM2: D * m.lon * D * m.lat,
      date: dateIn(surveyed, rnd),
      rings: [lonLatRect(lon0, lat0, lon1, lat1)],
    })
    let cols = rnd.int(1, 3)
    const bands = rnd.int(1, 3)
    if (cols * bands === 1) cols = 2
    let portion = 0
    for (let b = bands - 1; b >= 0; b--) {
      for (let a = 0; a < cols; a++) {
        portion++
        const pl0 = (fi + a / cols) * D
        const pl1 = (fi + (a + 1) / cols) * D
        const pa0 = (fj + b / bands) * D
        const pa1 = (fj + (b + 1) / bands) * D
        const ring = lonLatRect(pl0, pa0, pl1, pa1)
        out.parcel('farm_portion', {
          major,
          minRegion: '',
          minCode: '',
          lpi: formatLpi(code, major.code, 0, farmNo, portion),
          version: 1,
          parcelNo: farmNo,
          portion,
          tag: `${portion}/${farmNo}`,
          tagLon: ((pl0 + pl1) / 2).toFixed(7),
          tagLat: ((pa0 + pa1) / 2).toFixed(7),
          lstatus: 'R',
          wstatus: wstatus(),
          areaM2: (pl1 - pl0) * m.lon * (pa1 - pa0) * m.lat,
          date: dateIn(rnd.int(surveyed, 2020), rnd),
          rings: [ring],
        })
        beacons(ring)
      }
    }
  }

  // ---- an agricultural-holding scheme in one margin farm
  if (!wantsHoldings) return false
  const margins = farmCells.filter((c) => c.margin)
  if (margins.length === 0) return false
  const cell = margins[rnd.int(0, margins.length - 1)]
  const centre = new LocalFrame((cell.fi + 0.5) * D, (cell.fj + 0.5) * D)
  const lotW = rnd.range(80, 120)
  const lotH = rnd.range(150, 250)
  const nx = rnd.int(4, 12)
  const ny = rnd.int(2, 6)
  const scheme = `${plan.name} Agricultural Holdings`
  const schemeMinor = registry.minor(code, major, rnd)
  const schemeYear = rnd.int(1935, 1975)
  const hPos = (x: number, y: number) => position(centre.lon(x), centre.lat(y))
  let holdingNo = 0
  for (let r = ny - 1; r >= 0; r--) {
    for (let q = 0; q < nx; q++) {
      holdingNo++
      const x0 = (q - nx / 2) * lotW
      const x1 = (q + 1 - nx / 2) * lotW
      const y0 = (r - ny / 2) * lotH
      const y1 = (r + 1 - ny / 2) * lotH
      const a = hPos(x0, y0)
      out.parcel('holding', {
        major,
        minRegion: scheme,
        minCode: String(schemeMinor).padStart(4, '0'),
        lpi: formatLpi(code, major.code, schemeMinor, holdingNo, 0),
        version: 1,
        parcelNo: holdingNo,
        portion: 0,
        tag: String(holdingNo),
        tagLon: centre.lon((x0 + x1) / 2).toFixed(7),
        tagLat: centre.lat((y0 + y1) / 2).toFixed(7),
        lstatus: 'R',
        wstatus: wstatus(),
        areaM2: lotW * lotH,
        date: dateIn(rnd.int(schemeYear, 2020), rnd),
        rings: [[a, hPos(x1, y0), hPos(x1, y1), hPos(x0, y1), a]],
      })
    }
  }
  const [sx, sy] = [(nx / 2) * lotW, (ny / 2) * lotH]
  const a = hPos(-sx, -sy)
  out.generalPlan(`${rnd.int(100, 9999)}/${schemeYear}`, `General Plan of ${scheme}`, dateIn(schemeYear, rnd), [
    a,
    hPos(sx, -sy),
    hPos(sx, sy),
    hPos(-sx, sy),
    a,
  ])
  state.holdingSchemes++
  return true
}

/**
 * Lays out the whole cadastre, township by township in plan order, exactly as the cadastre layer
 * writes it: `sinkFor` is called whenever the province changes and receives that province's
 * townships; `townshipDone` hears each township's erf rows (with their stands) once the sink has
 * had all its parcels. Deterministic for a seed, so the encumbrance layer can call it to lay its
 * servitudes over the very same parcels.
 */
export function layOutCadastre(
  ctx: SynthContext,
  sinkFor: (province: Province) => CadastreSink,
  townshipDone?: (plan: TownshipPlan, rows: readonly StandRow[]) => void,
): CadastreTally {
  const plans = planTownships(ctx)
  const registry = new Registry()
  const tally: CadastreTally = { historic: 0, archivedOrWithdrawn: 0, holdingSchemes: 0 }
  const holdingRnd = ctx.random('cadastre/holdings')
  const hasHoldings = new Set<ProvinceCode>()
  let out: CadastreSink | null = null
  let province: ProvinceCode | null = null
  let rows: StandRow[] = []
  layOutTownships(
    ctx,
    plans,
    (plan) => {
      if (province !== plan.province.code) {
        province = plan.province.code
        out = sinkFor(plan.province)
      }
      rows = []
      return (erf, portion, lon, lat, stand) => rows.push({ erf, portion, lon, lat, stand })
    },
    (plan) => {
      const code = plan.province.code
      const draw = holdingRnd.chance(ctx.scale.holdingSchemeShare)
      const wantsHoldings = HOLDING_PROVINCES.has(code) && (!hasHoldings.has(code) || draw)
      if (writeTownship(ctx, out!, registry, tally, plan, rows, wantsHoldings)) hasHoldings.add(code)
      townshipDone?.(plan, rows)
    },
  )
  return tally
}

/** The cadastre layer. */
export const southAfricaCadastre: LayerGenerator = {
  name: 'cadastre',
  domain: 'cadastre',
  description:
    'south_africa/cadastre/<PROV>/*.geojsonl: erven, streets, public places, farms, portions, holdings, beacons, ' +
    'General Plans; township extents in boundaries/register',
  async generate(ctx) {
    const zero = (): Record<CadastreFile, number> => ({
      erf: 0,
      farm_portion: 0,
      holding: 0,
      parent_farm: 0,
      public_place: 0,
      street: 0,
      beacon: 0,
      general_plan: 0,
    })
    const state: RunState = {
      parcels: 0,
      repaired: { clockwise: 0, 'duplicate-vertex': 0, 'open-ring': 0 },
      counts: zero(),
      files: [],
      perProvince: {},
      townships: ctx.openLines(TOWNSHIP_BOUNDARY_FILE),
    }
    const progress = ctx.progress('cadastre', ctx.scale.southAfricaErven)
    let out: ProvinceOutput | null = null
    let erven = 0
    const tally = layOutCadastre(
      ctx,
      (province) => {
        out?.close()
        return (out = new ProvinceOutput(ctx, province, state))
      },
      (_plan, rows) => {
        erven += rows.length
        progress(erven)
      },
    )
    ;(out as ProvinceOutput | null)?.close()
    state.townships.close()
    state.files.push({ path: TOWNSHIP_BOUNDARY_FILE, rows: state.townships.rows, bytes: state.townships.bytes })

    const parcels = PARCEL_LAYER_FILES.reduce((s, l) => s + state.counts[l], 0)
    return {
      layer: 'cadastre',
      domain: 'cadastre',
      files: state.files,
      counts: {
        parcels,
        ...state.counts,
        historic_versions: tally.historic,
        archived_or_withdrawn: tally.archivedOrWithdrawn,
        holding_schemes: tally.holdingSchemes,
        townships: state.townships.rows,
        repairable_geometries: Object.values(state.repaired).reduce((s, n) => s + n, 0),
      },
      details: { provinces: state.perProvince, repairable: state.repaired },
    }
  },
}
