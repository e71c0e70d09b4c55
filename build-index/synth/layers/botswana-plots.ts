/**
 * Botswana plots: `botswana/plots.csv` with `plot_number,latitude,longitude,city,district`
 * (docs/source-formats.md) for the 26 towns of the plot service.
 *
 * Each town is a set of named extensions (cities and towns: "Extension 9", "Block 5", "Phase 2";
 * villages: wards), each extension a rectangle of street blocks of plots 20–40 m apart, filled
 * outward from the town's WOF position. Plot-service rule 2 shapes the numbers: every town
 * numbers from the same low ranges, so numbers recur across towns, and villages with tribal
 * (Land Board) land get a tribal area numbered again from the town's range, at least 3 km from
 * every plot of the first area (docs/domain.md 3.2: "Mogoditshane Tribal Lot 5009").
 *
 * Towns do not overlap: a point belongs to the town minimising (distance − the town's estimated
 * radius), so Gaborone's neighbours (Tlokweng, Mogoditshane, Mmopane) grow away from it. Plots
 * stay inside the Botswana outline and within 25 km of their town centre.
 *
 * @module
 */
import type { LayerGenerator, SynthContext } from '../context.js'
import { csvField } from '../csv.js'
import type { BotswanaTown } from '../geography.js'
import { LocalFrame, insideTestNear } from '../geo-math.js'
import type { Random } from '../random.js'
import {
  allocate,
  blockPitch,
  orderCellsOutward,
  standOffsetX,
  standOffsetY,
  type BlockPlan,
} from '../street-blocks.js'

/** No plot is farther than this from its town centre (the spec'd limit is 25 km). */
export const MAX_TOWN_RADIUS_M = 24_500
/** A tribal area keeps at least this distance from every plot of the town's first area. */
export const TRIBAL_GAP_M = 3_200
// share of extension-sized cells left empty (open land, schools, a dam)
const VACANT_CELL_SHARE = 0.08

/** How one town is generated. */
export interface BotswanaTownPlan {
  town: BotswanaTown
  /** Index in {@link Geography.botswanaTowns}. */
  townIndex: number
  rows: number
  primaryRows: number
  /** 0 unless the town has a tribal area. */
  tribalRows: number
  /** First plot number of each numbering range. */
  start: number
  block: BlockPlan
  /** Blocks per extension, across and down. */
  blocksX: number
  blocksY: number
  /** Road reserve between extensions, metres. */
  arterialM: number
  /** Ground per plot including streets and vacant land, m². */
  areaPerPlotM2: number
  /** Estimated radius of the first area, metres (drives the town partition). */
  radiusEstM: number
  streamLabel: string
}

/**
 * Plot counts and street plans for the 26 towns (count weighted by population). Deterministic
 * for a seed, so later layers can reuse it.
 */
