import Flatbush from 'flatbush'
import type { OpenDataset } from '../../data/open-dataset.js'
import { BOUNDARY_TYPES, CHAIN_TYPES, DATED_TYPES, JURISDICTION_FILES, OVERVIEW_TOLERANCE_M, type BoundaryType, type ChainType } from '../../data/jurisdiction-format.js'
import { PARCEL_FILES } from '../../data/parcels-format.js'
import { lpiRowReader, publishedVersion } from '../../data/parcel-readers.js'
import { decodeGeometry, type MultiPolygon } from '../../data/geometry-blob.js'
import { PROVINCES, type ProvinceCode } from '../../data/provinces.js'
import { BandedPolygon } from '../../geo/banded-pip.js'
import { GridIndex } from '../../geo/grid-index.js'
import { distanceToPointM, ON_EDGE_DEG, simplifyPreserveTopology } from '../../geo/polygon.js'
import { TrigramIndex } from './trigram.js'
import { round } from '../../geo/round.js'

/** One boundary record, held in memory (geometry is read on demand). */
export interface BoundaryRow {
  id: number
  type: BoundaryType
  code: string
  name: string
  category: string | null
  province: string | null
  parentId: number | null
  wardNumber: number | null
  setName: string
  vintage: string
  from: string | null
  to: string | null
  areaSqm: number | null
  bbox: [number, number, number, number] | null
  label: [number, number] | null
  vertices: number
}

/** A link object of the chain (spec: code, name, category, vintage, effective_from). */
export interface Link {
  code: string
  name: string
  category?: string
  vintage: string
  effective_from?: string
}

export type Chain = Record<ChainType, Link | null>

/** One item of a batch answer: its JSON text and the same as UTF-8 bytes. */
export interface BatchItem {
  json: string
  bytes: Buffer
  /** false for the empty chain answered before the earliest set */
  found: boolean
}

export interface Resolution {
  /** False when nothing at all contains the point on that date (outside the demarcated area). */
  found: boolean
  jurisdiction: Chain
  notes: string[]
  /** The records behind the chain, for callers that need more than the links. */
  rows: Partial<Record<ChainType, BoundaryRow>>
}

export interface BoundarySetInfo {
  name: string
  source: string | null
  effectiveFrom: string | null
  effectiveTo: string | null
  geometry: boolean
}

export interface ListFilter {
  asAt: string
  province?: ProvinceCode
  municipality?: string
  parent?: string
}

/** The type one level down from each type (the pre-1994 areas and Deeds Offices have none). */
const CHILD_TYPE: Partial<Record<BoundaryType, BoundaryType>> = {
  province: 'district_municipality',
  district_municipality: 'local_municipality',
  local_municipality: 'ward',
  registration_division: 'township',
  township: 'suburb',
}


/** Spreads the low 16 bits of v to the even bits. */
function spread16(v: number): number {
  v &= 0xffff
  v = (v | (v << 8)) & 0x00ff00ff
  v = (v | (v << 4)) & 0x0f0f0f0f
  v = (v | (v << 2)) & 0x33333333
  v = (v | (v << 1)) & 0x55555555
  return v
}

/** Morton (Z-order) code of the 1/64° cell of a point: nearby points get nearby codes. */
function morton(lon: number, lat: number): number {
  const x = Math.min(0x7fff, Math.max(0, Math.floor((lon + 180) * 64)))
  const y = Math.min(0x7fff, Math.max(0, Math.floor((lat + 90) * 64)))
  // 30 bits: non-negative as an int32, so >>> 0 is not needed
  return spread16(x) | (spread16(y) << 1)
}

export function inForce(r: { from: string | null; to: string | null }, d: string): boolean {
  return (r.from === null || r.from <= d) && (r.to === null || d < r.to)
}

export type JurisdictionQueries = ReturnType<typeof createJurisdictionQueries>

