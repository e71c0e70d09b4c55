/**
 * South African boundaries: `south_africa/boundaries/<set>/<type>.*` (docs/source-formats.md
 * "Boundaries"), one folder per boundary set, each with a `set.json` of defaults.
 *
 * The Board's sets are real data from `data/real`, written as the Board (or its re-publisher)
 * published them, field names and values untouched, so build-index has to read the published
 * forms (docs/domain.md 2.5):
 * ```
 * 2011/      2011 demarcation, from the TopoJSON in data/real/mdb-2011-topojson, converted with
 *            topojson-client to GeoJSONSeq (coordinates to 7 decimals, no other change)
 *   province.geojsonl               9   PROVINCE (name), CODE (EC FS GT KZN LIM MP NC NW WC), Area,
 *                                       Shape_Leng, Shape_Area, ID, POPULATION, DENSITY
 *   district_municipality.geojsonl  52  CATEGORY (A metro / C district), CAT2, DISTRICT (DC10 or the
 *                                       metro code), MUNICNAME, MAP_TITLE, PROVINCE (code: EC … GT KZN
 *                                       LIM), PROVNAME, MapNo, MUN_CD ("(DC10)"), Shape_Leng, Shape_Area
 *   local_municipality.geojsonl     234 CAT_B (EC101, or the metro code), PROVINCE (name), CATEGORY (A/B),
 *                                       CAT2, MUNICNAME, MAP_TITLE, DISTRICT (DC code; a metro's own
 *                                       code), AREA, Shape_Leng, Shape_Area, MapNo, MUN_CD, ID, POPULATION,
 *                                       DENSITY
 *   ward.geojsonl                   4277 WARD (8-digit ward id), PROVINCE (name), CAT_B, MUNICNAME
 *                                       ("Matzikama Local Municipality"), WARDNO (number), VOTERS, Area,
 *                                       Shape_Leng, Shape_Area, ID, POPULATION, DENSITY
 * 2016/      2016 ward delimitation: attributes only, no geometry exists
 *   ward.csv                        4392 rows, MunicipalWards2016.csv byte for byte: Province (code,
 *                                       GT/KZN/LIM), CAT_B, WardNo, WardID (8 digits), MapCode
 *                                       (LIM344_1), MunicName
 * 2018/      2018 demarcation (in force since the 2016 local elections)
 *   province.shp (+.shx .dbf .prj .cpg)          9   Provinces_2020 byte for byte: Code (EC FS GT KZN
 *                                                    LIM MP NC NW WC), Name, Parent_cod (ZA), Area
 *   district_municipality.shp (+.shx .dbf .prj)  52  Districts_2020 byte for byte: Name, Code (DC40
 *                                                    or metro code), Parent_cod (province code), Area
 *   local_municipality.geojsonl                  213 WOF's MDB local municipalities (full resolution;
 *                                                    the tiny scale uses WOF's simplified copy):
 *                                                    wof_id, name, deprecated, superseded_by, is_current,
 *                                                    cat2, cat_b (EC108, JHB), category (A/B), district
 *                                                    (DC10; a metro's own code), district_n, map_title,
 *                                                    municname, namecode, province (EC … GT KZN LIM)
 * 2020/      2020 ward delimitation (2021 elections)
 *   ward.shp (+.shx .dbf .prj)                   4468 Wards_2020 byte for byte: Parent_cod (local or
 *                                                    metro code), Code (8-digit ward id), Name (= Code),
 *                                                    Area
 * register/  the cadastral register (undated), synthetic, in the docs/source-formats.md form: code, name,
 *            category, province (EC FS GP KZ LP MP NC NW WC), parent, effective_from, effective_to
 *   registration_division.geojsonl  221  registration-divisions.ts: code the LPI major code (JR, 26,
 *                                        A0), name upper-case, category ADMIN, parent the province
 *   township.geojsonl               one per township of the cadastre, written BY THE CADASTRE layer
 *                                        (it is that layer's geometry): code the 8-character LPI
 *                                        prefix (T0JR0024), name the township, parent the division.
 *                                        `--only boundaries` without the cadastre leaves it out (or
 *                                        leaves an earlier run's file); suburbs then have no parent
 *   deeds_office.geojsonl           5    FS, GP and NC only: BFN, JHB, KIM, PTA, VRB, named "<City>
 *                                        Deeds Registry", parent blank
 *   suburb.geojsonl                 74   EC, FS and NC only: SUB-EC-001 …, WOF names, parent the
 *                                        township containing the centre (blank when none)
 *   pre1994_municipal.geojsonl      452  EC, FS, NC and WC only: P94-EC-001 …, "<Town> Municipality"
 *                                        around real WOF towns, parent blank
 * ```
 * The 2018 and 2020 shapefiles carry OpenUp's simplified fields (Code/Name/Parent_cod), not the
 * Board's own DBF names; the 2011 ward file has WARD and VOTERS where the Board's DBF has WARD_ID
 * and WARD_POP (the TopoJSON's author renamed them). Every count is the same at every scale.
 *
 * @module
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { difference, intersection } from 'polyclip-ts'
import { feature } from 'topojson-client'
import type { Topology } from 'topojson-specification'
import type { LayerGenerator, WrittenFile } from '../context.js'
import type { Geography, ProvinceCode, SaLocality } from '../geography.js'
import { LocalFrame, Polygonal, haversineM, type PolygonalGeometry } from '../geo-math.js'
import {
  compareTowns,
  outlinePolys,
  registrationDivisions,
  tidy,
  toGeometry,
  usableTownName,
  type MultiPoly,
} from '../registration-divisions.js'
import { TOWNSHIP_BOUNDARY_FILE } from './south-africa-cadastre.js'
import { planTownships } from './south-africa-erven.js'

/** Where the boundary sets go. */
export const BOUNDARIES_DIR = 'south_africa/boundaries'

