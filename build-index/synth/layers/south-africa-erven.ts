/**
 * South African erven for the plot service: `south_africa/erven.csv` with
 * `erf_number,latitude,longitude,township,province` (docs/source-formats.md).
 *
 * Townships are real WOF locality and neighbourhood names, each laid out as a compact cluster
 * of street blocks around the WOF position and kept inside its province's Natural Earth
 * outline. Plot-service rule 3 shapes the numbers: erf numbers restart at 1 in every township,
 * township names repeat across provinces (names WOF has in several provinces are taken first),
 * and about 10 % of rows are portions `<erf>/<portion>` of an erf whose whole row also exists.
 *
 * @module
 */
import type { LayerGenerator, SynthContext } from '../context.js'
import { csvField } from '../csv.js'
import type { Province, ProvinceCode, SaLocality } from '../geography.js'
import { LocalFrame, insideTestNear } from '../geo-math.js'
import type { Random } from '../random.js'
import {
  allocate,
  areaPerStandM2,
  blockPitch,
  maxCellDistanceM,
  orderCellsOutward,
  standOffsetX,
  standOffsetY,
  type BlockPlan,
} from '../street-blocks.js'

/** One township to generate. */
export interface TownshipPlan {
  /** Position in output order. */
  index: number
  /** WOF name, natural case. */
  name: string
  province: Province
  locality: SaLocality
  /** Rows (whole erven plus portions) allotted. */
  rows: number
  block: BlockPlan
  /** True when the name is also used by a township in another province of this run. */
  repeatedName: boolean
  /** Label of the random stream that lays this township out. */
  streamLabel: string
}

// share of erven that are subdivided, and how many portions (1..5) they get
const SUBDIVIDED_SHARE = 0.052
const PORTION_COUNT_WEIGHTS = [40, 30, 15, 10, 5]
// neighbouring townships may grow to this share of the distance between their centres
const NEIGHBOUR_RADIUS_SHARE = 0.45
// no township holds more than this many times the average
const MAX_TOWNSHIP_FACTOR = 15

/**
 * Rough share of the country's urban erven per province, used to spread townships and rows.
 * An assumption that follows where households live (Gauteng largest, Northern Cape smallest),
 * not a published count: docs/domain.md 1.5 gives only the national total.
 */
export const PROVINCE_ERVEN_SHARE: Readonly<Record<ProvinceCode, number>> = {
  EC: 0.12,
  FS: 0.07,
  GP: 0.27,
  KZ: 0.16,
  LP: 0.08,
  MP: 0.08,
  NC: 0.02,
  NW: 0.07,
  WC: 0.13,
}

/**
 * Names not fit for a township: GeoNames disambiguation suffixes ("Veepos (2)") and the
 * colonial-era slur some farm names still carry in GeoNames.
 */
function isUsableTownshipName(name: string): boolean {
  return !/\(\d+\)\s*$/.test(name) && !/kaff[ei]r/i.test(name)
}

/** How prominent a locality is: drives both selection and size. */
function significance(loc: SaLocality): number {
  let s: number
  if (loc.population > 0) s = Math.min(40, Math.max(1, Math.sqrt(loc.population / 500)))
  else if (loc.hasPolygon) s = 2.5
  else if (loc.placetype === 'neighbourhood') s = 1.5
  else s = 0.8
  return loc.isCurrent ? s * 1.3 : s
}

function compareLocality(a: SaLocality, b: SaLocality): number {
  // the record to keep when one province has a name twice: current, populous, polygon, oldest id
  return (
    Number(b.isCurrent) - Number(a.isCurrent) ||
    b.population - a.population ||
    Number(b.hasPolygon) - Number(a.hasPolygon) ||
    a.wofId - b.wofId
  )
}