export function createJurisdictionQueries(ds: OpenDataset) {
  const m = ds.domain('jurisdiction')!
  const version = m.dataset_version
  const asOf = m.as_of
  const db = ds.sqlite(JURISDICTION_FILES.sqlite)

  // ---- every record in memory (tens of thousands of rows, a few MB)
  const rows: BoundaryRow[] = [] // index = id
  for (const a of db
    .prepare(
      `SELECT id, type, code, name, category, province, parent_id, ward_number, set_name, vintage, effective_from, effective_to, area_sqm,
              min_x, min_y, max_x, max_y, label_lon, label_lat, vertices FROM boundary ORDER BY id`,
    )
    .raw()
    .all() as unknown[][]) {
    const id = a[0] as number
    rows[id] = {
      id,
      type: a[1] as BoundaryType,
      code: a[2] as string,
      name: a[3] as string,
      category: a[4] as string | null,
      province: a[5] as string | null,
      parentId: a[6] as number | null,
      wardNumber: a[7] as number | null,
      setName: a[8] as string,
      vintage: a[9] as string,
      from: a[10] as string | null,
      to: a[11] as string | null,
      areaSqm: a[12] as number | null,
      bbox: a[13] === null ? null : [a[13] as number, a[14] as number, a[15] as number, a[16] as number],
      label: a[17] === null ? null : [a[17] as number, a[18] as number],
      vertices: a[19] as number,
    }
  }
  const all = rows.filter(Boolean)
  const sets: BoundarySetInfo[] = (db.prepare('SELECT name, source, effective_from, effective_to, geometry FROM boundary_set ORDER BY name').all() as {
    name: string
    source: string | null
    effective_from: string | null
    effective_to: string | null
    geometry: number
  }[]).map((s) => ({ name: s.name, source: s.source, effectiveFrom: s.effective_from, effectiveTo: s.effective_to, geometry: s.geometry === 1 }))

  const byTypeCode = new Map<string, BoundaryRow[]>()
  const children = new Map<number, BoundaryRow[]>()
  for (const r of all) {
    const k = `${r.type}|${r.code}`
    const l = byTypeCode.get(k)
    if (l) l.push(r)
    else byTypeCode.set(k, [r])
    if (r.parentId !== null) {
      const c = children.get(r.parentId)
      if (c) c.push(r)
      else children.set(r.parentId, [r])
    }
  }
  const ancestorsOf = (r: BoundaryRow): BoundaryRow[] => {
    const out: BoundaryRow[] = []
    for (let p = r.parentId, guard = 0; p !== null && guard < 8; p = rows[p].parentId, guard++) out.push(rows[p])
    return out
  }

  /** The earliest date a dated set took force; before it nothing answers (spec resolution rule 2). */
  let earliest: string | null = null
  for (const r of all) if (r.from !== null && (earliest === null || r.from < earliest)) earliest = r.from

  // ---- spatial indexes per type
  const indexes = new Map<BoundaryType, { index: Flatbush; ids: Uint32Array }>()
  for (const t of BOUNDARY_TYPES) {
    if (!ds.has(JURISDICTION_FILES.flatbush(t))) continue
    indexes.set(t, { index: Flatbush.from(ds.arrayBuffer(JURISDICTION_FILES.flatbush(t))), ids: new Uint32Array(ds.arrayBuffer(JURISDICTION_FILES.ids(t))) })
  }
  const geomStmt = db.prepare('SELECT geom FROM boundary WHERE id = ?').pluck()
  const loStmt = db.prepare('SELECT geom_lo FROM boundary WHERE id = ?').pluck()
  const blobOf = (id: number): Uint8Array => geomStmt.get(id) as Uint8Array
  // the boundaries points were tested against, kept banded for constant-time tests (at national
  // scale every boundary with geometry fits in a few tens of MB)
  // (indexed by id: an array read, not a map lookup, on the hot path)
  const banded: (BandedPolygon | undefined)[] = new Array(rows.length)
  const bandedOf = (id: number): BandedPolygon => (banded[id] ??= new BandedPolygon(decodeGeometry(blobOf(id))))

  const installedTypes = BOUNDARY_TYPES.filter((t) => all.some((r) => r.type === t))
  const hasType = (t: BoundaryType) => installedTypes.includes(t)

  // point queries go through a uniform grid per type and source set (one cell read, no tree
  // walk, no allocation); a query reads only the grids of the sets in force on its date
  interface SetGrid {
    grid: GridIndex
    ids: Uint32Array
    /** the widest dates of the set's records, to skip grids not in force */
    from: string | null
    to: string | null
    /** every record has exactly those dates: in force whenever the grid is (no test per record) */
    sameDates: boolean
  }
  const grids = new Map<BoundaryType, SetGrid[]>()
  for (const [t, ix] of indexes) {
    const bySet = new Map<string, number[]>()
    for (const id of ix.ids) {
      const l = bySet.get(rows[id].setName)
      if (l) l.push(id)
      else bySet.set(rows[id].setName, [id])
    }
    const list: SetGrid[] = []
    for (const ids of bySet.values()) {
      const boxes = new Float64Array(ids.length * 4)
      ids.forEach((id, i) => boxes.set(rows[id].bbox!, 4 * i))
      const froms = ids.map((id) => rows[id].from)
      const tos = ids.map((id) => rows[id].to)
      const from = froms.includes(null) ? null : froms.reduce((a, b) => (a! < b! ? a : b))
      const to = tos.includes(null) ? null : tos.reduce((a, b) => (a! > b! ? a : b))
      list.push({
        grid: new GridIndex(boxes),
        ids: new Uint32Array(ids),
        from,
        to,
        sameDates: froms.every((f) => f === from) && tos.every((x) => x === to),
      })
    }
    grids.set(t, list)
  }
  /** The grids in force on a date, per type (kept for the last date asked: a batch asks one). */
  let gridsDate: string | null = null
  let gridsInForce = new Map<BoundaryType, SetGrid[]>()
  const gridsOn = (d: string): Map<BoundaryType, SetGrid[]> => {
    if (d !== gridsDate) {
      gridsInForce = new Map([...grids].map(([t, list]) => [t, list.filter((g) => inForce(g, d))]))
      gridsDate = d
    }
    return gridsInForce
  }
  const EDGE_TOL = 2 * ON_EDGE_DEG

  /** Every record of `type` in force on `d` whose closed polygon holds the point. */
  function containing(type: BoundaryType, lon: number, lat: number, d: string): BoundaryRow[] {
    const out: BoundaryRow[] = []
    for (const g of grids.get(type) ?? []) {
      if (!inForce(g, d)) continue
      g.grid.forEachAt(lon, lat, (i) => {
        const r = rows[g.ids[i]]
        if (inForce(r, d) && bandedOf(r.id).contains(lon, lat)) out.push(r)
      }, EDGE_TOL)
    }
    return out
  }
  /**
   * The record of `type` in force on `d` holding the point; on a shared edge the one with the
   * lowest code (DECISIONS.md), so a coordinate always gives the same answer.
   */
  function pip(type: BoundaryType, lon: number, lat: number, d: string): BoundaryRow | null {
    const list = gridsOn(d).get(type)
    if (list === undefined) return null
    let best: BoundaryRow | null = null
    // GridIndex.forEachAt(lon, lat, …, EDGE_TOL) written out: this runs several times per point
    for (let gi = 0; gi < list.length; gi++) {
      const g = list[gi]
      const grid = g.grid
      const k = grid.cellAt(lon, lat, EDGE_TOL)
      if (k < 0) continue
      const { items, boxes, offsets } = grid
      for (let p = offsets[k], end = offsets[k + 1]; p < end; p++) {
        const i = items[p]
        if (lon < boxes[4 * i] - EDGE_TOL || lat < boxes[4 * i + 1] - EDGE_TOL || lon > boxes[4 * i + 2] + EDGE_TOL || lat > boxes[4 * i + 3] + EDGE_TOL) continue
        const r = rows[g.ids[i]]
        if (best !== null && (r.code > best.code || (r.code === best.code && r.id > best.id))) continue
        if ((g.sameDates || inForce(r, d)) && bandedOf(r.id).contains(lon, lat)) best = r
      }
    }
    return best
  }

  /** The record of `type` with `code` in force on `d`. */
  function byCode(type: BoundaryType, code: string, d: string): BoundaryRow | null {
    const l = byTypeCode.get(`${type}|${code}`)
    if (!l) return null
    for (const r of l) if (inForce(r, d)) return r
    return null
  }

  // one frozen link object per boundary, shared by every answer that names it
  const links = new Map<number, Link>()
  const link = (r: BoundaryRow): Link => {
    let l = links.get(r.id)
    if (!l) links.set(r.id, (l = Object.freeze(makeLink(r))))
    return l
  }
  const makeLink = (r: BoundaryRow): Link => {
    // keys in the spec's order: code, name, category, vintage, effective_from
    const l: Record<string, string> = { code: r.code, name: r.name }
    if (r.category) l.category = r.category
    l.vintage = r.vintage
    if (DATED_TYPES.has(r.type) && r.from) l.effective_from = r.from
    return l as unknown as Link
  }

  const typesInForce = (type: BoundaryType, d: string) => all.filter((r) => r.type === type && inForce(r, d))
  /**
   * What the ward layer offers on a date: whether any ward is in force, and the sets in force
   * that were published without geometry (the 2016 delimitation). Memoised per date: the chain
   * asks on every point.
   */
  const wardStateMemo = new Map<string, { any: boolean; geometryless: { set: BoundarySetInfo; vintage: string }[] }>()
  function wardState(d: string) {
    let st = wardStateMemo.get(d)
    if (!st) {
      const inForceNow = typesInForce('ward', d)
      const names = new Set(inForceNow.filter((r) => r.bbox === null).map((r) => r.setName))
      st = {
        any: inForceNow.length > 0,
        geometryless: sets.filter((x) => names.has(x.name)).map((set) => ({ set, vintage: inForceNow.find((r) => r.setName === set.name)!.vintage })),
      }
      if (wardStateMemo.size > 10_000) wardStateMemo.clear()
      wardStateMemo.set(d, st)
    }
    return st
  }
  const provincesByType = new Map<BoundaryType, string[]>()
  for (const t of BOUNDARY_TYPES) provincesByType.set(t, [...new Set(all.filter((r) => r.type === t && r.province).map((r) => r.province!))].sort())
  const provincesWith = (type: BoundaryType): string[] => provincesByType.get(type) ?? []

  const deedsNote = hasType('deeds_office')
    ? `No Deeds Office area is published here: the layer covers ${provincesWith('deeds_office').join(', ')} only.`
    : null
  /** Per metro, its note (one string shared by every answer). */
  const metroNotes = new Map<number, string>()
  const metroNote = (r: BoundaryRow) => {
    let n = metroNotes.get(r.id)
    if (!n) metroNotes.set(r.id, (n = `${r.code} is a metropolitan municipality (category A): it has no district municipality.`))
    return n
  }

  const emptyChain = (): Chain => ({
    province: null,
    district_municipality: null,
    local_municipality: null,
    ward: null,
    registration_division: null,
    deeds_office: null,
    township: null,
  })

  /**
   * The records of the chain at a point on date `d`, put into `got` (spec resolution rules;
   * DECISIONS.md for edges and metros); true when a dated layer answers. Before the earliest set
   * (or with none installed): false, and nothing put.
   */
  function rowsAt(lon: number, lat: number, d: string, got: Partial<Record<ChainType, BoundaryRow>>): boolean {
    if (earliest === null || d < earliest) return false
    // the most detailed dated layer first, then its parents by code
    const ward = pip('ward', lon, lat, d)
    let local: BoundaryRow | null = null
    if (ward) {
      got.ward = ward
      local = ward.parentId !== null && rows[ward.parentId].type === 'local_municipality' && inForce(rows[ward.parentId], d) ? rows[ward.parentId] : null
    } else {
      local = pip('local_municipality', lon, lat, d)
    }
    // a ward whose municipality code names no municipality in force: the municipal layer answers
    if (ward && !local) local = pip('local_municipality', lon, lat, d)
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
      district = pip('district_municipality', lon, lat, d)
      if (district && district.category === 'A') district = null
    }
    if (district) {
      got.district_municipality = district
      if (!province && district.parentId !== null && rows[district.parentId].type === 'province') province = rows[district.parentId]
    }
    if (!province && local?.province) province = byCode('province', local.province, d)
    if (!province) province = pip('province', lon, lat, d)
    if (province) got.province = province

    const found = Boolean(got.ward || got.local_municipality || got.district_municipality || got.province)
    if (found) {
      // the cadastral register (undated) answers on any date once a dated set answers
      const division = pip('registration_division', lon, lat, d)
      if (division) got.registration_division = division
      const office = pip('deeds_office', lon, lat, d)
      if (office) got.deeds_office = office
      const township = pip('township', lon, lat, d)
      if (township) got.township = township
    }
    return found
  }

  /** The notes of the chain `rowsAt` gave on `d`: they follow from the date and the records alone. */
  function notesOf(d: string, got: Partial<Record<ChainType, BoundaryRow>>, found: boolean): string[] {
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
      const st = wardState(d)
      if (st.geometryless.length) {
        const { set: s, vintage } = st.geometryless[0]
        notes.push(
          `Ward not resolved: the ward set in force on ${d} (${vintage}${s.effectiveFrom ? `, ${s.effectiveFrom} to ${s.effectiveTo ?? 'today'}` : ''}) is installed without boundary geometry, so no ward can be placed; the other levels are answered.`,
        )
      }
      // (without a ward, the municipality came from the municipal layer)
      if (local && st.any && !st.geometryless.length) {
        notes.push('Ward not resolved: the point lies in a gap between the ward polygons (the published ward layer is simplified); the municipality was resolved from the municipal layer.')
      }
    }
    if (local && local.category === 'A') notes.push(metroNote(local))
    if (found && !got.deeds_office && deedsNote) notes.push(deedsNote)
    return notes
  }

  /** The chain of link objects of the records `rowsAt` gave. */
  function chainOf(got: Partial<Record<ChainType, BoundaryRow>>): Chain {
    const chain = emptyChain()
    for (const t of CHAIN_TYPES) {
      const r = got[t]
      if (r) chain[t] = link(r)
    }
    return chain
  }

  /** The chain at a point on date `d` (spec resolution rules; DECISIONS.md for edges and metros). */
  function resolve(lon: number, lat: number, d: string): Resolution {
    const got: Partial<Record<ChainType, BoundaryRow>> = {}
    const found = rowsAt(lon, lat, d, got)
    const notes = notesOf(d, got, found)
    return { found, jurisdiction: chainOf(got), notes, rows: got }
  }

  const decoded = new Map<number, MultiPolygon>()
  const decodedOf = (id: number): MultiPolygon => {
    let g = decoded.get(id)
    if (!g) {
      g = decodeGeometry(blobOf(id))
      if (decoded.size > 256) decoded.clear()
      decoded.set(id, g)
    }
    return g
  }

  /**
   * Batch items `{"jurisdiction":…,"notes":[…]}` as JSON text and as UTF-8 bytes, per date and
   * per tuple of boundary ids (which determine the notes too): points in the same ward,
   * division, Deeds Office and township share one item, made once (bounded cache), so a batch
   * of thousands of points is mostly lookups, and its answer a copy of bytes, not serialisation.
   */
  const itemCache = new Map<string, Map<string, BatchItem>>()
  let itemCount = 0
  /** rowsAt's records for one point at a time, every key present (a fixed shape), reset per point */
  const scratch: Record<ChainType, BoundaryRow | undefined> = {
    province: undefined,
    district_municipality: undefined,
    local_municipality: undefined,
    ward: undefined,
    registration_division: undefined,
    deeds_office: undefined,
    township: undefined,
  }
  const clearScratch = () => {
    scratch.province = scratch.district_municipality = scratch.local_municipality = scratch.ward = undefined
    scratch.registration_division = scratch.deeds_office = scratch.township = undefined
    return scratch
  }
  const itemsOn = (d: string): Map<string, BatchItem> => {
    let m = itemCache.get(d)
    if (!m) {
      if (itemCache.size >= 1000) {
        itemCache.clear()
        itemCount = 0
      }
      itemCache.set(d, (m = new Map()))
    }
    return m
  }
  /** The item at a point on `d` from the cache `m` of that date, or null outside every boundary. */
  function itemAt(lon: number, lat: number, d: string, m: Map<string, BatchItem>): BatchItem | null {
    const got = clearScratch()
    const found = rowsAt(lon, lat, d, got)
    if (!found && !(earliest !== null && d < earliest)) return null
    const a = got.province?.id ?? 0
    const b = got.district_municipality?.id ?? 0
    const c = got.local_municipality?.id ?? 0
    const w = got.ward?.id ?? 0
    const r = got.registration_division?.id ?? 0
    const o = got.deeds_office?.id ?? 0
    const t = got.township?.id ?? 0
    // one UTF-16 code unit per id when they all fit (a short flat key that hashes fast), else two
    const key =
      (a | b | c | w | r | o | t) <= 0xffff
        ? String.fromCharCode(a, b, c, w, r, o, t)
        : String.fromCharCode(a >>> 16, a & 0xffff, b >>> 16, b & 0xffff, c >>> 16, c & 0xffff, w >>> 16, w & 0xffff, r >>> 16, r & 0xffff, o >>> 16, o & 0xffff, t >>> 16, t & 0xffff)
    let item = m.get(key)
    if (item === undefined) {
      const json = JSON.stringify({ jurisdiction: chainOf(got), notes: notesOf(d, got, found) })
      item = { json, bytes: Buffer.from(json, 'utf8'), found }
      if (itemCount >= 50_000) {
        for (const x of itemCache.values()) x.clear()
        itemCount = 0
      }
      m.set(key, item)
      itemCount++
    }
    return item
  }

  /**
   * The batch item `{"jurisdiction":…,"notes":[…]}` at a point (JSON text and UTF-8 bytes, from
   * the same bounded cache as the batch), or null outside every boundary (an empty chain with
   * its note before the earliest set). `GET /jurisdiction/at` writes its answer around it.
   */
  function resolveItem(lon: number, lat: number, d: string): BatchItem | null {
    return itemAt(lon, lat, d, itemsOn(d))
  }

  /**
   * The items of a batch in input order (null outside every boundary) and how many points
   * resolved. The points are visited in a spatial order (Morton order of 1/64° cells): one
   * after another they read the same grid cells and polygons, which stay in the CPU caches (a
   * third of the lookup time on points spread over the country); each item lands at its index.
   */
  function resolveBatch(points: readonly { latitude: number; longitude: number }[], d: string): { items: (BatchItem | null)[]; found: number } {
    const n = points.length
    const out = new Array<BatchItem | null>(n).fill(null)
    const m = itemsOn(d)
    let found = 0
    const visit = (i: number) => {
      const p = points[i]
      const item = itemAt(p.longitude, p.latitude, d, m)
      out[i] = item
      if (item !== null && item.found) found++
    }
    if (n < 64) {
      for (let i = 0; i < n; i++) visit(i)
      return { items: out, found }
    }
    // sort keys: Morton code * n + index (exact in a double: 30 bits of code, n < 2^23)
    const keys = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const p = points[i]
      keys[i] = morton(p.longitude, p.latitude) * n + i
    }
    keys.sort()
    for (let k = 0; k < n; k++) visit(keys[k] % n)
    return { items: out, found }
  }

  /** The nearest boundary of the most general installed dated type, for NoJurisdictionAtPoint. */
  function nearest(lon: number, lat: number, d: string, maxResults = 8): { boundary_type: BoundaryType; code: string; name: string; distance_meters: number } | null {
    for (const type of ['province', 'local_municipality', 'district_municipality', 'ward'] as const) {
      const ix = indexes.get(type)
      if (!ix) continue
      let best: { r: BoundaryRow; dist: number } | null = null
      // box-distance order; the exact distance settles among the first few in force
      for (const i of ix.index.neighbors(lon, lat, maxResults * 4)) {
        const r = rows[ix.ids[i]]
        if (!inForce(r, d)) continue
        const dist = distanceToPointM(decodedOf(r.id), lon, lat)
        if (!best || dist < best.dist) best = { r, dist }
      }
      if (best) return { boundary_type: type, code: best.r.code, name: best.r.name, distance_meters: round(best.dist, 2) }
    }
    return null
  }

  // ---- parcels (read from the parcel domain's files; the feature itself is not imported)
  const parcelDb = ds.domain('parcels') ? ds.sqlite(PARCEL_FILES.sqlite) : null
  // every visible version of an LPI; resolveParcel takes the published one (publishedVersion)
  const parcelRows =
    parcelDb && lpiRowReader<{ id: number; wstatus: string | null; lpi: string; label_lon: number; label_lat: number; geom: Buffer }>(ds, parcelDb, 'id, wstatus, lpi, label_lon, label_lat, geom', true)

  /**
   * The chain of a parcel from its label point, and the boundaries it straddles: judged from
   * its vertices and edge midpoints, a sample the label's boundary does not hold (closed set)
   * but another boundary of the same type does.
   */
  function resolveParcel(lpi: string, d: string): (Resolution & { lpi: string; label: [number, number] }) | null | 'no-parcels' {
    if (!parcelRows) return 'no-parcels'
    const p = publishedVersion(parcelRows(lpi))
    if (!p) return null
    const res = resolve(p.label_lon, p.label_lat, d)
    if (!res.found) return { ...res, lpi: p.lpi, label: [p.label_lon, p.label_lat] }
    const mp = decodeGeometry(p.geom)
    const samples: [number, number][] = []
    for (const poly of mp)
      for (const ring of poly)
        for (let i = 0; i < ring.length - 1; i++) {
          samples.push(ring[i], [(ring[i][0] + ring[i + 1][0]) / 2, (ring[i][1] + ring[i + 1][1]) / 2])
        }
    const straddled: string[] = []
    for (const t of CHAIN_TYPES) {
      const own = res.rows[t]
      const others = new Map<number, BoundaryRow>()
      for (const [x, y] of samples) {
        const here = containing(t, x, y, d)
        if (!here.length || (own && here.some((r) => r.id === own.id))) continue
        for (const r of here) others.set(r.id, r)
      }
      if (others.size) {
        const names = [own, ...[...others.values()].sort((a, b) => a.code.localeCompare(b.code))].filter((r): r is BoundaryRow => Boolean(r))
        straddled.push(`${t} ${names.map((r) => `${r.code} (${r.name})`).join(' and ')}`)
      }
    }
    if (straddled.length) {
      res.notes.push(`The parcel straddles boundaries: ${straddled.join('; ')}. The chain is resolved from its label point, which lies in the first of each.`)
    }
    return { ...res, lpi: p.lpi, label: [p.label_lon, p.label_lat] }
  }

  // ---- listing
  function list(type: BoundaryType, f: ListFilter): BoundaryRow[] {
    const out: BoundaryRow[] = []
    for (const r of all) {
      if (r.type !== type || !inForce(r, f.asAt)) continue
      if (f.province && r.province !== f.province) continue
      if (f.parent || f.municipality) {
        const anc = ancestorsOf(r)
        if (f.parent && !anc.some((a) => a.code === f.parent)) continue
        if (f.municipality && !anc.some((a) => (a.type === 'local_municipality' || a.type === 'district_municipality') && a.code === f.municipality)) continue
      }
      out.push(r)
    }
    return out.sort((a, b) => a.code.localeCompare(b.code) || a.id - b.id)
  }

  /**
   * One level down the hierarchy (wards of a municipality, municipalities of a district,
   * districts of a province, townships of a division, suburbs of a township); a metro's
   * district-file record has the metro itself below it.
   */
  function childrenOf(r: BoundaryRow, d: string): BoundaryRow[] {
    const want = CHILD_TYPE[r.type]
    if (!want) return []
    let list = (children.get(r.id) ?? []).filter((c) => c.type === want && inForce(c, d))
    if (r.type === 'district_municipality' && r.category === 'A') {
      const metro = byCode('local_municipality', r.code, d)
      if (metro) list = [metro, ...list]
    }
    return list.sort((a, b) => a.type.localeCompare(b.type) || a.code.localeCompare(b.code, 'en', { numeric: true }) || a.id - b.id)
  }

  // ---- fuzzy search over a trigram index built with the service (~60-80 ms at national scale):
  // built later (on a timer, or by the first search) it stalled whatever requests were in flight
  const trigram = new TrigramIndex(all.map((r) => r.name))
  function search(q: string, types: readonly BoundaryType[], d: string, limit: number): { row: BoundaryRow; similarity: number }[] {
    const wanted = new Set(types)
    const accept = (i: number) => {
      const r = all[i]
      return wanted.has(r.type) && inForce(r, d)
    }
    const out: { row: BoundaryRow; similarity: number }[] = []
    const seen = new Set<number>()
    // an exact code (JHB, DC48, 79800001) comes first
    const code = q.trim().toUpperCase()
    for (const t of types) {
      const r = byCode(t, code, d)
      if (r && out.length < limit) {
        out.push({ row: r, similarity: 1 })
        seen.add(r.id)
      }
    }
    for (const hit of trigram.search(q, { limit: limit + out.length, filter: accept })) {
      const r = all[hit.id]
      if (seen.has(r.id) || out.length >= limit) continue
      out.push({ row: r, similarity: hit.similarity })
    }
    return out
  }

  // ---- geometry
  const geometry = (r: BoundaryRow): MultiPolygon | null => (r.bbox ? decodeGeometry(blobOf(r.id)) : null)
  const overview = (r: BoundaryRow): MultiPolygon | null => {
    if (!r.bbox) return null
    const b = loStmt.get(r.id) as Uint8Array | null
    return b ? decodeGeometry(b) : geometry(r)
  }
  /**
   * The boundary simplified for a map at about `tolM` metres: the tolerance is rounded up to a
   * power of two and the result kept (bounded), so panning and repeated views cost nothing.
   */
  const simplifiedCache = new Map<string, MultiPolygon>()
  function simplifiedFor(r: BoundaryRow, tolM: number): { geometry: MultiPolygon; toleranceM: number } | null {
    const bucket = 2 ** Math.ceil(Math.log2(Math.max(1, tolM)))
    const key = `${r.id}:${bucket}`
    let g = simplifiedCache.get(key)
    if (!g) {
      const base = bucket > OVERVIEW_TOLERANCE_M ? overview(r) : geometry(r)
      if (!base) return null
      g = bucket > 1 ? simplifyPreserveTopology(base, bucket) : base
      if (simplifiedCache.size >= 20_000) simplifiedCache.clear()
      simplifiedCache.set(key, g)
    }
    return { geometry: g, toleranceM: bucket }
  }

  /** Records of `type` in force on `d` whose box meets the given box. */
  function inBox(type: BoundaryType, minX: number, minY: number, maxX: number, maxY: number, d: string): BoundaryRow[] {
    const ix = indexes.get(type)
    if (!ix) return []
    return ix.index
      .search(minX, minY, maxX, maxY)
      .map((i) => rows[ix.ids[i]])
      .filter((r) => inForce(r, d))
      .sort((a, b) => a.code.localeCompare(b.code) || a.id - b.id)
  }

  return {
    version,
    asOf,
    sets,
    earliest,
    installedTypes,
    all: () => all,
    byId: (id: number): BoundaryRow | undefined => rows[id],
    byCode,
    codeExists: (type: BoundaryType, code: string) => byTypeCode.has(`${type}|${code}`),
    versionsOf: (type: BoundaryType, code: string) => byTypeCode.get(`${type}|${code}`) ?? [],
    ancestorsOf,
    childrenOf,
    resolve,
    resolveItem,
    resolveBatch,
    resolveParcel,
    nearest,
    list,
    search,
    geometry,
    overview,
    simplifiedFor,
    inBox,
    provincesWith,
    link,
    /** Rows, rejects and repairs of one `<set>/<type>` layer, from the manifest. */
    layerStats: (key: string) => m.layers[key] ?? null,
    provinceName: (code: string) => PROVINCES[code as ProvinceCode] ?? code,
  }
}