/** Exact counts of the register's synthetic layers (jurisdiction spec, standing coverage). */
export const REGISTER_COUNTS = {
  registration_division: 221,
  deeds_office: 5,
  suburb: 74,
  pre1994_municipal: 452,
} as const

/** Suburbs per province (74): an assumption, only EC, FS and NC publish suburbs. */
export const SUBURB_QUOTAS: Readonly<Partial<Record<ProvinceCode, number>>> = { EC: 30, FS: 28, NC: 16 }
/** Pre-1994 municipalities per province (452): an assumption, only EC, FS, NC and WC publish them. */
export const PRE1994_QUOTAS: Readonly<Partial<Record<ProvinceCode, number>>> = { EC: 130, FS: 100, NC: 90, WC: 132 }

const SET_2011_SOURCE =
  'Municipal Demarcation Board 2011 demarcation and ward delimitation: Province_New_SANeighbours, ' +
  'DistrictMunicipalities2011, ' +
  'LocalMunicipalities2011, Wards2011 (TopoJSON re-published by mashoedoe/shiny_leaflet_choropleth and ' +
  'datawizzards/za-maps; data/real/mdb-2011-topojson)'
const SET_2016_SOURCE =
  'Municipal Demarcation Board MunicipalWards2016 attribute table, no geometry (j-norwood-young/SA-Maps; ' +
  'data/real/mdb-attribute-tables)'
const SET_2018_SOURCE =
  'Municipal Demarcation Board Provinces_2020 and Districts_2020 (simplified by OpenUp, data/real/mdb-2020-wazimap); ' +
  "local municipalities 2018/19 from Who's On First, MDB geometry (data/real/wof-south-africa). Data from Who's On " +
  'First.'
const SET_2020_SOURCE =
  'Municipal Demarcation Board Wards_2020, the 2020 delimitation used for the 2021 elections (simplified by ' +
  'OpenUp; data/real/mdb-2020-wazimap)'

/** The 2011 TopoJSON files and the type each becomes. */
const MDB_2011: readonly { type: string; file: string }[] = [
  { type: 'province', file: 'Province_New_SANeighbours' },
  { type: 'district_municipality', file: 'DistrictMunicipalities2011' },
  { type: 'local_municipality', file: 'LocalMunicipalities2011' },
  { type: 'ward', file: 'Wards2011' },
]

/** Parts of a shapefile copied (those that exist). */
const SHAPEFILE_PARTS = ['shp', 'shx', 'dbf', 'prj', 'cpg'] as const

interface GeoFeature {
  type: 'Feature'
  properties: Record<string, unknown> | null
  geometry: { type: string; coordinates: unknown } | null
}

/** The path, or an error naming it (same wording as the geography loader). */
function requireFile(path: string): string {
  if (!existsSync(path)) {
    throw new Error(
      `missing real-data file ${path}; run from the project root or set LANDDATA_ROOT (see data/real/ATTRIBUTION.md)`,
    )
  }
  return path
}