/** Picks the townships for the scale: repeated names first, every province covered, then by prominence. */
function selectLocalities(ctx: SynthContext, rnd: Random): SaLocality[] {
  const { scale, geography } = ctx
  // one locality per (name, province), case-insensitive because the build upper-cases names
  const byKey = new Map<string, SaLocality>()
  for (const loc of geography.saLocalities) {
    if (!isUsableTownshipName(loc.name)) continue
    const key = `${loc.name.toUpperCase()}|${loc.province}`
    const prev = byKey.get(key)
    if (!prev || compareLocality(loc, prev) < 0) byKey.set(key, loc)
  }
  const unique = [...byKey.values()].sort((a, b) => a.wofId - b.wofId)
  const groups = new Map<string, SaLocality[]>()
  for (const loc of unique) {
    const name = loc.name.toUpperCase()
    const g = groups.get(name)
    if (g) g.push(loc)
    else groups.set(name, [loc])
  }

  const target = scale.southAfricaTownships
  const chosen: SaLocality[] = []
  const taken = new Set<SaLocality>()

  // 1. names WOF has in several provinces, sampled by prominence
  const repeated = [...groups.entries()]
    .filter(([, g]) => g.length > 1)
    .map(([name, g]) => ({ name, g, key: rnd.weightedKey(g.reduce((s, l) => s + significance(l), 0)) }))
    .sort((a, b) => b.key - a.key || (a.name < b.name ? -1 : 1))
  const nNames =
    scale.repeatedTownshipNames === 'all' ? repeated.length : Math.min(scale.repeatedTownshipNames, repeated.length)
  // leave room for one township per province
  const repeatedBudget = Math.max(0, target - 9)
  for (const { g } of repeated.slice(0, nNames)) {
    const members = g
      .map((l) => ({ l, key: rnd.weightedKey(significance(l)) }))
      .sort((a, b) => b.key - a.key || a.l.wofId - b.l.wofId)
      .slice(0, scale.maxProvincesPerRepeatedName)
      .map((m) => m.l)
    if (chosen.length + members.length > repeatedBudget) break
    for (const l of members) {
      chosen.push(l)
      taken.add(l)
    }
  }

  // 2. the rest by prominence, up to each province's quota (every province gets one)
  const available = new Map<ProvinceCode, number>()
  for (const l of unique) available.set(l.province, (available.get(l.province) ?? 0) + 1)
  const provinces = geography.provinces
  const quotas = allocate(
    target,
    provinces.map((p) => PROVINCE_ERVEN_SHARE[p.code]),
    provinces.map((p) => Math.max(1, chosen.filter((l) => l.province === p.code).length)),
    provinces.map((p) => available.get(p.code) ?? 0),
  )
  const rest = unique
    .filter((l) => !taken.has(l))
    .map((l) => ({ l, key: rnd.weightedKey(significance(l)) }))
    .sort((a, b) => b.key - a.key || a.l.wofId - b.l.wofId)
    .map((x) => x.l)
  provinces.forEach((p, i) => {
    let have = chosen.filter((l) => l.province === p.code).length
    for (const l of rest) {
      if (have >= quotas[i]) break
      if (l.province !== p.code || taken.has(l)) continue
      chosen.push(l)
      taken.add(l)
      have++
    }
    if (have === 0) throw new Error(`no WOF locality in province ${p.code}`)
  })
  if (chosen.length < target) {
    throw new Error(`only ${chosen.length} distinct township names available, scale wants ${target}`)
  }
  return chosen
}

/** Random street-block dimensions for one township (RDP-style dense to large suburban stands). */
function drawBlockPlan(rnd: Random): BlockPlan {
  const kind = rnd.float()
  const frontageM = kind < 0.4 ? rnd.range(15, 18) : kind < 0.85 ? rnd.range(18, 25) : rnd.range(25, 30)
  return {
    frontageM,
    depthM: Math.min(35, frontageM * rnd.range(1.25, 1.7)),
    standsPerRow: rnd.int(6, 14),
    streetM: rnd.range(12, 16),
    angleRad: rnd.range(0, Math.PI / 2),
  }
}

/**
 * Chooses the townships of this run and how many rows each gets. Deterministic for a seed, so a
 * later layer (the cadastre) can call it to get the same townships.
 */
