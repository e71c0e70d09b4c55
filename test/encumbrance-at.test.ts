/**
 * `/encumbrances/at` (EncumbranceQueries.at) against a reference computed the plain way over the
 * whole `encumbrance` table of the test dataset (issue #37 item 4: the lookup reads only what it
 * needs, so nothing but this comparison shows that its answers did not change): every current
 * record of the asked classes whose stored box meets the search box, read as a whole row, its
 * geometry decoded and measured with the src/geo distance functions (a strip from `area_geom`,
 * an undimensioned line from its lines, an area from its polygons), nearest first then by id.
 * The answers must be equal to the last bit of each distance and byte for byte in each row, with
 * the `/at` prefilter and without it (a dataset built before it).
 *
 * Probes, seeded: inside and around each record's box, on its vertices and on the middles of its
 * edges (boundaries, the strips' edges included), across and beside each strip of a dimensioned
 * line, and uniform over the dataset; each with radius 0 (most), 0.5, 50 or 1000 m, and every
 * class or a few.
 */
import { afterAll, describe, expect, inject, it } from 'vitest'
import { Random } from '../build-index/synth/random.js'
import {
  ENCUMBRANCE_CLASSES,
  ENCUMBRANCE_FILES,
  LINE_CLASSES,
  polygonsAsLines,
  type EncumbranceClass,
} from '../src/data/encumbrance-format.js'
import { decodeGeometry } from '../src/data/geometry-blob.js'
import { openDataset, type OpenDataset } from '../src/data/open-dataset.js'
import { createEncumbranceQueries } from '../src/features/encumbrances/queries.js'
import { COLUMNS, toRow, type EncumbranceRow } from '../src/features/encumbrances/records.js'
import { degreesAround, metresPerDegree } from '../src/geo/geodesic.js'
import { distanceToLinesM, type Lines } from '../src/geo/lines.js'
import { distanceToPointM, type MultiPolygon } from '../src/geo/polygon.js'

const ds = openDataset(inject('datasetDir'))
afterAll(() => ds.close())
const q = createEncumbranceQueries(ds)
// a dataset built before the prefilter: every candidate's geometry is read
const withoutPrefilter: OpenDataset = { ...ds, has: (path) => path !== ENCUMBRANCE_FILES.prefilter && ds.has(path) }
const plain = createEncumbranceQueries(withoutPrefilter)

interface Ref {
  row: EncumbranceRow
  /** what the distance is measured to */
  mp: MultiPolygon | null
  lines: Lines | null
}

const records: Ref[] = (
  ds
    .sqlite(ENCUMBRANCE_FILES.sqlite)
    .prepare(`SELECT ${COLUMNS} FROM encumbrance WHERE record_status IS NULL ORDER BY id`)
    .raw(true)
    .all() as unknown[][]
).map((a) => {
  const row = toRow(a)
  if (row.areaGeom) return { row, mp: decodeGeometry(row.areaGeom), lines: null }
  if (LINE_CLASSES.has(row.cls)) return { row, mp: null, lines: polygonsAsLines(decodeGeometry(row.geom)) }
  return { row, mp: decodeGeometry(row.geom), lines: null }
})

/** The answer at a point, the plain way: every record checked, whole rows, decoded geometry. */
function reference(lon: number, lat: number, radiusM: number, classes: readonly EncumbranceClass[]) {
  const pad = degreesAround(lat, radiusM)
  const out: { row: EncumbranceRow; distanceM: number }[] = []
  for (const r of records) {
    const b = r.row.bbox
    if (!classes.includes(r.row.cls)) continue
    if (b.maxX < lon - pad.lon || b.minX > lon + pad.lon || b.maxY < lat - pad.lat || b.minY > lat + pad.lat) continue
    const d = r.mp ? distanceToPointM(r.mp, lon, lat) : distanceToLinesM(r.lines!, lon, lat)
    if (d <= radiusM) out.push({ row: r.row, distanceM: d })
  }
  return out.sort((a, b) => a.distanceM - b.distanceM || a.row.id - b.row.id)
}

interface Probe {
  lon: number
  lat: number
  what: string
}

