import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { intersection, type Geom } from 'polyclip-ts'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadGeography, type ProvinceCode } from '../geography.js'
import { runSynth, type SynthSummary } from '../synth.js'
import { hashTree, synthOnce, tempDir } from '../testing.js'

type Position = [number, number]
interface Feature {
  properties: Record<string, string | number>
  geometry: { type: string; coordinates: unknown }
}
interface Row extends Feature {
  folder: string
  cls: string
}

const FOLDERS = ['EC', 'FS', 'GP', 'KZN', 'LP', 'MP', 'NC', 'NW', 'WC']
const CODE: Record<string, ProvinceCode> = {
  EC: 'EC',
  FS: 'FS',
  GP: 'GP',
  KZN: 'KZ',
  LP: 'LP',
  MP: 'MP',
  NC: 'NC',
  NW: 'NW',
  WC: 'WC',
}
const AREA_CLASSES = ['servitude_area', 'mineral_right', 'lease', 'state_land', 'river_bed', 'proclamation_area']
const LINE_CLASSES = ['servitude_line', 'proclamation_line', 'established_boundary']
const ALL_CLASSES = [...AREA_CLASSES, ...LINE_CLASSES]
// the spec's coverage caveats, written independently of the generator
const CAVEATS: Record<string, string[]> = {
  KZN: ['lease'],
  GP: ['state_land', 'river_bed'],
  FS: ['river_bed'],
  LP: ['river_bed'],
  MP: ['river_bed'],
  NC: ['river_bed', 'established_boundary'],
  NW: ['river_bed', 'established_boundary'],
}
// the spec's vocabulary table: raw values of `unspecified` and of every other word
const UNSPECIFIED = new Set([
  '',
  'AREA',
  'CANCELLED',
  'GENERAL',
  'HIST',
  'LINE',
  'PRE_APP',
  'RURAL',
  'SERVITUDE AREA',
  'URBAN',
  'WITHDRAWN',
])
const LISTED = new Set([
  ...UNSPECIFIED,
  ...[
    'RIGHT OF WAY',
    'ROW',
    'ROAD',
    'RAILWAY',
    'ACCESS',
    'COMM_PASS',
    'PIPE',
    'PIPELINE',
    'ELECTRIC',
    'BOREHOLE',
    'DAM',
    'FURROW',
    'WATER',
  ],
  ...[
    'SEWER',
    'DRAINAGE',
    'STORM',
    'STORMWATER',
    'COMM_WALL',
    'MUNICIPAL',
    'SERVICES',
    'MINERAL',
    'LEASE',
    'PROC_AREA',
    'PROC_LINE',
    'EST_BND',
  ],
  ...['DWS_COAST', 'HWM', 'INT_BND', 'OUTSPAN', 'PROV', 'RESERVE'],
])
const STATUSES = ['CANCELLED', 'WITHDRAWN', 'HISTORIC', 'PENDING']

let run: SynthSummary
const rows: Row[] = []
const byClass = (cls: string) => rows.filter((r) => r.cls === cls)

function readFeatures(path: string): Feature[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Feature)
}

/** Polygon parts (rings) of an area row. */
function polygonsOf(f: Feature): Position[][][] {
  return f.geometry.type === 'Polygon'
    ? [f.geometry.coordinates as Position[][]]
    : (f.geometry.coordinates as Position[][][])
}

/** Line parts of a line row. */
function linesOf(f: Feature): Position[][] {
  return f.geometry.type === 'LineString'
    ? [f.geometry.coordinates as Position[]]
    : (f.geometry.coordinates as Position[][])
}

function signedArea2(ring: Position[]): number {
  let s = 0
  for (let i = 0; i < ring.length - 1; i++) s += ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1]
  return s
}

/** Area in m² by the trapezoid rule on a sphere of the WGS84 mean radius (independent of the generator's formula). */
function sphericalAreaM2(ring: Position[]): number {
  const r = 6_371_008.8
  const rad = Math.PI / 180
  let s = 0
  for (let i = 0; i < ring.length - 1; i++) {
    const [x1, y1] = ring[i]
    const [x2, y2] = ring[i + 1]
    s += (x2 - x1) * rad * (2 + Math.sin(y1 * rad) + Math.sin(y2 * rad))
  }
  return Math.abs((s * r * r) / 2)
}