export function planBotswanaTowns(ctx: SynthContext): BotswanaTownPlan[] {
  const rnd = ctx.random('plots/plan')
  const towns = ctx.geography.botswanaTowns
  const total = ctx.scale.botswanaPlots
  const min = Math.max(12, Math.min(ctx.scale.plotsPerExtension, Math.floor(total / towns.length / 4)))
  const rows = allocate(
    total,
    towns.map((t) => t.population),
    towns.map(() => min),
    towns.map(() => Infinity),
  )
  return towns.map((town, townIndex) => {
    const r = rnd.fork(town.name)
    const urban = town.kind !== 'village'
    const frontageM = urban ? r.range(20, 28) : r.range(26, 38)
    const block: BlockPlan = {
      frontageM,
      depthM: Math.min(40, frontageM * r.range(1.15, 1.45)),
      standsPerRow: r.int(6, 12),
      streetM: r.range(12, 16),
      angleRad: r.range(-0.35, 0.35),
    }
    const pitch = blockPitch(block)
    const blocksPerExt = Math.max(1, Math.ceil(ctx.scale.plotsPerExtension / (2 * block.standsPerRow)))
    const blocksX = Math.max(1, Math.round(Math.sqrt((blocksPerExt * pitch.y) / pitch.x)))
    const blocksY = Math.max(1, Math.ceil(blocksPerExt / blocksX))
    const arterialM = r.range(30, 50)
    const cellArea = (blocksX * pitch.x + arterialM) * (blocksY * pitch.y + arterialM)
    const areaPerPlotM2 = cellArea / (blocksX * blocksY * 2 * block.standsPerRow) / (1 - VACANT_CELL_SHARE)
    // tribal land takes 30-45 % of a village's plots
    const tribalRows = town.tribalArea ? Math.max(1, Math.round(rows[townIndex] * r.range(0.3, 0.45))) : 0
    const primaryRows = rows[townIndex] - tribalRows
    return {
      town,
      townIndex,
      rows: rows[townIndex],
      primaryRows,
      tribalRows,
      start: r.pick([1, 1, 1, 1, 1, 101, 1001]),
      block,
      blocksX,
      blocksY,
      arterialM,
      areaPerPlotM2,
      radiusEstM: Math.sqrt((primaryRows * areaPerPlotM2) / Math.PI),
      streamLabel: `plots/town/${town.name}`,
    }
  })
}

/** Index of the town a point belongs to (additively weighted partition). */
function ownerOf(plans: BotswanaTownPlan[], lon: number, lat: number): number {
  const cosLat = Math.cos((lat * Math.PI) / 180)
  let best = -1
  let bestScore = Infinity
  for (let i = 0; i < plans.length; i++) {
    const t = plans[i].town
    const dx = (t.lon - lon) * 111_320 * cosLat
    const dy = (t.lat - lat) * 110_950
    const score = Math.sqrt(dx * dx + dy * dy) - plans[i].radiusEstM
    if (score < bestScore) {
      bestScore = score
      best = i
    }
  }
  return best
}

/** Plots of one area, before numbering. */
interface Placement {
  lon: Float64Array
  lat: Float64Array
  /** Extension (cell) ordinal of each plot, increasing. */
  ext: Int32Array
  /** Largest distance of a plot from the town centre, metres. */
  maxDistM: number
}

/**
 * Fills extensions outward from (ox, oy) metres in the town frame until `rows` plots pass
 * `accept`. Returns null when the cells run out first.
 */
function placeArea(
  plan: BotswanaTownPlan,
  frame: LocalFrame,
  ox: number,
  oy: number,
  rows: number,
  cellFactor: number,
  rnd: Random,
  accept: (lon: number, lat: number, distM: number) => boolean,
): Placement | null {
  const { block, blocksX, blocksY } = plan
  const pitch = blockPitch(block)
  const perBlock = 2 * block.standsPerRow
  const perCell = perBlock * blocksX * blocksY
  const cellW = blocksX * pitch.x + plan.arterialM
  const cellH = blocksY * pitch.y + plan.arterialM
  const cells = orderCellsOutward(Math.ceil(rows / perCell) * cellFactor + 4, cellW, cellH, rnd)
  const cos = Math.cos(block.angleRad)
  const sin = Math.sin(block.angleRad)
  const jx = block.frontageM * 0.08
  const jy = block.depthM * 0.06
  const out: Placement = {
    lon: new Float64Array(rows),
    lat: new Float64Array(rows),
    ext: new Int32Array(rows),
    maxDistM: 0,
  }
  let n = 0
  let extOrdinal = -1
  for (let m = 0; m < cells.length && n < rows; m += 2) {
    if (m > 0 && rnd.chance(VACANT_CELL_SHARE)) continue
    const cx = cells[m] * cellW
    const cy = cells[m + 1] * cellH
    let used = false
    for (let bj = 0; bj < blocksY && n < rows; bj++) {
      for (let bi = 0; bi < blocksX && n < rows; bi++) {
        const bx = cx + (bi - (blocksX - 1) / 2) * pitch.x
        const by = cy + (bj - (blocksY - 1) / 2) * pitch.y
        for (let k = 0; k < perBlock && n < rows; k++) {
          const x = bx + standOffsetX(block, k) + rnd.range(-jx, jx)
          const y = by + standOffsetY(block, k) + rnd.range(-jy, jy)
          const tx = ox + x * cos - y * sin
          const ty = oy + x * sin + y * cos
          const lon = frame.lon(tx)
          const lat = frame.lat(ty)
          const dist = Math.sqrt(tx * tx + ty * ty)
          if (!accept(lon, lat, dist)) continue
          if (!used) {
            used = true
            extOrdinal++
          }
          out.lon[n] = lon
          out.lat[n] = lat
          out.ext[n] = extOrdinal
          if (dist > out.maxDistM) out.maxDistM = dist
          n++
        }
      }
    }
  }
  return n === rows ? out : null
}