/** Coordinates rounded to 7 decimals (about 1 cm), at any nesting depth. */
function roundCoordinates(c: unknown): unknown {
  if (typeof c === 'number') return Math.round(c * 1e7) / 1e7
  return Array.isArray(c) ? c.map(roundCoordinates) : c
}

/** One GeoJSONSeq line, properties untouched. */
function featureLine(f: GeoFeature, round: boolean): string {
  const geometry =
    f.geometry && round ? { type: f.geometry.type, coordinates: roundCoordinates(f.geometry.coordinates) } : f.geometry
  return `{"type":"Feature","properties":${JSON.stringify(f.properties ?? {})},"geometry":${JSON.stringify(geometry)}}\n`
}

/** The features of every object of a gzipped TopoJSON file, in object and file order. */
function readTopoJson(path: string): GeoFeature[] {
  const topology = JSON.parse(gunzipSync(readFileSync(requireFile(path))).toString('utf8')) as Topology
  const out: GeoFeature[] = []
  for (const name of Object.keys(topology.objects)) {
    const fc = feature(topology, topology.objects[name]) as unknown as { features?: GeoFeature[] } & GeoFeature
    if (fc.features) out.push(...fc.features)
    else out.push(fc)
  }
  return out
}

// converted once per data folder (test processes run the generator several times)
const converted = new Map<string, string[]>()
function convertedLines(path: string, round: boolean): string[] {
  let lines = converted.get(path)
  if (!lines) {
    lines = readTopoJson(path).map((f) => featureLine(f, round))
    converted.set(path, lines)
  }
  return lines
}

/** Register-layer feature: the docs/source-formats.md "Boundaries" fields, in that order. */
function registerLine(
  p: { code: string; name: string; category: string; province: string; parent: string },
  geometry: PolygonalGeometry,
): string {
  const props = {
    code: p.code,
    name: p.name,
    category: p.category,
    province: p.province,
    parent: p.parent,
    effective_from: '',
    effective_to: '',
  }
  return `{"type":"Feature","properties":${JSON.stringify(props)},"geometry":${JSON.stringify(geometry)}}\n`
}

/** A closed counter-clockwise box of half-sizes hx, hy metres around a point, 7 decimals. */
function boxAround(lon: number, lat: number, hx: number, hy: number): PolygonalGeometry {
  const f = new LocalFrame(lon, lat)
  const r = (v: number) => Math.round(v * 1e7) / 1e7
  const p = (x: number, y: number) => [r(f.lon(x)), r(f.lat(y))]
  const a = p(-hx, -hy)
  return { type: 'Polygon', coordinates: [[a, p(hx, -hy), p(hx, hy), p(-hx, hy), a]] }
}

const box = (x0: number, y0: number, x1: number, y1: number): MultiPoly => [
  [
    [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
      [x0, y0],
    ],
  ],
]

/**
 * The five Deeds Registry areas published (FS, GP, NC). The split lines are assumptions, not
 * the registries' real jurisdictions: Gauteng splits at 25.96° S (Pretoria north, roughly
 * Tshwane; Johannesburg south); the Northern Cape's north-east (east of 22.5° E and north of
 * 28.3° S, roughly John Taolo Gaetsewe) goes to the Vryburg registry, the rest to Kimberley.
 */
function deedsOffices(geography: Geography): { code: string; name: string; province: ProvinceCode; mp: MultiPoly }[] {
  const fs = outlinePolys(geography.province('FS'))
  const gp = outlinePolys(geography.province('GP'))
  const nc = outlinePolys(geography.province('NC'))
  const split = -25.96
  const vryburg = box(22.5, -28.3, 30, -20)
  const out = [
    { code: 'BFN', name: 'Bloemfontein Deeds Registry', province: 'FS' as ProvinceCode, mp: fs },
    {
      code: 'JHB',
      name: 'Johannesburg Deeds Registry',
      province: 'GP' as ProvinceCode,
      mp: intersection(gp, box(20, -40, 35, split)) as MultiPoly,
    },
    {
      code: 'KIM',
      name: 'Kimberley Deeds Registry',
      province: 'NC' as ProvinceCode,
      mp: difference(nc, vryburg) as MultiPoly,
    },
    {
      code: 'PTA',
      name: 'Pretoria Deeds Registry',
      province: 'GP' as ProvinceCode,
      mp: intersection(gp, box(20, split, 35, -20)) as MultiPoly,
    },
    {
      code: 'VRB',
      name: 'Vryburg Deeds Registry',
      province: 'NC' as ProvinceCode,
      mp: intersection(nc, vryburg) as MultiPoly,
    },
  ]
  return out.map((d) => ({ ...d, mp: tidy(d.mp) }))
}