/** True when closed segments ab and cd share a point. */
function segmentsMeet(a: Position, b: Position, c: Position, d: Position): boolean {
  const orient = (p: Position, q: Position, r: Position) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
  const within = (p: Position, q: Position, r: Position) =>
    Math.min(p[0], q[0]) <= r[0] &&
    r[0] <= Math.max(p[0], q[0]) &&
    Math.min(p[1], q[1]) <= r[1] &&
    r[1] <= Math.max(p[1], q[1])
  const [o1, o2, o3, o4] = [orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)]
  if (o1 !== o2 && o3 !== o4) return true
  return (
    (o1 === 0 && within(a, b, c)) ||
    (o2 === 0 && within(a, b, d)) ||
    (o3 === 0 && within(c, d, a)) ||
    (o4 === 0 && within(c, d, b))
  )
}

/**
 * True when no two segments of the path meet except neighbours at their joint (ring: first and last are neighbours).
 */
function isSimple(pts: Position[], ring: boolean): boolean {
  const n = pts.length - 1
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const neighbours = j === i + 1 || (ring && i === 0 && j === n - 1)
      if (neighbours) {
        // neighbours share one joint: they must not fold back over each other
        const [p, q, r] = j === i + 1 ? [pts[i], pts[j], pts[j + 1]] : [pts[j], pts[0], pts[1]]
        const cross = (q[0] - p[0]) * (r[1] - q[1]) - (q[1] - p[1]) * (r[0] - q[0])
        const dot = (q[0] - p[0]) * (r[0] - q[0]) + (q[1] - p[1]) * (r[1] - q[1])
        if (cross === 0 && dot < 0) return false
        continue
      }
      if (segmentsMeet(pts[i], pts[i + 1], pts[j], pts[j + 1])) return false
    }
  }
  return true
}

/** Even-odd point in ring, strict enough for points off the boundary. */
function inRing(ring: Position[], [x, y]: Position): boolean {
  let inside = false
  for (let i = 0; i < ring.length - 1; i++) {
    const [x1, y1] = ring[i]
    const [x2, y2] = ring[i + 1]
    if (y1 > y !== y2 > y && x < x1 + ((y - y1) * (x2 - x1)) / (y2 - y1)) inside = !inside
  }
  return inside
}

/** True when two simple rings share interior: a vertex of one inside the other, or edges crossing properly. */
function interiorsMeet(a: Position[], b: Position[]): boolean {
  if (b.some((p) => inRing(a, p)) || a.some((p) => inRing(b, p))) return true
  const orient = (p: Position, q: Position, r: Position) =>
    Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))
  for (let i = 0; i < a.length - 1; i++) {
    for (let j = 0; j < b.length - 1; j++) {
      const [p, q, r, s] = [a[i], a[i + 1], b[j], b[j + 1]]
      if (orient(p, q, r) * orient(p, q, s) < 0 && orient(r, s, p) * orient(r, s, q) < 0) return true
    }
  }
  return false
}

function bboxOf(parts: Position[][]): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const part of parts) {
    for (const [x, y] of part) {
      b[0] = Math.min(b[0], x)
      b[1] = Math.min(b[1], y)
      b[2] = Math.max(b[2], x)
      b[3] = Math.max(b[3], y)
    }
  }
  return b
}

const boxesMeet = (a: number[], b: number[]) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
const edgeKey = (a: Position, b: Position) =>
  a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]) ? `${a}|${b}` : `${b}|${a}`

