/**
 * What lies around a parcel's current version: its neighbours (touching, from the precomputed
 * table, or within a distance), the survey beacons on its boundary and the General Plans over it.
 */
import { metresPerDegree } from '../../geo/geodesic.js'
import { coversByArea } from '../../geo/covers.js'
import { bboxOf, polygonDistanceM } from '../../geo/polygon.js'
import { round } from '../../geo/round.js'
import { accept, type Filter } from './filter.js'
import { currentRow } from './lookups.js'
import { ascending } from './order.js'
import { toRecord, type ParcelRecord, type Row } from './records.js'
import type { ParcelStore } from './store.js'

export interface Neighbour {
  parcel: ParcelRecord
  distance_meters: number
  shared_boundary_meters: number
}

interface BeaconRow {
  beacon_id: string
  name: string | null
  description: string | null
  date_stamp: string | null
  latitude: number
  longitude: number
  ring_position: number
}

interface PlanRow {
  sg_number: string
  description: string | null
  date_stamp: string | null
}

/** Subject (current version) and its neighbours: touching from the precomputed table, or within a distance. */
export function neighbours(
  s: ParcelStore,
  lpi: string,
  mode: 'touching' | 'within',
  distanceM: number,
  limit: number,
  f: Filter,
) {
  const r = currentRow(s, lpi, f)
  if (!r) return null
  const out = mode === 'touching' ? touching(s, r, f) : near(s, r, distanceM, f)
  return { parcel: toRecord(r, s.version), neighbours: out.slice(0, limit), total: out.length }
}

/** The parcels sharing a boundary with `r`, largest shared boundary first. */
function touching(s: ParcelStore, r: Row, f: Filter): Neighbour[] {
  const ok = accept(s.flags, { all: f.all })
  const out: Neighbour[] = []
  for (const n of s.st.touching.all(r.id) as { neighbour_id: number; shared_m: number }[]) {
    if (!ok(n.neighbour_id - 1)) continue
    out.push({
      parcel: toRecord(s.rowOf(n.neighbour_id), s.version),
      distance_meters: 0,
      shared_boundary_meters: n.shared_m,
    })
  }
  out.sort((a, b) => b.shared_boundary_meters - a.shared_boundary_meters || a.parcel.id - b.parcel.id)
  return out
}

/** The parcels within `distanceM` of `r` (not its versions, nor one holding or held by it), nearest first. */
function near(s: ParcelStore, r: Row, distanceM: number, f: Filter): Neighbour[] {
  const ok = accept(s.flags, { all: f.all })
  const out: Neighbour[] = []
  const mine = s.geomOf(r.id)
  const b = bboxOf(mine)
  const m = metresPerDegree((b.minY + b.maxY) / 2)
  const padX = (distanceM / m.lon) * 1.01
  const padY = (distanceM / m.lat) * 1.01
  const shared = new Map(
    (s.st.touching.all(r.id) as { neighbour_id: number; shared_m: number }[]).map((n) => [n.neighbour_id, n.shared_m]),
  )
  for (const i of s.index.search(b.minX - padX, b.minY - padY, b.maxX + padX, b.maxY + padY, ok)) {
    const id = i + 1
    if (id === r.id) continue
    const other = s.rowOf(id)
    if (other.lpi === r.lpi) continue
    const theirs = s.geomOf(id)
    if (coversByArea(theirs, mine) || coversByArea(mine, theirs)) continue
    const d = polygonDistanceM(mine, theirs)
    if (d > distanceM) continue
    out.push({
      parcel: toRecord(other, s.version),
      distance_meters: round(d, 2),
      shared_boundary_meters: shared.get(id) ?? 0,
    })
  }
  out.sort((a, b2) => a.distance_meters - b2.distance_meters || a.parcel.id - b2.parcel.id)
  return out
}

/** The beacons on the current version's boundary, around the ring. */
export function beacons(s: ParcelStore, lpi: string, f: Filter) {
  const r = currentRow(s, lpi, f)
  if (!r) return null
  const rows = s.st.beacons.all(r.id) as BeaconRow[]
  rows.sort((a, b) => a.ring_position - b.ring_position || ascending(a.beacon_id, b.beacon_id))
  const beacons = rows.map((b) => ({
    beacon_id: b.beacon_id,
    ...(b.name ? { name: b.name } : {}),
    ...(b.description ? { description: b.description } : {}),
    latitude: round(b.latitude, 7),
    longitude: round(b.longitude, 7),
    ring_position: b.ring_position,
    ...(b.date_stamp ? { date_stamp: b.date_stamp } : {}),
  }))
  return { parcel: toRecord(r, s.version), beacons }
}

/** The General Plans over the current version, by SG number. */
export function generalPlans(s: ParcelStore, lpi: string, f: Filter) {
  const r = currentRow(s, lpi, f)
  if (!r) return null
  const rows = s.st.plans.all(r.id) as PlanRow[]
  rows.sort((a, b) => ascending(a.sg_number, b.sg_number))
  const plans = rows.map((g) => ({
    sg_number: g.sg_number,
    ...(g.description ? { description: g.description } : {}),
    ...(g.date_stamp ? { date_stamp: g.date_stamp } : {}),
  }))
  return { parcel: toRecord(r, s.version), general_plans: plans }
}
