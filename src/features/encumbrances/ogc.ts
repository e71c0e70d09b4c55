/**
 * The encumbrances as an OGC API - Features collection (src/http/ogc/): `encumbrances`, every
 * current record, its `encumbrance_uid` as the Feature's `id`, in source order. Without a box it
 * is /search with no filter; with one, /within (records whose geometry meets the box, any size).
 * Both page by record id, so the cursor is the last id served, as theirs. `numberMatched` without
 * a box: the current records, counted once per dataset from the flags.
 */
import type { RouteGuard } from '../../http/env.js'
import { ApiError } from '../../http/errors.js'
import type { OgcCollection } from '../../http/ogc/collection.js'
import { encumbranceFeature } from './geojson.js'
import { recordOf } from './records.js'
import type { EncumbranceService } from './routes/shared.js'

/** A cursor of this collection: the last record id served. */
function afterOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  const n = /^\d{1,15}$/.test(cursor) ? Number(cursor) : Number.NaN
  if (!Number.isSafeInteger(n))
    throw new ApiError('ValidationError', 'invalid request: cursor', [
      { field: 'cursor', message: 'cursor is not one this service issued' },
    ])
  return n
}

export function encumbranceCollection(guards: readonly RouteGuard[], service: EncumbranceService): OgcCollection {
  return {
    id: 'encumbrances',
    title: 'Encumbrances (South Africa)',
    description:
      'Every current encumbrance (servitudes, leases, mineral rights…) with its geometry, its `encumbrance_uid` as ' +
      'the feature id, in source order. Product `encumbrance`.',
    guards,
    extent: (c) => service(c).extent(),
    items(c, { bbox, limit, cursor }) {
      const s = service(c)
      const after = afterOf(cursor)
      if (bbox !== null) {
        const page = s.within(bbox, s.classes, limit, after)
        return {
          features: page.rows.map(({ row, geometry }) => encumbranceFeature(recordOf(row, { geometry }))),
          next: page.next === null ? null : String(page.next),
        }
      }
      const page = s.search({ recordStatus: 'current' }, limit, after)
      return {
        features: page.rows.map((r) => encumbranceFeature(recordOf(r, { geometry: s.geometryOf(r) }))),
        next: page.next === null ? null : String(page.next),
        matched: s.currentCount(),
      }
    },
    item(c, id) {
      const uid = /^\d{1,15}$/.test(id.trim()) ? Number(id) : Number.NaN
      if (!Number.isSafeInteger(uid)) return null
      const s = service(c)
      const r = s.byUid(uid)
      return r && r.recordStatus === null ? encumbranceFeature(recordOf(r, { geometry: s.geometryOf(r) })) : null
    },
    notFound: (id) =>
      new ApiError('EncumbranceNotFound', `no current encumbrance has the encumbrance_uid ${id.slice(0, 64)}`),
    codes: { notFound: 'EncumbranceNotFound', unavailable: 'EncumbranceDataUnavailable' },
  }
}