export function planTownships(ctx: SynthContext): TownshipPlan[] {
  const rnd = ctx.random('erven/plan')
  const { scale, geography } = ctx
  const chosen = selectLocalities(ctx, rnd.fork('select'))
  chosen.sort(
    (a, b) =>
      (a.province < b.province ? -1 : a.province > b.province ? 1 : 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      a.wofId - b.wofId,
  )

  const provincesByName = new Map<string, Set<ProvinceCode>>()
  for (const l of chosen) {
    const key = l.name.toUpperCase()
    const s = provincesByName.get(key) ?? new Set<ProvinceCode>()
    s.add(l.province)
    provincesByName.set(key, s)
  }

  const sizeRnd = rnd.fork('size')
  const blocks = chosen.map((l) => drawBlockPlan(rnd.fork(`block/${l.wofId}`)))
  const n = chosen.length
  const weights = new Float64Array(n)
  const mins = new Float64Array(n).fill(scale.minErvenPerTownship)
  const caps = new Float64Array(n)
  const average = scale.southAfricaErven / n
  // cap each township by the room to its nearest neighbour so clusters don't overlap
  const cosLat = chosen.map((l) => Math.cos((l.lat * Math.PI) / 180))
  for (let i = 0; i < n; i++) {
    let nearest2 = Infinity
    const a = chosen[i]
    for (let j = 0; j < n; j++) {
      if (j === i) continue
      const b = chosen[j]
      const dx = (b.lon - a.lon) * 111_320 * cosLat[i]
      const dy = (b.lat - a.lat) * 110_950
      const d2 = dx * dx + dy * dy
      if (d2 < nearest2) nearest2 = d2
    }
    const r = NEIGHBOUR_RADIUS_SHARE * Math.sqrt(nearest2)
    const roomRows = ((Math.PI * r * r) / areaPerStandM2(blocks[i])) * (1 + SUBDIVIDED_SHARE * 2)
    caps[i] = Math.max(mins[i], Math.min(roomRows, average * MAX_TOWNSHIP_FACTOR))
    weights[i] = significance(a) * Math.exp(sizeRnd.normal(0, 0.5))
  }
  // rows per province by share (bounded by what its townships can hold), then per township
  const provinces = geography.provinces
  const members = provinces.map((p) => chosen.flatMap((l, i) => (l.province === p.code ? [i] : [])))
  const sum = (idx: number[], arr: Float64Array): number => idx.reduce((s, i) => s + arr[i], 0)
  const provinceRows = allocate(
    scale.southAfricaErven,
    provinces.map((p) => PROVINCE_ERVEN_SHARE[p.code]),
    members.map((idx) => sum(idx, mins)),
    members.map((idx) => sum(idx, caps)),
  )
  const rows = new Int32Array(n)
  members.forEach((idx, pi) => {
    if (provinceRows[pi] > sum(idx, caps)) {
      ctx.log(
        `  erven: ${provinces[pi].code} townships are packed tighter than their spacing allows (some clusters touch)`,
      )
    }
    const share = allocate(
      provinceRows[pi],
      idx.map((i) => weights[i]),
      idx.map((i) => mins[i]),
      idx.map((i) => caps[i]),
    )
    idx.forEach((i, k) => {
      rows[i] = share[k]
    })
  })
  return chosen.map((l, i) => ({
    index: i,
    name: l.name,
    province: geography.province(l.province),
    locality: l,
    rows: rows[i],
    block: blocks[i],
    repeatedName: (provincesByName.get(l.name.toUpperCase())?.size ?? 0) > 1,
    streamLabel: `erven/township/${l.wofId}`,
  }))
}

/**
 * Where a row sits in the street-block grid, so a later layer (the cadastre) can rebuild the
 * stand polygon around it: block cell `(i, j)` (centre at `i * pitch.x, j * pitch.y` in the
 * township's rotated frame), stand `k` of the block (see {@link standOffsetX}), and, for a
 * subdivided erf, the number of strips across the stand's depth (1 for a whole erf; strip `p`
 * is the row with portion `p`, the remainder being strip 0).
 */
export interface StandRef {
  i: number
  j: number
  k: number
  strips: number
}

/** Receives one erf row: `portion` is 0 for the whole erf (or the remainder of a subdivided one). */
export type ErfSink = (erf: number, portion: number, lon: number, lat: number, stand: StandRef) => void

/**
 * Lays out one township and emits exactly `targetRows` rows when the province leaves room
 * (otherwise fewer; the caller carries the shortfall). Returns the rows emitted.
 */
export function layoutTownship(plan: TownshipPlan, targetRows: number, rnd: Random, sink: ErfSink): number {
  const { block } = plan
  const { lon: lon0, lat: lat0 } = plan.locality
  const pitch = blockPitch(block)
  const perBlock = 2 * block.standsPerRow
  const blocksNeeded = Math.ceil(targetRows / (1 + SUBDIVIDED_SHARE * 2) / perBlock)
  // four times the blocks needed, so a coastal or border township can still fill
  const cells = orderCellsOutward(blocksNeeded * 4 + 8, pitch.x, pitch.y, rnd)
  const reachM = maxCellDistanceM(cells, pitch.x, pitch.y) + pitch.x + pitch.y
  const inside = insideTestNear(plan.province.outline, lon0, lat0, reachM)
  const frame = new LocalFrame(lon0, lat0)
  const cos = Math.cos(block.angleRad)
  const sin = Math.sin(block.angleRad)
  const jx = block.frontageM * 0.06
  const jy = block.depthM * 0.05
  const pLon = new Float64Array(6)
  const pLat = new Float64Array(6)

  let rows = 0
  let erf = 0
  for (let m = 0; m < cells.length && rows < targetRows; m += 2) {
    const bx = cells[m] * pitch.x
    const by = cells[m + 1] * pitch.y
    for (let k = 0; k < perBlock && rows < targetRows; k++) {
      const x = bx + standOffsetX(block, k) + rnd.range(-jx, jx)
      const y = by + standOffsetY(block, k) + rnd.range(-jy, jy)
      const lon = frame.lon(x * cos - y * sin)
      const lat = frame.lat(x * sin + y * cos)
      if (!inside(lon, lat)) continue
      // an occasional gap: numbers lost to consolidation or never allocated
      erf += erf > 0 && rnd.chance(0.004) ? rnd.int(2, 6) : 1
      let portions = rnd.chance(SUBDIVIDED_SHARE) ? 1 + rnd.weightedIndex(PORTION_COUNT_WEIGHTS) : 0
      portions = Math.min(portions, targetRows - rows - 1)
      if (portions > 0) {
        // subdivide the stand into strips across its depth: remainder first, then portions
        const strip = block.depthM / (portions + 1)
        const y0 = standOffsetY(block, k) - block.depthM / 2
        for (let p = 0; p <= portions; p++) {
          const py = by + y0 + (p + 0.5) * strip
          pLon[p] = frame.lon(x * cos - py * sin)
          pLat[p] = frame.lat(x * sin + py * cos)
          if (!inside(pLon[p], pLat[p])) portions = 0
        }
      }
      const stand: StandRef = { i: cells[m], j: cells[m + 1], k, strips: portions + 1 }
      if (portions === 0) {
        sink(erf, 0, lon, lat, stand)
        rows++
      } else {
        for (let p = 0; p <= portions; p++) sink(erf, p, pLon[p], pLat[p], stand)
        rows += portions + 1
      }
    }
  }
  return rows
}

/**
 * Lays out every township in plan order, handing each one's target on to the next when a
 * township runs out of room (the carry). `visit` returns the sink for one township; `done`
 * hears how many rows it got. Returns the rows still missing at the end. The erven layer and
 * the cadastre both go through here, so they see the very same stands.
 */
export function layOutTownships(
  ctx: SynthContext,
  plans: readonly TownshipPlan[],
  visit: (plan: TownshipPlan) => ErfSink,
  done?: (plan: TownshipPlan, emitted: number) => void,
): number {
  let carry = 0
  for (const plan of plans) {
    const target = plan.rows + carry
    const emitted = layoutTownship(plan, target, ctx.random(plan.streamLabel), visit(plan))
    carry = target - emitted
    done?.(plan, emitted)
  }
  return carry
}

/** The erven layer. */
export const southAfricaErven: LayerGenerator = {
  name: 'erven',
  domain: 'plots',
  description: 'south_africa/erven.csv: erven in WOF-named townships in all nine provinces',
  async generate(ctx) {
    const plans = planTownships(ctx)
    const total = ctx.scale.southAfricaErven
    const out = ctx.openCsv('south_africa/erven.csv', ['erf_number', 'latitude', 'longitude', 'township', 'province'])
    const progress = ctx.progress('erven', total)
    let portionRows = 0
    const perProvince: Record<string, { townships: number; rows: number }> = {}
    const carry = layOutTownships(
      ctx,
      plans,
      (plan) => {
        const suffix = `,${csvField(plan.name)},${plan.province.name}\n`
        return (erf, portion, lon, lat) => {
          if (portion > 0) portionRows++
          out.line(`${portion > 0 ? `${erf}/${portion}` : erf},${lat.toFixed(7)},${lon.toFixed(7)}${suffix}`)
        }
      },
      (plan, emitted) => {
        const pp = (perProvince[plan.province.code] ??= { townships: 0, rows: 0 })
        pp.townships++
        pp.rows += emitted
        progress(out.rows)
      },
    )
    out.close()
    if (carry > 0)
      ctx.log(`  erven: ${carry} rows short of ${total}: the last townships had no room inside their province`)

    const repeatedNames = new Set(plans.filter((p) => p.repeatedName).map((p) => p.name.toUpperCase()))
    return {
      layer: 'erven',
      domain: 'plots',
      files: [{ path: 'south_africa/erven.csv', rows: out.rows, bytes: out.bytes }],
      counts: {
        erven: out.rows,
        whole_erven: out.rows - portionRows,
        portions: portionRows,
        townships: plans.length,
        repeated_township_names: repeatedNames.size,
        townships_with_repeated_name: plans.filter((p) => p.repeatedName).length,
      },
      details: { provinces: perProvince },
    }
  },
}
