/**
 * The parcel cadastre as an OGC API - Features collection (src/http/ogc/): `parcels`, one
 * Feature per LPI, its current version (the record `/parcels/{lpi}` lists first) under the
 * default status filter, with the LPI as the Feature's `id`, so GDAL and QGIS keep it. Paged by
 * record id with the /within cursor (bound to the dataset and to the box); without a box the
 * listing walks the ids, so every page costs its own rows. No `numberMatched`: counting the LPIs
 * would read every row.
 */
import { LPI_PATTERN } from '../../data/parcels-format.js'
import type { OgcCollection } from '../../http/ogc/collection.js'
import { parcelFeature } from './geojson.js'
import type { Filter } from './queries.js'
import { notFound, type ParcelRoutes } from './routes/shared.js'
import { decodeCursor, encodeCursor } from './routes/within.js'

const CURRENT: Filter = { all: false }

export function parcelCollection({ guards, service }: ParcelRoutes): OgcCollection {
  return {
    id: 'parcels',
    title: 'Parcels (South Africa)',
    description:
      'The South African parcel cadastre: the current version of every parcel under the default status filter, ' +
      'its LPI as the feature id, its boundary as the geometry. Product `parcels`.',
    guards,
    extent: (c) => service(c).extent(),
    items(c, { bbox, limit, cursor }) {
      const s = service(c)
      const signature = JSON.stringify([
        'ogc',
        bbox?.minX ?? null,
        bbox?.minY ?? null,
        bbox?.maxX ?? null,
        bbox?.maxY ?? null,
      ])
      const after = cursor === undefined ? 0 : decodeCursor(cursor, s.version, signature)
      const page = s.currentVersions(bbox, after, limit, CURRENT)
      return {
        features: page.parcels.map((p) => parcelFeature(s, p)),
        next: page.more ? encodeCursor({ v: s.version, q: signature, after: page.lastId }) : null,
      }
    },
    item(c, id) {
      const lpi = id.trim().toUpperCase()
      if (!LPI_PATTERN.test(lpi)) return null
      const s = service(c)
      const record = s.currentRecord(lpi, CURRENT)
      return record ? parcelFeature(s, record) : null
    },
    notFound: (id) => notFound(`the LPI ${id.slice(0, 64)}`),
    codes: { notFound: 'ParcelNotFound', unavailable: 'ParcelDataUnavailable' },
  }
}
