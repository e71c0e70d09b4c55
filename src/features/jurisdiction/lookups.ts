/**
 * Lookups that start from a name rather than a point: the records of a type with filters, one
 * level down the hierarchy, and the chain of a parcel by its LPI (with the boundaries it straddles).
 */
import { CHAIN_TYPES, type BoundaryType } from '../../data/jurisdiction-format.js'
import { publishedVersion } from '../../data/parcel-readers.js'
import { decodeGeometry } from '../../data/geometry-blob.js'
import type { ProvinceCode } from '../../data/provinces.js'
import type { ChainResolver, Resolution } from './chain.js'
import { inForce, type BoundaryRow } from './records.js'
import type { JurisdictionStore } from './store.js'

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

/** The records of `type` in force on `f.asAt` that pass the filters, by code. */
export function listBoundaries(store: JurisdictionStore, type: BoundaryType, f: ListFilter): BoundaryRow[] {
  const out: BoundaryRow[] = []
  for (const r of store.all) {
    if (r.type !== type || !inForce(r, f.asAt)) continue
    if (f.province && r.province !== f.province) continue
    if (f.parent || f.municipality) {
      const anc = store.ancestorsOf(r)
      if (f.parent && !anc.some((a) => a.code === f.parent)) continue
      if (
        f.municipality &&
        !anc.some(
          (a) => (a.type === 'local_municipality' || a.type === 'district_municipality') && a.code === f.municipality,
        )
      )
        continue
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
export function childrenInForce(store: JurisdictionStore, r: BoundaryRow, d: string): BoundaryRow[] {
  const want = CHILD_TYPE[r.type]
  if (!want) return []
  let list = store.childrenById(r.id).filter((c) => c.type === want && inForce(c, d))
  if (r.type === 'district_municipality' && r.category === 'A') {
    const metro = store.byCode('local_municipality', r.code, d)
    if (metro) list = [metro, ...list]
  }
  return list.sort(
    (a, b) => a.type.localeCompare(b.type) || a.code.localeCompare(b.code, 'en', { numeric: true }) || a.id - b.id,
  )
}

/** The chain of a parcel, with its LPI and label point. */
export type ParcelResolution = Resolution & { lpi: string; label: [number, number] }

/**
 * The chain of a parcel from its label point, and the boundaries it straddles: judged from
 * its vertices and edge midpoints, a sample the label's boundary does not hold (closed set)
 * but another boundary of the same type does. Null for an unknown or hidden LPI.
 */
export function resolveParcel(
  store: JurisdictionStore,
  chains: ChainResolver,
  lpi: string,
  d: string,
): ParcelResolution | null | 'no-parcels' {
  if (!store.parcelRows) return 'no-parcels'
  const p = publishedVersion(store.parcelRows(lpi))
  if (!p) return null
  const res = chains.chainAt(p.label_lon, p.label_lat, d)
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
      const here = store.grids.containing(t, x, y, d)
      if (!here.length || (own && here.some((r) => r.id === own.id))) continue
      for (const r of here) others.set(r.id, r)
    }
    if (others.size) {
      const names = [own, ...[...others.values()].sort((a, b) => a.code.localeCompare(b.code))].filter(
        (r): r is BoundaryRow => Boolean(r),
      )
      straddled.push(`${t} ${names.map((r) => `${r.code} (${r.name})`).join(' and ')}`)
    }
  }
  if (straddled.length) {
    res.notes.push(
      `The parcel straddles boundaries: ${straddled.join('; ')}. The chain is resolved from its label point, which ` +
        `lies in the first of each.`,
    )
  }
  return { ...res, lpi: p.lpi, label: [p.label_lon, p.label_lat] }
}