/** Undirected edges of every ring of a cadastre layer, per province folder (open rings closed first). */
function cadastreEdges(layers: string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const folder of FOLDERS) {
    const edges = new Set<string>()
    for (const layer of layers) {
      for (const f of readFeatures(join(run.out, 'south_africa', 'cadastre', folder, `${layer}.geojsonl`))) {
        for (const ring of f.geometry.coordinates as Position[][]) {
          const closed = [...ring, ring[0]]
          for (let i = 0; i < closed.length - 1; i++) edges.add(edgeKey(closed[i], closed[i + 1]))
        }
      }
    }
    out.set(folder, edges)
  }
  return out
}

beforeAll(async () => {
  run = await synthOnce('tiny', 7, ['cadastre', 'encumbrances'])
  const root = join(run.out, 'south_africa', 'encumbrances')
  for (const folder of readdirSync(root).sort()) {
    for (const file of readdirSync(join(root, folder)).sort()) {
      const cls = file.replace(/\.geojsonl$/, '')
      for (const f of readFeatures(join(root, folder, file))) rows.push({ ...f, folder, cls })
    }
  }
})

describe('south_africa/encumbrances layout', () => {
  it('writes every class per province folder except the spec coverage caveats, each with rows', () => {
    const root = join(run.out, 'south_africa', 'encumbrances')
    expect(readdirSync(root).sort()).toEqual(FOLDERS)
    for (const folder of FOLDERS) {
      const expected = ALL_CLASSES.filter((c) => !(CAVEATS[folder] ?? []).includes(c))
      expect(readdirSync(join(root, folder)).sort(), folder).toEqual(expected.map((c) => `${c}.geojsonl`).sort())
      for (const cls of expected)
        expect(
          rows.some((r) => r.folder === folder && r.cls === cls),
          `${folder}/${cls}`,
        ).toBe(true)
    }
    // the caveats spelled out
    expect(rows.filter((r) => r.cls === 'lease' && r.folder === 'KZN')).toEqual([])
    expect(rows.filter((r) => r.cls === 'state_land' && r.folder === 'GP')).toEqual([])
    expect(new Set(byClass('river_bed').map((r) => r.folder))).toEqual(new Set(['EC', 'KZN', 'WC']))
    expect(byClass('established_boundary').filter((r) => r.folder === 'NC' || r.folder === 'NW')).toEqual([])
  })

  it('names the encumbrance export in export.json and counts rows in the summary', () => {
    const exports = JSON.parse(readFileSync(join(run.out, 'export.json'), 'utf8'))
    expect(exports.encumbrances).toEqual({ export_id: 'csg-enc-synth-tiny-s7', as_of: '2026-11-14' })
    const summary = run.layers.find((l) => l.layer === 'encumbrances')!
    expect(summary.counts.records).toBe(rows.length)
    for (const cls of ALL_CLASSES) expect(summary.counts[cls], cls).toBe(byClass(cls).length)
    // a few hundred records at the tiny scale
    expect(rows.length).toBeGreaterThan(250)
    expect(rows.length).toBeLessThan(1_000)
  })

  it('gives every record exactly the docs/source-formats.md fields', () => {
    for (const r of rows) {
      const p = r.properties
      const line = LINE_CLASSES.includes(r.cls)
      const keys = [
        'uid',
        'ease_type',
        'sg_no',
        'province',
        'geom_area',
        ...(line && 'width_m' in p ? ['width_m'] : []),
        'date_stamp',
        'status',
      ]
      expect(Object.keys(p), `${r.cls} ${p.uid}`).toEqual(keys)
      expect(Number.isInteger(p.uid)).toBe(true)
      expect(typeof p.ease_type).toBe('string')
      expect(String(p.sg_no)).toMatch(/^\d{1,4}\/(19|20)\d{2}$/)
      expect(p.province).toBe(CODE[r.folder])
      expect(String(p.date_stamp)).toMatch(/^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d)$/)
      // the stamp is never before the diagram's year
      expect(Number(String(p.date_stamp).slice(0, 4))).toBeGreaterThanOrEqual(Number(String(p.sg_no).split('/')[1]))
      expect(['', ...STATUSES]).toContain(p.status)
      if (line) {
        expect(p.geom_area).toBe('')
        if ('width_m' in p) expect(p.width_m as number).toBeGreaterThan(0)
      } else {
        expect(typeof p.geom_area).toBe('number')
        expect(p.geom_area as number).toBeGreaterThan(0)
      }
    }
    // both dimensioned and undimensioned servitude lines
    const lines = byClass('servitude_line')
    expect(lines.some((r) => 'width_m' in r.properties)).toBe(true)
    expect(lines.some((r) => !('width_m' in r.properties))).toBe(true)
  })

  it('numbers uid from 1 in write order, unique over the whole export', () => {
    const uids = rows.map((r) => r.properties.uid as number).sort((a, b) => a - b)
    expect(uids).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1))
    // increasing within each file
    for (const folder of FOLDERS) {
      for (const cls of ALL_CLASSES) {
        const u = rows.filter((r) => r.folder === folder && r.cls === cls).map((r) => r.properties.uid as number)
        expect(u).toEqual([...u].sort((a, b) => a - b))
      }
    }
  })

  it('writes Polygon/MultiPolygon for areas and LineString/MultiLineString for lines, both single and multi-part', () => {
    for (const r of rows) {
      const allowed = LINE_CLASSES.includes(r.cls) ? ['LineString', 'MultiLineString'] : ['Polygon', 'MultiPolygon']
      expect(allowed, r.cls).toContain(r.geometry.type)
    }
    const types = new Set(rows.map((r) => r.geometry.type))
    expect(types).toEqual(new Set(['Polygon', 'MultiPolygon', 'LineString', 'MultiLineString']))
  })
})

