/**
 * The chain at a point on a date: the resolution rules that pick the province, district,
 * municipality, ward, registration division, Deeds Office and township (spec resolution rules;
 * docs/decisions.md for edges and metros), the notes that explain the answer, and the link objects.
 */
import { CHAIN_TYPES, type ChainType } from '../../data/jurisdiction-format.js'
import { inForce, linkOf, type BoundaryRow, type BoundarySetInfo, type Link } from './records.js'
import type { LayerGrids } from './layer-grids.js'
import type { JurisdictionStore } from './store.js'

export type Chain = Record<ChainType, Link | null>

/** The records of a chain by type, as rowsAt puts them. */
export type ChainRows = Partial<Record<ChainType, BoundaryRow>>

export interface Resolution {
  /** False when nothing at all contains the point on that date (outside the demarcated area). */
  found: boolean
  jurisdiction: Chain
  notes: string[]
  /** The records behind the chain, for callers that need more than the links. */
  rows: ChainRows
}

/** What the ward layer offers on a date (see ChainResolver.wardState). */
interface WardState {
  any: boolean
  geometryless: { set: BoundarySetInfo; vintage: string }[]
}

/** Whether a dated layer (province, district, municipality, ward) placed the point. */
function datedFound(got: ChainRows): boolean {
  return Boolean(got.ward || got.local_municipality || got.district_municipality || got.province)
}

function emptyChain(): Chain {
  return {
    province: null,
    district_municipality: null,
    local_municipality: null,
    ward: null,
    registration_division: null,
    deeds_office: null,
    township: null,
  }
}

/** The chain of one open dataset, with the caches its answers share. */
export class ChainResolver {
  // one frozen link object per boundary, shared by every answer that names it
  private readonly links = new Map<number, Link>()
  private readonly wardStateMemo = new Map<string, WardState>()
  /** Per metro, its note (one string shared by every answer). */
  private readonly metroNotes = new Map<number, string>()
  private readonly deedsNote: string | null

  constructor(private readonly store: JurisdictionStore) {
    this.deedsNote = store.hasType('deeds_office')
      ? `No Deeds Office area is published here: the layer covers ${store.provincesWith('deeds_office').join(', ')} only.`
      : null
  }

  /** The frozen link object of a record. */
  frozenLink(r: BoundaryRow): Link {
    let l = this.links.get(r.id)
    if (!l) this.links.set(r.id, (l = Object.freeze(linkOf(r))))
    return l
  }

  /**
   * What the ward layer offers on a date: whether any ward is in force, and the sets in force
   * that were published without geometry (the 2016 delimitation). Memoised per date: the chain
   * asks on every point.
   */
  private wardState(d: string): WardState {
    let st = this.wardStateMemo.get(d)
    if (!st) {
      const inForceNow = this.store.all.filter((r) => r.type === 'ward' && inForce(r, d))
      const names = new Set(inForceNow.filter((r) => r.bbox === null).map((r) => r.setName))
      st = {
        any: inForceNow.length > 0,
        geometryless: this.store.sets
          .filter((x) => names.has(x.name))
          .map((set) => ({ set, vintage: inForceNow.find((r) => r.setName === set.name)!.vintage })),
      }
      if (this.wardStateMemo.size > 10_000) this.wardStateMemo.clear()
      this.wardStateMemo.set(d, st)
    }
    return st
  }

  private metroNote(r: BoundaryRow): string {
    let n = this.metroNotes.get(r.id)
    if (!n)
      this.metroNotes.set(
        r.id,
        (n = `${r.code} is a metropolitan municipality (category A): it has no district municipality.`),
      )
    return n
  }

