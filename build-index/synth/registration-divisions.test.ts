import { join } from 'node:path'
import { tmpdir } from 'node:os'
import booleanPointInPolygon from '@turf/boolean-point-in-polygon'
import { describe, expect, it } from 'vitest'
import { createContext } from './context.js'
import { loadGeography } from './geography.js'
import { Random } from './random.js'
import { SCALES, SCALE_NAMES } from './scales.js'
import { planTownships } from './layers/south-africa-erven.js'
import {
  GP_DIVISION_CODES,
  KZ_DIVISION_CODES,
  LETTER_PROVINCES,
  NUMBER_PROVINCES,
  REGISTRATION_DIVISION_COUNT,
  registrationDivisions,
  type RegistrationDivision,
} from './registration-divisions.js'

type Position = [number, number]
const geo = loadGeography(join(process.cwd(), 'data', 'real'))
const divisions = registrationDivisions(geo)

const polygonsOf = (d: RegistrationDivision): Position[][][] =>
  (d.geometry.type === 'Polygon' ? [d.geometry.coordinates] : d.geometry.coordinates) as Position[][][]

function signedArea2(ring: Position[]): number {
  let s = 0
  for (let i = 0; i < ring.length - 1; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return s
}

/** True when two segments cross at a point interior to both (touching ends do not count). */
function properCross(a: Position, b: Position, c: Position, d: Position): boolean {
  if (Math.max(a[0], b[0]) < Math.min(c[0], d[0]) || Math.max(c[0], d[0]) < Math.min(a[0], b[0])) return false
  if (Math.max(a[1], b[1]) < Math.min(c[1], d[1]) || Math.max(c[1], d[1]) < Math.min(a[1], b[1])) return false
  const o = (p: Position, q: Position, r: Position) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
  const o1 = o(a, b, c)
  const o2 = o(a, b, d)
  const o3 = o(c, d, a)
  const o4 = o(c, d, b)
  return o1 * o2 < 0 && o3 * o4 < 0
}

describe('registration divisions', () => {
  it('are exactly 221, as many per province as its target, KwaZulu-Natal 14 and Gauteng 3', () => {
    expect(divisions.all).toHaveLength(REGISTRATION_DIVISION_COUNT)
    expect(Object.values(divisions.targets).reduce((s, n) => s + n, 0)).toBe(221)
    for (const p of geo.provinces) expect(divisions.byProvince(p.code), p.code).toHaveLength(divisions.targets[p.code])
    expect(divisions.targets.KZ).toBe(14)
    expect(divisions.targets.GP).toBe(3)
    // the biggest province gets the most
    expect(Math.max(...Object.values(divisions.targets))).toBe(divisions.targets.NC)
  })

  it(
    'have unique two-character codes: letters in the old Transvaal and Natal, numbers (then letter + digit) in ' +
      'the Capes and the Free State',
    () => {
      const codes = divisions.all.map((d) => d.code)
      expect(new Set(codes).size).toBe(codes.length)
      for (const d of divisions.all) {
        expect(d.code).toMatch(/^[A-Z0-9]{2}$/)
        if (LETTER_PROVINCES.includes(d.province)) {
          expect(d.code).toMatch(/^[A-Z]{2}$/)
          expect(d.name).toBe(d.code)
        } else {
          expect(NUMBER_PROVINCES).toContain(d.province)
          expect(d.code).toMatch(/^(\d{2}|[A-Z]\d)$/)
          expect(d.name).toBe(d.name.toUpperCase())
          expect(d.name).not.toMatch(/^\d/)
        }
      }
      expect(codes).not.toContain('13')
      expect(codes).not.toContain('00')
      expect(
        divisions
          .byProvince('KZ')
          .map((d) => d.code)
          .sort(),
      ).toEqual([...KZ_DIVISION_CODES].sort())
      expect(
        divisions
          .byProvince('GP')
          .map((d) => d.code)
          .sort(),
      ).toEqual([...GP_DIVISION_CODES].sort())
      // every number is used before a letter + digit code appears
      const numbered = divisions.all.filter((d) => /^\d{2}$/.test(d.code))
      expect(numbered).toHaveLength(98)
      const names = divisions.all.filter((d) => NUMBER_PROVINCES.includes(d.province)).map((d) => d.name)
      expect(new Set(names).size).toBe(names.length)
    },
  )

  it('names Cape and Free State districts after real towns inside them', () => {
    const inside = (d: RegistrationDivision) =>
      geo.saLocalities.filter(
        (l) => l.province === d.province && l.name.toUpperCase() === d.name && d.outline.contains(l.lon, l.lat),
      )
    const districts = divisions.all.filter((d) => NUMBER_PROVINCES.includes(d.province))
    const named = districts.filter((d) => inside(d).length > 0)
    expect(named.length).toBeGreaterThan(districts.length * 0.9)
    expect(divisions.byCode('74')?.province).toBe('FS')
    // the cities of the Capes and the Free State give their districts' names
    for (const [name, lon, lat] of [
      ['CAPE TOWN', 18.42, -33.92],
      ['BLOEMFONTEIN', 26.21, -29.12],
      ['KIMBERLEY', 24.76, -28.74],
    ] as const) {
      expect(divisions.find(lon, lat)?.name).toBe(name)
    }
  })

  it('are valid polygons: closed rings of four or more positions, exteriors counter-clockwise, no self-crossing', () => {
    for (const d of divisions.all) {
      for (const poly of polygonsOf(d)) {
        poly.forEach((ring, i) => {
          expect(ring.length, d.code).toBeGreaterThanOrEqual(4)
          expect(ring[0]).toEqual(ring[ring.length - 1])
          expect(signedArea2(ring) > 0, `${d.code} ring ${i}`).toBe(i === 0)
          // sweep the edges by their west end
          const n = ring.length - 1
          const order = [...Array(n).keys()].sort(
            (a, b) => Math.min(ring[a][0], ring[a + 1][0]) - Math.min(ring[b][0], ring[b + 1][0]),
          )
          for (let x = 0; x < n; x++) {
            const a = order[x]
            const east = Math.max(ring[a][0], ring[a + 1][0])
            for (let y = x + 1; y < n && Math.min(ring[order[y]][0], ring[order[y] + 1][0]) <= east; y++) {
              const b = order[y]
              if (Math.abs(a - b) === 1 || Math.abs(a - b) === n - 1) continue
              if (properCross(ring[a], ring[a + 1], ring[b], ring[b + 1]))
                expect.fail(`${d.code} edges ${a}/${b} cross`)
            }
          }
        })
      }
    }
  })

  it(
    'partition each province: on random points no two divisions overlap, and every point of a province is in one ' +
      'of its divisions',
    () => {
      const rnd = new Random(1, 'divisions-test')
      const boxes = divisions.all.map((d) => d.outline.bbox)
      let inProvince = 0
      for (let n = 0; n < 4000; n++) {
        const lon = rnd.range(16.4, 33)
        const lat = rnd.range(-35, -22)
        const hits = divisions.all.filter((d, i) => {
          const b = boxes[i]
          return (
            lon >= b[0] && lon <= b[2] && lat >= b[1] && lat <= b[3] && booleanPointInPolygon([lon, lat], d.geometry)
          )
        })
        expect(hits.length, `${lon},${lat}`).toBeLessThanOrEqual(1)
        const p = geo.provinceAt(lon, lat)
        if (p) {
          inProvince++
          expect(
            hits.map((h) => h.province),
            `${lon},${lat}`,
          ).toEqual([p.code])
        } else {
          expect(hits, `${lon},${lat}`).toEqual([])
        }
      }
      expect(inProvince).toBeGreaterThan(1500)
    },
  )

  it('cover each province outline (areas add up)', () => {
    // planar lon/lat area: exactly additive over a partition, whatever the projection
    const area = (polys: Position[][][]) => {
      let a = 0
      for (const poly of polys)
        poly.forEach((ring, i) => {
          a += ((i === 0 ? 1 : -1) * Math.abs(signedArea2(ring))) / 2
        })
      return a
    }
    for (const p of geo.provinces) {
      const g = p.outline.geometry
      const outline = area((g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as Position[][][])
      const sum = divisions.byProvince(p.code).reduce((s, d) => s + area(polygonsOf(d)), 0)
      expect(Math.abs(sum - outline) / outline, p.code).toBeLessThan(1e-6)
    }
  })

  it('resolve every township locality of every scale to a division of its own province', () => {
    for (const name of SCALE_NAMES) {
      const ctx = createContext({
        scale: SCALES[name],
        seed: 1,
        outDir: join(tmpdir(), 'unused'),
        geography: geo,
        log: () => {},
      })
      const plans = planTownships(ctx)
      expect(plans.length).toBe(SCALES[name].southAfricaTownships)
      for (const plan of plans) {
        const { lon, lat } = plan.locality
        const d = divisions.at(plan.province.code, lon, lat)
        expect(d.province).toBe(plan.province.code)
        expect(booleanPointInPolygon([lon, lat], d.geometry), `${plan.name} ${d.code}`).toBe(true)
        expect(divisions.find(lon, lat)?.code).toBe(d.code)
      }
    }
  })

  it('are computed once per geography', () => {
    expect(registrationDivisions(geo)).toBe(divisions)
  })
})