describe('raw ease_type values and statuses', () => {
  it('leaves about 77 % of servitude areas unspecified, with other and unlisted values besides', () => {
    const areas = byClass('servitude_area')
    const norm = (r: Row) => String(r.properties.ease_type).trim().toUpperCase()
    const unspecified = areas.filter((r) => UNSPECIFIED.has(norm(r))).length
    expect(areas.length).toBeGreaterThan(100)
    expect(unspecified / areas.length).toBeGreaterThan(0.74)
    expect(unspecified / areas.length).toBeLessThan(0.8)
    // a handful of values the vocabulary table does not list (state land's and river beds' own values aside)
    const unlisted = rows.filter((r) => r.cls !== 'state_land' && r.cls !== 'river_bed' && !LISTED.has(norm(r)))
    expect(unlisted.length).toBeGreaterThan(0)
    expect(unlisted.length).toBeLessThan(rows.length * 0.02)
    // and the "other" words
    expect(areas.some((r) => ['DWS_COAST', 'HWM', 'INT_BND', 'OUTSPAN', 'PROV', 'RESERVE'].includes(norm(r)))).toBe(
      true,
    )
  })

  it('writes some specific values in odd case or with stray spaces', () => {
    const raws = rows.map((r) => String(r.properties.ease_type))
    expect(raws.some((v) => v !== v.trim() && v.trim() !== '')).toBe(true)
    expect(raws.some((v) => /[a-z]/.test(v) && v.trim() !== 'Servitude Area' && v !== 'State Land')).toBe(true)
  })

  it('uses the class words on the single-purpose layers', () => {
    const norm = (r: Row) => String(r.properties.ease_type).trim().toUpperCase()
    expect(new Set(byClass('mineral_right').map(norm))).toEqual(new Set(['MINERAL']))
    expect(new Set(byClass('lease').map(norm))).toEqual(new Set(['LEASE']))
    expect(new Set(byClass('proclamation_area').map(norm))).toEqual(new Set(['PROC_AREA']))
    expect(new Set(byClass('proclamation_line').map(norm))).toEqual(new Set(['PROC_LINE']))
    expect(new Set(byClass('established_boundary').map(norm))).toEqual(new Set(['EST_BND']))
    for (const v of byClass('state_land').map(norm)) expect(['', 'STATE LAND']).toContain(v)
  })

  it('marks about 3 % of records cancelled, withdrawn, historic or pending', () => {
    const marked = rows.filter((r) => r.properties.status !== '')
    expect(marked.length / rows.length).toBeGreaterThan(0.01)
    expect(marked.length / rows.length).toBeLessThan(0.06)
    expect(new Set(marked.map((r) => r.properties.status))).toEqual(new Set(STATUSES))
  })
})