/** A chosen place with its box. */
interface Placed {
  loc: SaLocality
  halfM: number
}

/**
 * Greedy choice of well-spaced places from ranked candidates, per province quota: each name once
 * (case-insensitive), at least `minSpacingM` from every place chosen so far, at least
 * `minEdgeM` inside its province. Each place then gets a half-size of at most `capM`, 0.34 of
 * the distance to the nearest other chosen place (so no two boxes can overlap) and 0.7 of its
 * distance to the province edge (so the box stays inside).
 */
function placeBoxes(
  geography: Geography,
  quotas: Readonly<Partial<Record<ProvinceCode, number>>>,
  candidates: (code: ProvinceCode) => SaLocality[],
  opts: { minSpacingM: number; minEdgeM: number; capM: number },
): Map<ProvinceCode, Placed[]> {
  const chosen: SaLocality[] = []
  const edge = new Map<SaLocality, number>()
  const names = new Set<string>()
  for (const p of geography.provinces) {
    const quota = quotas[p.code] ?? 0
    let have = 0
    for (const loc of candidates(p.code)) {
      if (have >= quota) break
      const name = loc.name.toUpperCase()
      if (names.has(name)) continue
      if (
        chosen.some(
          (c) => Math.abs(c.lat - loc.lat) < 0.1 && haversineM(c.lon, c.lat, loc.lon, loc.lat) < opts.minSpacingM,
        )
      )
        continue
      const d = p.outline.distanceToBoundaryM(loc.lon, loc.lat)
      if (d < opts.minEdgeM) continue
      chosen.push(loc)
      edge.set(loc, d)
      names.add(name)
      have++
    }
    if (have < quota) throw new Error(`only ${have} places for ${p.code}, wanted ${quota}`)
  }
  const out = new Map<ProvinceCode, Placed[]>()
  for (const loc of chosen) {
    let nearest = Infinity
    for (const o of chosen) if (o !== loc) nearest = Math.min(nearest, haversineM(o.lon, o.lat, loc.lon, loc.lat))
    const halfM = Math.min(opts.capM, 0.34 * nearest, 0.7 * edge.get(loc)!)
    out.set(loc.province, [...(out.get(loc.province) ?? []), { loc, halfM }])
  }
  return out
}

/** Numbers places per province in name order: `<prefix>-<PROV>-001`. */
function numbered(placed: Placed[]): Placed[] {
  return [...placed].sort((a, b) =>
    a.loc.name < b.loc.name ? -1 : a.loc.name > b.loc.name ? 1 : a.loc.wofId - b.loc.wofId,
  )
}

/** Township extents written by the cadastre in this folder, when present. */
function readTownships(outDir: string): { code: string; province: string; outline: Polygonal }[] {
  const path = join(outDir, TOWNSHIP_BOUNDARY_FILE)
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const f = JSON.parse(l) as { properties: { code: string; province: string }; geometry: PolygonalGeometry }
      return { code: f.properties.code, province: f.properties.province, outline: new Polygonal(f.geometry) }
    })
}

/** Records of a copied shapefile (from its index: 100-byte header, 8 bytes per record). */
function shapefileRecords(shxPath: string): number {
  return (statSync(shxPath).size - 100) / 8
}