/** Summary of one extension, for SYNTH.json. */
interface ExtensionSummary {
  name: string
  area: 'first' | 'tribal'
  plots: number
  first_plot: number
  last_plot: number
}

/** Names extensions the way the towns do: Extension / Block / Phase, wards, tribal wards. */
function createExtensionNamer(plan: BotswanaTownPlan, rnd: Random): (area: 'first' | 'tribal') => string {
  const counters = new Map<string, number>()
  const next = (prefix: string): string => {
    const n = (counters.get(prefix) ?? 0) + 1
    counters.set(prefix, n)
    return `${prefix} ${n}`
  }
  return (area) => {
    if (area === 'tribal') return next('Tribal Ward')
    if (plan.town.kind === 'village') return next('Ward')
    const u = rnd.float()
    return next(u < 0.7 ? 'Extension' : u < 0.85 ? 'Block' : 'Phase')
  }
}

/** The Botswana plots layer. */
export const botswanaPlots: LayerGenerator = {
  name: 'plots',
  domain: 'plots',
  description: 'botswana/plots.csv: plots of the 26 Botswana towns, numbers recurring across and within towns',
  async generate(ctx) {
    const plans = planBotswanaTowns(ctx)
    const { botswana } = ctx.geography
    const out = ctx.openCsv('botswana/plots.csv', ['plot_number', 'latitude', 'longitude', 'city', 'district'])
    const progress = ctx.progress('plots', ctx.scale.botswanaPlots)
    const details: unknown[] = []
    let townsWithRecurrence = 0

    for (const plan of plans) {
      const { town } = plan
      const rnd = ctx.random(plan.streamLabel)
      const frame = new LocalFrame(town.lon, town.lat)
      const inBotswana = insideTestNear(botswana, town.lon, town.lat, MAX_TOWN_RADIUS_M + 2_000)
      const mine = (lon: number, lat: number): boolean => ownerOf(plans, lon, lat) === plan.townIndex

      // first area around the centre; widen the search, then drop the partition, if squeezed
      let primary: Placement | null = null
      for (const [factor, partition] of [
        [4, true],
        [16, true],
        [16, false],
      ] as const) {
        if (!partition) ctx.log(`  plots: ${town.name} spills into a neighbouring town's land`)
        primary = placeArea(
          plan,
          frame,
          0,
          0,
          plan.primaryRows,
          factor,
          rnd.fork(`first/${factor}/${partition}`),
          (lon, lat, d) => d <= MAX_TOWN_RADIUS_M && inBotswana(lon, lat) && (!partition || mine(lon, lat)),
        )
        if (primary) break
      }
      if (!primary) throw new Error(`no room for ${plan.primaryRows} plots around ${town.name}`)

      // tribal area: a second blob beyond the first area's reach plus the gap, in whichever
      // direction has room (own part of the partition, inside Botswana, within 25 km)
      let tribal: Placement | null = null
      let tribalCentreM = 0
      let tribalOverlapsNeighbours = false
      if (plan.tribalRows > 0) {
        const innerM = primary.maxDistM + TRIBAL_GAP_M
        const radiusM = Math.sqrt((plan.tribalRows * plan.areaPerPlotM2) / Math.PI)
        const phi0 = rnd.range(0, 2 * Math.PI)
        search: for (const partition of [true, false]) {
          const accept = (lon: number, lat: number, d: number): boolean =>
            d >= innerM && d <= MAX_TOWN_RADIUS_M && inBotswana(lon, lat) && (!partition || mine(lon, lat))
          for (const reach of [1.1, 0.5, 2, 3]) {
            const centreM = Math.min(innerM + radiusM * reach, MAX_TOWN_RADIUS_M - radiusM * 0.3)
            for (let k = 0; k < 24; k++) {
              const phi = phi0 + (k * 2 * Math.PI) / 24
              const ox = centreM * Math.cos(phi)
              const oy = centreM * Math.sin(phi)
              if (!accept(frame.lon(ox), frame.lat(oy), centreM)) continue
              tribal = placeArea(
                plan,
                frame,
                ox,
                oy,
                plan.tribalRows,
                6,
                rnd.fork(`tribal/${partition}/${reach}/${k}`),
                accept,
              )
              if (tribal) {
                tribalCentreM = centreM
                tribalOverlapsNeighbours = !partition
                break search
              }
            }
          }
        }
        if (!tribal) {
          throw new Error(
            `no room for the ${plan.tribalRows} tribal plots of ${town.name} between ${Math.round(innerM)} m and ${MAX_TOWN_RADIUS_M} m from its centre`,
          )
        }
        if (tribalOverlapsNeighbours)
          ctx.log(`  plots: the tribal area of ${town.name} reaches into a neighbouring town's land`)
        townsWithRecurrence++
      }

      // number and write: each area numbers from the town's start
      const suffix = `,${csvField(town.name)},${csvField(town.district)}\n`
      const nameExtension = createExtensionNamer(plan, rnd.fork('names'))
      const extensions: ExtensionSummary[] = []
      const writeArea = (p: Placement, area: 'first' | 'tribal'): void => {
        let number = plan.start - 1
        let current: ExtensionSummary | null = null
        let lastExt = -1
        for (let i = 0; i < p.lon.length; i++) {
          if (p.ext[i] !== lastExt) {
            lastExt = p.ext[i]
            // a new extension often starts its numbers at the next hundred
            if (current && rnd.chance(0.3)) number = Math.ceil(number / 100) * 100
            current = { name: nameExtension(area), area, plots: 0, first_plot: number + 1, last_plot: number + 1 }
            extensions.push(current)
          }
          number += current!.plots > 0 && rnd.chance(0.01) ? rnd.int(2, 4) : 1
          current!.plots++
          current!.last_plot = number
          out.line(`${number},${p.lat[i].toFixed(7)},${p.lon[i].toFixed(7)}${suffix}`)
          if ((i & 4095) === 4095) progress(out.rows)
        }
        progress(out.rows)
      }
      writeArea(primary, 'first')
      if (tribal) writeArea(tribal, 'tribal')

      details.push({
        town: town.name,
        district: town.district,
        position: { lon: town.lon, lat: town.lat, source: town.positionSource, wof_id: town.wofId ?? null },
        plots: plan.rows,
        first_area: { plots: plan.primaryRows, radius_m: Math.round(primary.maxDistM) },
        tribal_area: tribal
          ? {
              plots: plan.tribalRows,
              centre_distance_m: Math.round(tribalCentreM),
              overlaps_neighbours: tribalOverlapsNeighbours,
              max_distance_m: Math.round(tribal.maxDistM),
              min_gap_to_first_area_m: TRIBAL_GAP_M,
            }
          : null,
        number_start: plan.start,
        extensions,
      })
    }
    out.close()

    return {
      layer: 'plots',
      domain: 'plots',
      files: [{ path: 'botswana/plots.csv', rows: out.rows, bytes: out.bytes }],
      counts: { plots: out.rows, towns: plans.length, towns_with_tribal_area: townsWithRecurrence },
      details: { towns: details },
    }
  },
}