describe('geometry', () => {
  it('writes valid polygons: closed rings, counter-clockwise, simple, parts apart, geom_area their area', () => {
    for (const r of rows.filter((x) => AREA_CLASSES.includes(x.cls))) {
      const parts = polygonsOf(r)
      for (const rings of parts) {
        expect(rings).toHaveLength(1)
        const ring = rings[0]
        expect(ring.length).toBeGreaterThanOrEqual(4)
        expect(ring[0]).toEqual(ring[ring.length - 1])
        expect(signedArea2(ring), `${r.cls} ${r.properties.uid}`).toBeGreaterThan(0)
        expect(isSimple(ring, true), `${r.cls} ${r.properties.uid}`).toBe(true)
        for (const [x, y] of ring) {
          expect(Math.round(x * 1e7) / 1e7).toBe(x)
          expect(Math.round(y * 1e7) / 1e7).toBe(y)
        }
      }
      for (let a = 0; a < parts.length; a++) {
        for (let b = a + 1; b < parts.length; b++) expect(intersection(parts[a] as Geom, parts[b] as Geom)).toEqual([])
      }
      const area = parts.reduce((s, rings) => s + sphericalAreaM2(rings[0]), 0)
      expect(Math.abs((r.properties.geom_area as number) - area) / area, `${r.cls} ${r.properties.uid}`).toBeLessThan(
        0.01,
      )
    }
  })

  it('writes lines that never cross themselves or their other parts', () => {
    for (const r of rows.filter((x) => LINE_CLASSES.includes(x.cls))) {
      const parts = linesOf(r)
      for (const line of parts) {
        expect(line.length).toBeGreaterThanOrEqual(2)
        expect(new Set(line.map((p) => `${p}`)).size).toBe(line.length)
        expect(isSimple(line, false), `${r.cls} ${r.properties.uid}`).toBe(true)
      }
      for (let a = 0; a < parts.length; a++) {
        for (let b = a + 1; b < parts.length; b++) {
          for (let i = 0; i < parts[a].length - 1; i++) {
            for (let j = 0; j < parts[b].length - 1; j++) {
              expect(segmentsMeet(parts[a][i], parts[a][i + 1], parts[b][j], parts[b][j + 1])).toBe(false)
            }
          }
        }
      }
    }
  })

  it('lays servitude lines exactly on erf edges of the cadastre', () => {
    const edges = cadastreEdges(['erf'])
    const onEdges = byClass('servitude_line').filter((r) =>
      linesOf(r).every((line) => line.every((p, i) => i === 0 || edges.get(r.folder)!.has(edgeKey(line[i - 1], p)))),
    )
    expect(onEdges.length).toBeGreaterThan(10)
    // runs along several stands: each segment one erf's edge
    expect(onEdges.some((r) => linesOf(r)[0].length >= 4)).toBe(true)
  })

  it('lays established boundaries and proclamation lines on farm portion edges', () => {
    const edges = cadastreEdges(['farm_portion'])
    for (const r of [...byClass('established_boundary'), ...byClass('proclamation_line')]) {
      for (const line of linesOf(r)) {
        for (let i = 1; i < line.length; i++)
          expect(edges.get(r.folder)!.has(edgeKey(line[i - 1], line[i])), `${r.cls} ${r.properties.uid}`).toBe(true)
      }
    }
  })

  it('runs corridor strips 10–60 m wide across many erven, streets and farm portions', () => {
    const parcels: { layer: string; folder: string; ring: Position[]; box: number[] }[] = []
    for (const folder of FOLDERS) {
      for (const layer of ['erf', 'street', 'farm_portion']) {
        for (const f of readFeatures(join(run.out, 'south_africa', 'cadastre', folder, `${layer}.geojsonl`))) {
          if (f.properties.wstatus === 'H' || f.properties.lstatus === 'A' || f.properties.lstatus === 'W') continue
          const ring = (f.geometry.coordinates as Position[][])[0]
          parcels.push({ layer, folder, ring: [...ring, ring[0]], box: bboxOf([ring]) })
        }
      }
    }
    // corridors: long strips of many vertices
    const corridors = byClass('servitude_area').filter((r) => polygonsOf(r)[0][0].length > 12)
    expect(corridors.length).toBeGreaterThan(5)
    let best = { erf: 0, street: 0, farm_portion: 0 }
    for (const c of corridors) {
      const ring = polygonsOf(c)[0][0]
      // width = area / half the perimeter, for a long thin strip
      let perimeter = 0
      for (let i = 1; i < ring.length; i++) {
        const [x1, y1] = ring[i - 1]
        const [x2, y2] = ring[i]
        perimeter += Math.hypot((x2 - x1) * 111_320 * Math.cos((y1 * Math.PI) / 180), (y2 - y1) * 110_850)
      }
      const width = (c.properties.geom_area as number) / (perimeter / 2)
      expect(width).toBeGreaterThan(9)
      expect(width).toBeLessThan(61)
      // boxes of the strip's edges, grown by about 100 m: every parcel the strip reaches meets one
      const pad = 0.001
      const edgeBoxes = ring.slice(1).map((q, i) => {
        const b = bboxOf([[ring[i], q]])
        return [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad]
      })
      const hits = { erf: 0, street: 0, farm_portion: 0 }
      for (const p of parcels) {
        if (p.folder !== c.folder || !edgeBoxes.some((b) => boxesMeet(b, p.box))) continue
        if (interiorsMeet(ring, p.ring)) hits[p.layer as keyof typeof hits]++
      }
      if (hits.erf + hits.street + hits.farm_portion > best.erf + best.street + best.farm_portion) best = hits
    }
    expect(best.erf).toBeGreaterThanOrEqual(5)
    expect(best.street).toBeGreaterThanOrEqual(1)
    expect(best.farm_portion).toBeGreaterThanOrEqual(3)
  })

  it('keeps corridors and river beds inside the province they are written under', () => {
    const geography = loadGeography(join(process.cwd(), 'data', 'real'))
    const long = rows.filter(
      (r) =>
        r.cls === 'river_bed' ||
        ((r.cls === 'servitude_area' || r.cls === 'servitude_line') &&
          (r.cls === 'servitude_area' ? polygonsOf(r)[0][0].length > 12 : linesOf(r)[0].length > 8)),
    )
    expect(long.length).toBeGreaterThan(10)
    for (const r of long) {
      const outline = geography.province(CODE[r.folder]).outline
      const parts = r.cls === 'servitude_line' ? linesOf(r) : polygonsOf(r).map((p) => p[0])
      for (const part of parts)
        for (const [x, y] of part) expect(outline.contains(x, y), `${r.cls} ${r.properties.uid}`).toBe(true)
    }
  })
})

describe('determinism', () => {
  it(
    'writes byte-identical encumbrance files for the same seed (also alone with --only), different ones for ' +
      'another seed',
    async () => {
      const pick = (h: Record<string, string>) =>
        Object.fromEntries(Object.entries(h).filter(([k]) => k.includes('encumbrances/')))
      const a = pick(hashTree(run.out))
      expect(Object.keys(a)).toHaveLength(9 * 9 - 10)
      const again = await runSynth({
        scale: 'tiny',
        seed: 7,
        out: tempDir('encumbrances-again'),
        only: ['encumbrances'],
      })
      expect(pick(hashTree(again.out))).toEqual(a)
      const other = await runSynth({
        scale: 'tiny',
        seed: 8,
        out: tempDir('encumbrances-other'),
        only: ['encumbrances'],
      })
      const b = pick(hashTree(other.out))
      expect(b['south_africa/encumbrances/GP/servitude_area.geojsonl']).not.toBe(
        a['south_africa/encumbrances/GP/servitude_area.geojsonl'],
      )
    },
  )
})