  /**
   * The records of the chain at a point on date `d`, put into `got` (spec resolution rules;
   * docs/decisions.md for edges and metros); true when a dated layer answers. Before the earliest set
   * (or with none installed): false, and nothing put.
   */
  rowsAt(lon: number, lat: number, d: string, got: ChainRows): boolean {
    const { earliest, rows } = this.store
    const grids: LayerGrids = this.store.grids
    if (earliest === null || d < earliest) return false
    // the most detailed dated layer first, then its parents by code
    const ward = grids.pip('ward', lon, lat, d)
    let local: BoundaryRow | null = null
    if (ward) {
      got.ward = ward
      local =
        ward.parentId !== null && rows[ward.parentId].type === 'local_municipality' && inForce(rows[ward.parentId], d)
          ? rows[ward.parentId]
          : null
    } else {
      local = grids.pip('local_municipality', lon, lat, d)
    }
    // a ward whose municipality code names no municipality in force: the municipal layer answers
    if (ward && !local) local = grids.pip('local_municipality', lon, lat, d)
    let district: BoundaryRow | null = null
    let province: BoundaryRow | null = null
    if (local) {
      got.local_municipality = local
      if (local.category === 'A') {
        province = local.parentId !== null && rows[local.parentId].type === 'province' ? rows[local.parentId] : null
      } else if (local.parentId !== null && rows[local.parentId].type === 'district_municipality') {
        district = rows[local.parentId]
      }
    }
    if (!district && !(local && local.category === 'A')) {
      district = grids.pip('district_municipality', lon, lat, d)
      if (district && district.category === 'A') district = null
    }
    if (district) {
      got.district_municipality = district
      if (!province && district.parentId !== null && rows[district.parentId].type === 'province')
        province = rows[district.parentId]
    }
    if (!province && local?.province) province = this.store.byCode('province', local.province, d)
    if (!province) province = grids.pip('province', lon, lat, d)
    if (province) got.province = province

    // the cadastral register (undated) answers on any date a dated set is in force, and on its
    // own where no dated boundary holds the point (docs/decisions.md "Jurisdiction 404")
    const division = grids.pip('registration_division', lon, lat, d)
    if (division) got.registration_division = division
    const office = grids.pip('deeds_office', lon, lat, d)
    if (office) got.deeds_office = office
    const township = grids.pip('township', lon, lat, d)
    if (township) got.township = township
    return datedFound(got) || Boolean(division || office || township)
  }

  /** The notes of the chain `rowsAt` gave on `d`: they follow from the date and the records alone. */
  notesOf(d: string, got: ChainRows, found: boolean): string[] {
    const earliest = this.store.earliest
    const notes: string[] = []
    if (earliest === null || d < earliest) {
      notes.push(
        earliest === null
          ? 'No dated boundary set is installed, so no chain can be resolved.'
          : `No boundary set was in force on ${d}: the earliest installed set took force on ${earliest}. The chain is empty.`,
      )
      return notes
    }
    const local = got.local_municipality
    if (!got.ward) {
      const st = this.wardState(d)
      if (st.geometryless.length) {
        const { set: s, vintage } = st.geometryless[0]
        notes.push(
          `Ward not resolved: the ward set in force on ${d} (${vintage}` +
            (s.effectiveFrom ? `, ${s.effectiveFrom} to ${s.effectiveTo ?? 'today'}` : '') +
            ') is installed ' +
            `without boundary geometry, so no ward can be placed; the other levels are answered.`,
        )
      }
      // (without a ward, the municipality came from the municipal layer)
      if (local && st.any && !st.geometryless.length) {
        notes.push(
          'Ward not resolved: the point lies in a gap between the ward polygons (the published ward layer is ' +
            'simplified); the municipality was resolved from the municipal layer.',
        )
      }
    }
    if (local && local.category === 'A') notes.push(this.metroNote(local))
    if (found && !got.deeds_office && this.deedsNote) notes.push(this.deedsNote)
    if (found && !datedFound(got))
      notes.push(
        `No demarcated boundary in force on ${d} contains the point (no province, municipality or ward): ` +
          'only the cadastral register places it.',
      )
    return notes
  }

  /** The chain of link objects of the records `rowsAt` gave. */
  chainOf(got: ChainRows): Chain {
    const chain = emptyChain()
    for (const t of CHAIN_TYPES) {
      const r = got[t]
      if (r) chain[t] = this.frozenLink(r)
    }
    return chain
  }

  /** The chain at a point on date `d` (spec resolution rules; docs/decisions.md for edges and metros). */
  chainAt(lon: number, lat: number, d: string): Resolution {
    const got: ChainRows = {}
    const found = this.rowsAt(lon, lat, d, got)
    const notes = this.notesOf(d, got, found)
    return { found, jurisdiction: this.chainOf(got), notes, rows: got }
  }
}