/** The boundaries layer. */
export const southAfricaBoundaries: LayerGenerator = {
  name: 'boundaries',
  domain: 'boundaries',
  description:
    'south_africa/boundaries/<set>/: MDB 2011, 2016, 2018 and 2020 sets (real data from data/real) and the ' +
    'synthetic cadastral register',
  async generate(ctx) {
    const { geography } = ctx
    const dataDir = geography.dataDir
    const files: WrittenFile[] = []
    const counts: Record<string, number> = {}
    const rel = (p: string) => `${BOUNDARIES_DIR}/${p}`
    const abs = (p: string) => join(ctx.outDir, rel(p))
    const writeJson = (p: string, value: unknown) => {
      mkdirSync(dirname(abs(p)), { recursive: true })
      const text = JSON.stringify(value, null, 2) + '\n'
      writeFileSync(abs(p), text)
      files.push({ path: rel(p), rows: 0, bytes: Buffer.byteLength(text) })
    }
    const writeLines = (p: string, lines: Iterable<string>, countKey: string) => {
      const w = ctx.openLines(rel(p))
      for (const l of lines) w.line(l)
      w.close()
      files.push({ path: rel(p), rows: w.rows, bytes: w.bytes })
      counts[countKey] = w.rows
    }
    const copy = (from: string, p: string, rows: number) => {
      mkdirSync(dirname(abs(p)), { recursive: true })
      copyFileSync(from, abs(p))
      files.push({ path: rel(p), rows, bytes: statSync(abs(p)).size })
    }

    // ---- 2011: the Board's TopoJSON as GeoJSONSeq
    for (const { type, file } of MDB_2011) {
      writeLines(
        `2011/${type}.geojsonl`,
        convertedLines(join(dataDir, 'mdb-2011-topojson', `${file}.topojson.gz`), true),
        `2011/${type}`,
      )
    }
    writeJson('2011/set.json', {
      vintage: {
        province: '2011 demarcation',
        district_municipality: '2011 demarcation',
        local_municipality: '2011 demarcation',
        ward: '2011 delimitation',
      },
      effective_from: '2011-05-18',
      effective_to: '2016-08-03',
      source: SET_2011_SOURCE,
    })

    // ---- 2016: the ward table, attributes only
    const wards2016 = join(dataDir, 'mdb-attribute-tables', 'MunicipalWards2016.csv')
    const wardRows =
      readFileSync(requireFile(wards2016), 'utf8')
        .split('\n')
        .filter((l) => l !== '').length - 1
    copy(wards2016, '2016/ward.csv', wardRows)
    counts['2016/ward'] = wardRows
    writeJson('2016/set.json', {
      vintage: { ward: '2016 delimitation' },
      effective_from: '2016-08-03',
      effective_to: '2021-11-01',
      geometry: false,
      source: SET_2016_SOURCE,
    })

    // ---- 2018: provinces and districts byte for byte, WOF local municipalities
    const copyShapefile = (from: string, to: string) => {
      const base = join(dataDir, 'mdb-2020-wazimap', 'shapefile', from)
      const records = shapefileRecords(requireFile(`${base}.shx`))
      for (const ext of SHAPEFILE_PARTS) {
        if (existsSync(`${base}.${ext}`))
          copy(`${base}.${ext}`, `${to}.${ext}`, ext === 'prj' || ext === 'cpg' ? 0 : records)
      }
      counts[to] = records
    }
    copyShapefile('Provinces_2020', '2018/province')
    copyShapefile('Districts_2020', '2018/district_municipality')
    const wofDir = join(dataDir, 'wof-south-africa')
    const locals =
      ctx.scale.name === 'tiny'
        ? convertedLines(join(wofDir, 'wof_za_localmunicipalities_mdb_simplified.topojson.gz'), true)
        : (
            JSON.parse(
              gunzipSync(
                readFileSync(requireFile(join(wofDir, 'wof_za_localmunicipalities_mdb_full.geojson.gz'))),
              ).toString('utf8'),
            ) as { features: GeoFeature[] }
          ).features.map((f) => featureLine(f, false))
    writeLines('2018/local_municipality.geojsonl', locals, '2018/local_municipality')
    writeJson('2018/set.json', {
      vintage: {
        province: '2018 demarcation',
        district_municipality: '2018 demarcation',
        local_municipality: '2018 demarcation',
      },
      effective_from: '2016-08-03',
      effective_to: null,
      source: SET_2018_SOURCE,
    })

    // ---- 2020: wards byte for byte
    copyShapefile('Wards_2020', '2020/ward')
    writeJson('2020/set.json', {
      vintage: { ward: '2020 delimitation' },
      effective_from: '2021-11-01',
      effective_to: null,
      source: SET_2020_SOURCE,
    })

    // ---- register: registration divisions
    const divisions = registrationDivisions(geography)
    writeLines(
      'register/registration_division.geojsonl',
      divisions.all.map((d) =>
        registerLine(
          { code: d.code, name: d.name, category: 'ADMIN', province: d.province, parent: d.province },
          d.geometry,
        ),
      ),
      'register/registration_division',
    )

    // ---- register: Deeds Registry areas
    writeLines(
      'register/deeds_office.geojsonl',
      deedsOffices(geography).map((d) =>
        registerLine({ code: d.code, name: d.name, category: '', province: d.province, parent: '' }, toGeometry(d.mp)),
      ),
      'register/deeds_office',
    )

    // ---- register: suburbs around this run's townships first, then WOF neighbourhoods and towns
    const plans = planTownships(ctx)
    const townshipLocalities = new Set(plans.map((p) => p.locality))
    const usable = (l: SaLocality) => usableTownName(l.name)
    const suburbs = placeBoxes(
      geography,
      SUBURB_QUOTAS,
      (code) => {
        const mine = geography.saLocalities.filter((l) => l.province === code && usable(l))
        return [
          ...mine.filter((l) => townshipLocalities.has(l)).sort((a, b) => a.wofId - b.wofId),
          ...mine
            .filter((l) => !townshipLocalities.has(l) && l.placetype === 'neighbourhood')
            .sort((a, b) => a.wofId - b.wofId),
          ...mine.filter((l) => !townshipLocalities.has(l) && l.placetype === 'locality').sort(compareTowns),
        ]
      },
      { minSpacingM: 800, minEdgeM: 400, capM: 1_200 },
    )
    const townships = readTownships(ctx.outDir)
    const suburbRnd = ctx.random('boundaries/suburb')
    const suburbLines: string[] = []
    let suburbsInTownships = 0
    for (const [code, placed] of suburbs) {
      numbered(placed).forEach((s, i) => {
        const parents = townships
          .filter((t) => t.province === code && t.outline.contains(s.loc.lon, s.loc.lat))
          .map((t) => t.code)
          .sort()
        if (parents.length > 0) suburbsInTownships++
        const geometry = boxAround(
          s.loc.lon,
          s.loc.lat,
          s.halfM * suburbRnd.range(0.7, 1),
          s.halfM * suburbRnd.range(0.7, 1),
        )
        suburbLines.push(
          registerLine(
            {
              code: `SUB-${code}-${String(i + 1).padStart(3, '0')}`,
              name: s.loc.name,
              category: '',
              province: code,
              parent: parents[0] ?? '',
            },
            geometry,
          ),
        )
      })
    }
    writeLines('register/suburb.geojsonl', suburbLines, 'register/suburb')

    // ---- register: pre-1994 municipalities around the largest WOF towns
    const pre1994 = placeBoxes(
      geography,
      PRE1994_QUOTAS,
      (code) =>
        geography.saLocalities
          .filter((l) => l.province === code && l.placetype === 'locality' && usable(l))
          .sort(compareTowns),
      { minSpacingM: 2_000, minEdgeM: 1_000, capM: 3_000 },
    )
    const preRnd = ctx.random('boundaries/pre1994')
    const preLines: string[] = []
    for (const [code, placed] of pre1994) {
      numbered(placed).forEach((s, i) => {
        const geometry = boxAround(s.loc.lon, s.loc.lat, s.halfM * preRnd.range(0.7, 1), s.halfM * preRnd.range(0.7, 1))
        preLines.push(
          registerLine(
            {
              code: `P94-${code}-${String(i + 1).padStart(3, '0')}`,
              name: `${s.loc.name} Municipality`,
              category: '',
              province: code,
              parent: '',
            },
            geometry,
          ),
        )
      })
    }
    writeLines('register/pre1994_municipal.geojsonl', preLines, 'register/pre1994_municipal')

    writeJson('register/set.json', { vintage: 'cadastral register', source: 'synthetic (build-index/synth)' })
    for (const [type, n] of Object.entries(REGISTER_COUNTS)) {
      if (counts[`register/${type}`] !== n)
        throw new Error(`boundaries: wrote ${counts[`register/${type}`]} ${type}, expected ${n}`)
    }
    // townships come with the cadastre layer (its geometry); count what is there
    counts['register/township'] = townships.length
    if (townships.length === 0)
      ctx.log('  boundaries: no register/township.geojsonl (townships come with the cadastre layer)')

    return {
      layer: 'boundaries',
      domain: 'boundaries',
      files,
      counts,
      details: { suburbs_in_townships: suburbsInTownships, division_targets: divisions.targets },
    }
  },
}