/** Seeded probes around every current record (see the header). */
function probes(rnd: Random): Probe[] {
  const out: Probe[] = []
  const vertices = (blob: Buffer) => decodeGeometry(blob).flatMap((p) => p.flat())
  for (const { row } of records) {
    const b = row.bbox
    const w = b.maxX - b.minX
    const h = b.maxY - b.minY
    for (let k = 0; k < 3; k++)
      out.push({
        lon: rnd.range(b.minX - 0.2 * w, b.maxX + 0.2 * w),
        lat: rnd.range(b.minY - 0.2 * h, b.maxY + 0.2 * h),
        what: `box of ${row.id}`,
      })
    for (const blob of [row.geom, row.areaGeom]) {
      if (!blob) continue
      const v = vertices(blob)
      for (let k = 0; k < 3; k++) {
        const i = rnd.int(0, v.length - 1)
        out.push({ lon: v[i][0], lat: v[i][1], what: `vertex of ${row.id}` })
        const j = Math.min(i + 1, v.length - 1)
        out.push({ lon: (v[i][0] + v[j][0]) / 2, lat: (v[i][1] + v[j][1]) / 2, what: `edge of ${row.id}` })
      }
    }
    if (row.widthM && row.areaGeom) {
      // across the strip: on the centreline, inside, on and beyond its edges
      const line = polygonsAsLines(decodeGeometry(row.geom))[0]
      const m = metresPerDegree(line[0][1])
      for (let k = 0; k < 6; k++) {
        const i = rnd.int(0, line.length - 2)
        const [x0, y0] = line[i]
        const [x1, y1] = line[i + 1]
        const t = rnd.float()
        const dx = (x1 - x0) * m.lon
        const dy = (y1 - y0) * m.lat
        const len = Math.hypot(dx, dy) || 1
        const off = (k === 0 ? 0 : k === 1 ? 0.5 : rnd.range(-0.7, 0.7)) * row.widthM
        out.push({
          lon: x0 + t * (x1 - x0) + (-dy / len) * (off / m.lon),
          lat: y0 + t * (y1 - y0) + (dx / len) * (off / m.lat),
          what: `across the strip of ${row.id} (${off.toFixed(2)} m off its centreline)`,
        })
      }
    }
  }
  let x0 = Infinity
  let y0 = Infinity
  let x1 = -Infinity
  let y1 = -Infinity
  for (const { row } of records) {
    x0 = Math.min(x0, row.bbox.minX)
    y0 = Math.min(y0, row.bbox.minY)
    x1 = Math.max(x1, row.bbox.maxX)
    y1 = Math.max(y1, row.bbox.maxY)
  }
  for (let k = 0; k < 500; k++) out.push({ lon: rnd.range(x0, x1), lat: rnd.range(y0, y1), what: 'uniform' })
  return out
}

/** Every field of a row, the blobs as base64 (toEqual walks a Buffer byte by byte: seconds here). */
const rowKey = (r: EncumbranceRow) =>
  JSON.stringify({ ...r, geom: r.geom.toString('base64'), areaGeom: r.areaGeom?.toString('base64') ?? null })

const RADII = [0, 0, 0, 0, 0.5, 50, 1000]

describe('GET /encumbrances/at answers as the whole-row reference', () => {
  it('the test dataset has the prefilter', () => {
    expect(ds.has(ENCUMBRANCE_FILES.prefilter)).toBe(true)
  })

  for (const [variant, queries] of [
    ['with the prefilter', q],
    ['without it', plain],
  ] as const)
    it(`${variant}: on seeded probes in, on and around every record, radius 0 to 1000 m, every class or a few`, () => {
      const rnd = new Random(37, 'test/encumbrance-at')
      const all = q.classes
      expect(all.length).toBeGreaterThan(5)
      let compared = 0
      const seen = { hits: 0, strips: 0, lines: 0, areas: 0, inRadius: 0, filtered: 0 }
      const failures: string[] = []
      for (const p of probes(rnd)) {
        const radius = RADII[rnd.int(0, RADII.length - 1)]
        const classes = rnd.chance(0.7) ? all : ENCUMBRANCE_CLASSES.filter((c) => all.includes(c) && rnd.chance(0.3))
        const got = queries.at(p.lon, p.lat, radius, classes)
        const want = reference(p.lon, p.lat, radius, classes)
        compared++
        const key = (a: { row: EncumbranceRow; distanceM: number }[]) =>
          a.map((h) => `${h.row.id}@${h.distanceM}`).join()
        if (key(got) !== key(want)) {
          if (failures.length < 5)
            failures.push(`${p.what} (${p.lon}, ${p.lat}) r ${radius} [${classes}]: got ${key(got)}, want ${key(want)}`)
          continue
        }
        // the rows themselves, byte for byte (the answer's fields and geometry come from them)
        expect(got.map((h) => rowKey(h.row))).toEqual(want.map((h) => rowKey(h.row)))
        seen.hits += want.length
        seen.filtered += classes === all ? 0 : 1
        for (const h of want) {
          if (h.distanceM > 0) seen.inRadius++
          else if (h.row.areaGeom) seen.strips++
          else if (LINE_CLASSES.has(h.row.cls)) seen.lines++
          else seen.areas++
        }
      }
      expect(failures).toEqual([])
      // the probes reached every kind of answer: strips, lines and areas holding the point, records within a radius
      expect(compared).toBeGreaterThan(2000)
      for (const [k, v] of Object.entries(seen)) expect(v, k).toBeGreaterThan(k === 'lines' ? 0 : 50)
    })
})
