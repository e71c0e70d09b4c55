/**
 * The real geography behind the generator, loaded once from `data/real/` and shared by every
 * layer: South African province outlines (Natural Earth admin-1), the Botswana country outline
 * and district/town polygons, the 26 Botswana towns at their WOF positions, and every WOF
 * locality in South Africa assigned to its province.
 *
 * Later generators (cadastre, encumbrances, boundaries) take what they need from
 * {@link Geography} instead of re-reading the files.
 *
 * Town positions come from WOF; only two of the 26 towns (Mmopane, Moshupa) are missing from the
 * WOF extract and use the hard-coded fallback coordinates in {@link BOTSWANA_TOWNS}.
 *
 * @module
 */
import { readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseCsv } from './csv.js'
import { Polygonal, type PolygonalGeometry } from './geo-math.js'

/** Province codes as the plot/parcel specs and build-index use them. */
export type ProvinceCode = 'EC' | 'FS' | 'GP' | 'KZ' | 'LP' | 'MP' | 'NC' | 'NW' | 'WC'

/** Static facts about a South African province. */
export interface ProvinceInfo {
  /** Spec code (EC, FS, GP, KZ, LP, MP, NC, NW, WC). */
  code: ProvinceCode
  /** Upper-case name as written in exports and responses, e.g. `KWAZULU-NATAL`. */
  name: string
  /** Natural-case name, e.g. `KwaZulu-Natal`. */
  title: string
  /** Municipal Demarcation Board code (GT, KZN, LIM differ from the spec code). */
  mdbCode: string
  /** Natural Earth `iso_3166_2` value (ZA-GT, ZA-NL, ZA-LP differ from the spec code). */
  neIso: string
  /** First digit of an MDB ward ID (docs/domain.md 2.1). */
  wardDigit: number
}

/** The nine provinces, in spec-code order. */
export const PROVINCES: readonly ProvinceInfo[] = [
  { code: 'EC', name: 'EASTERN CAPE', title: 'Eastern Cape', mdbCode: 'EC', neIso: 'ZA-EC', wardDigit: 2 },
  { code: 'FS', name: 'FREE STATE', title: 'Free State', mdbCode: 'FS', neIso: 'ZA-FS', wardDigit: 4 },
  { code: 'GP', name: 'GAUTENG', title: 'Gauteng', mdbCode: 'GT', neIso: 'ZA-GT', wardDigit: 7 },
  { code: 'KZ', name: 'KWAZULU-NATAL', title: 'KwaZulu-Natal', mdbCode: 'KZN', neIso: 'ZA-NL', wardDigit: 5 },
  { code: 'LP', name: 'LIMPOPO', title: 'Limpopo', mdbCode: 'LIM', neIso: 'ZA-LP', wardDigit: 9 },
  { code: 'MP', name: 'MPUMALANGA', title: 'Mpumalanga', mdbCode: 'MP', neIso: 'ZA-MP', wardDigit: 8 },
  { code: 'NC', name: 'NORTHERN CAPE', title: 'Northern Cape', mdbCode: 'NC', neIso: 'ZA-NC', wardDigit: 3 },
  { code: 'NW', name: 'NORTH WEST', title: 'North West', mdbCode: 'NW', neIso: 'ZA-NW', wardDigit: 6 },
  { code: 'WC', name: 'WESTERN CAPE', title: 'Western Cape', mdbCode: 'WC', neIso: 'ZA-WC', wardDigit: 1 },
]

/** A province with its Natural Earth outline. */
export interface Province extends ProvinceInfo {
  outline: Polygonal
}

/** How a Botswana town's centre was found. */
export type TownPositionSource = 'wof-locality' | 'wof-region' | 'fallback'

/** Static facts about one of the 26 Botswana towns the plot service covers. */
export interface BotswanaTownInfo {
  /** Name as written in the plots export (natural case). */
  name: string
  /** District or urban authority (docs/domain.md 3.1). */
  district: string
  /** 2022 census population (Kasane: its district's), used to weight plot counts. */
  population: number
  /** City and town councils have surveyed state land only; villages also have tribal land. */
  kind: 'city' | 'town' | 'village'
  /** True when the town gets a tribal-land area numbered again from its own range. */
  tribalArea: boolean
  /** WOF locality names to look for (WOF spells some differently). */
  wofNames: string[]
  /** Preferred WOF region when several localities share the name. */
  wofRegion?: string
  /** Use the centre of this WOF region polygon instead of a locality. */
  wofRegionCentre?: string
  /** Last-resort [lon, lat], used only when WOF has no usable record. */
  fallback?: [number, number]
}

/**
 * The 26 towns: the 21 of docs/domain.md 3.1 and the next five by population (Mmopane, Thamaga,
 * Moshupa, Tonota, Bobonong). The set is a product decision (docs/domain.md: no standard list).
 */
export const BOTSWANA_TOWNS: readonly BotswanaTownInfo[] = [
  {
    name: 'Gaborone',
    district: 'Gaborone City',
    population: 246_325,
    kind: 'city',
    tribalArea: false,
    wofNames: ['Gaborone'],
  },
  {
    name: 'Francistown',
    district: 'Francistown City',
    population: 103_417,
    kind: 'city',
    tribalArea: false,
    wofNames: ['Francistown'],
  },
  {
    name: 'Mogoditshane',
    district: 'Kweneng',
    population: 88_004,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Mogoditshane'],
  },
  {
    name: 'Maun',
    district: 'North-West',
    population: 85_350,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Maun'],
    wofRegion: 'North-West',
  },
  {
    name: 'Molepolole',
    district: 'Kweneng',
    population: 74_861,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Molepolole'],
  },
  {
    name: 'Serowe',
    district: 'Central',
    population: 55_676,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Serowe'],
    wofRegion: 'Central',
  },
  {
    name: 'Tlokweng',
    district: 'South-East',
    population: 55_508,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Tlokweng'],
  },
  {
    name: 'Palapye',
    district: 'Central',
    population: 52_636,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Palapye'],
  },
  {
    name: 'Mochudi',
    district: 'Kgatleng',
    population: 50_321,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Mochudi'],
  },
  {
    name: 'Mahalapye',
    district: 'Central',
    population: 48_431,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Mahalapye'],
  },
  { name: 'Kanye', district: 'Southern', population: 48_028, kind: 'village', tribalArea: true, wofNames: ['Kanye'] },
  {
    name: 'Selebi-Phikwe',
    district: 'Selebi-Phikwe Town',
    population: 42_488,
    kind: 'town',
    tribalArea: false,
    wofNames: ['Selebi-Phikwe', 'Selebi-Pikwe'],
  },
  {
    name: 'Letlhakane',
    district: 'Central',
    population: 36_404,
    kind: 'village',
    tribalArea: false,
    wofNames: ['Letlhakane'],
  },
  {
    name: 'Ramotswa',
    district: 'South-East',
    population: 33_271,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Ramotswa'],
  },
  {
    name: 'Lobatse',
    district: 'Lobatse Town',
    population: 29_772,
    kind: 'town',
    tribalArea: false,
    wofNames: ['Lobatse'],
  },
  { name: 'Kasane', district: 'Chobe', population: 28_743, kind: 'village', tribalArea: false, wofNames: ['Kasane'] },
  {
    name: 'Mmopane',
    district: 'Kweneng',
    population: 25_460,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Mmopane'],
    // not in the WOF extract: hard-coded fallback, the village's approximate centre (about 7 km
    // NW of Mogoditshane), good to a couple of kilometres
    fallback: [25.805, -24.585],
  },
  {
    name: 'Thamaga',
    district: 'Kweneng',
    population: 25_300,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Thamaga'],
  },
  {
    name: 'Moshupa',
    district: 'Southern',
    population: 23_858,
    kind: 'village',
    tribalArea: true,
    wofNames: ['Moshupa'],
    // not in the WOF extract: hard-coded fallback, 24°46′45″S 25°25′06″E as published for the village
    fallback: [25.41833, -24.77917],
  },
  { name: 'Tonota', district: 'Central', population: 23_296, kind: 'village', tribalArea: true, wofNames: ['Tonota'] },
  {
    name: 'Bobonong',
    district: 'Central',
    population: 21_216,
    kind: 'village',
    tribalArea: false,
    wofNames: ['Bobonong'],
  },
  {
    name: 'Ghanzi',
    district: 'Ghanzi',
    population: 19_012,
    kind: 'village',
    tribalArea: false,
    wofNames: ['Ghanzi', 'Gantsi', 'Khanzi'],
  },
  {
    name: 'Jwaneng',
    district: 'Jwaneng Town',
    population: 18_784,
    kind: 'town',
    tribalArea: false,
    wofNames: ['Jwaneng'],
  },
  {
    name: 'Tsabong',
    district: 'Kgalagadi',
    population: 11_651,
    kind: 'village',
    tribalArea: false,
    wofNames: ['Tsabong', 'Tshabong'],
  },
  { name: 'Orapa', district: 'Orapa Town', population: 8_648, kind: 'town', tribalArea: false, wofNames: ['Orapa'] },
  // WOF's "Sowa" locality is a different village in Central (-21.83, 26.59); the town is the
  // WOF "Sowa" region (Sowa Town council area), so its polygon centre is used
  {
    name: 'Sowa',
    district: 'Sowa Town',
    population: 2_914,
    kind: 'town',
    tribalArea: false,
    wofNames: [],
    wofRegionCentre: 'Sowa',
  },
]

/** A Botswana town with its resolved centre. */
export interface BotswanaTown extends BotswanaTownInfo {
  lon: number
  lat: number
  positionSource: TownPositionSource
  /** WOF record the position came from, when it came from WOF. */
  wofId?: number
}

/** A Botswana WOF region (9 districts and 6 city/town councils). */
export interface BotswanaRegion {
  wofId: number
  name: string
  shortcode: string
  outline: Polygonal
}

/** A WOF locality or neighbourhood in South Africa, inside one province outline. */
export interface SaLocality {
  wofId: number
  name: string
  placetype: 'locality' | 'neighbourhood'
  lon: number
  lat: number
  province: ProvinceCode
  /** GeoNames population, 0 when unknown. */
  population: number
  isCurrent: boolean
  /** WOF geometry source (geonames, quattroshapes, qs_pg …). */
  srcGeom: string
  /** True when WOF holds a polygon (this point is then its centroid). */
  hasPolygon: boolean
}

/** Everything the layers need, loaded from `data/real/`. */
export interface Geography {
  /** The `data/real` folder read. */
  dataDir: string
  /** The nine provinces, in spec-code order. */
  provinces: Province[]
  /** Province by spec code. */
  province(code: ProvinceCode): Province
  /** The province whose outline contains the point, or null (sea, Lesotho, eSwatini, abroad). */
  provinceAt(lon: number, lat: number): Province | null
  /** Botswana country outline (Natural Earth admin-0). */
  botswana: Polygonal
  /** South Africa country outline (Natural Earth admin-0). */
  southAfrica: Polygonal
  /** Botswana WOF regions (districts and urban councils). */
  botswanaRegions: BotswanaRegion[]
  /** The 26 towns, in {@link BOTSWANA_TOWNS} order. */
  botswanaTowns: BotswanaTown[]
  /** WOF South African localities with a name, inside a province, in file order. */
  saLocalities: SaLocality[]
}

interface Feature {
  properties: Record<string, unknown>
  geometry: PolygonalGeometry
}

function readJson(path: string): { features: Feature[] } {
  return JSON.parse(readFileSync(path, 'utf8')) as { features: Feature[] }
}

function requireFile(path: string): string {
  if (!existsSync(path)) {
    throw new Error(
      `missing real-data file ${path}; run from the project root or set LANDDATA_ROOT (see data/real/ATTRIBUTION.md)`,
    )
  }
  return path
}

/** Area-weighted centre of the largest part of an outline (shoelace), for a label position. */
function polygonCentre(geometry: PolygonalGeometry): [number, number] {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
  let best: [number, number] = [NaN, NaN]
  let bestArea = -1
  for (const polygon of polygons) {
    const ring = polygon[0]
    let a = 0
    let cx = 0
    let cy = 0
    for (let i = 0; i < ring.length - 1; i++) {
      const [x1, y1] = ring[i]
      const [x2, y2] = ring[i + 1]
      const f = x1 * y2 - x2 * y1
      a += f
      cx += (x1 + x2) * f
      cy += (y1 + y2) * f
    }
    if (Math.abs(a) > bestArea) {
      bestArea = Math.abs(a)
      best = [cx / (3 * a), cy / (3 * a)]
    }
  }
  return best
}

function resolveTown(
  info: BotswanaTownInfo,
  localities: Record<string, string>[],
  regions: BotswanaRegion[],
): BotswanaTown {
  if (info.wofRegionCentre) {
    const region = regions.find((r) => r.name === info.wofRegionCentre)
    if (region) {
      const [lon, lat] = polygonCentre(region.outline.geometry)
      return { ...info, lon, lat, positionSource: 'wof-region', wofId: region.wofId }
    }
  }
  const names = new Set(info.wofNames.map((n) => n.toLowerCase()))
  const candidates = localities
    .filter((r) => r.placetype === 'locality' && names.has(r.name.toLowerCase()) && r.deprecated === '')
    .sort((a, b) => {
      // prefer current records, then the expected region, then the stable WOF id
      const cur = Number(b.is_current === '1') - Number(a.is_current === '1')
      if (cur !== 0) return cur
      const reg = Number(b.region_name === info.wofRegion) - Number(a.region_name === info.wofRegion)
      if (reg !== 0) return reg
      return Number(a.wof_id) - Number(b.wof_id)
    })
  const hit = candidates[0]
  if (hit)
    return {
      ...info,
      lon: Number(hit.lon),
      lat: Number(hit.lat),
      positionSource: 'wof-locality',
      wofId: Number(hit.wof_id),
    }
  if (info.fallback) return { ...info, lon: info.fallback[0], lat: info.fallback[1], positionSource: 'fallback' }
  throw new Error(`Botswana town ${info.name} not found in WOF localities and has no fallback position`)
}

const cache = new Map<string, Geography>()

/**
 * Loads (once per folder) the real geography from `dataDir` (normally `<root>/data/real`).
 * Throws with the missing path when a file is absent.
 */
export function loadGeography(dataDir: string): Geography {
  const cached = cache.get(dataDir)
  if (cached) return cached

  // provinces: Natural Earth admin-1, keyed by iso_3166_2
  const admin1 = readJson(requireFile(join(dataDir, 'naturalearth-za-bw/ne10m_admin1_za_bw.geojson')))
  const provinces: Province[] = PROVINCES.map((info) => {
    const f = admin1.features.find((x) => x.properties.iso_3166_2 === info.neIso)
    if (!f) throw new Error(`Natural Earth admin-1 has no ${info.neIso} (${info.title})`)
    return { ...info, outline: new Polygonal(f.geometry) }
  })
  const byCode = new Map(provinces.map((p) => [p.code, p]))

  const countries = readJson(requireFile(join(dataDir, 'naturalearth-za-bw/ne10m_countries_southern_africa.geojson')))
  const country = (iso: string): Polygonal => {
    const f = countries.features.find((x) => x.properties.iso_a3 === iso)
    if (!f) throw new Error(`Natural Earth countries has no ${iso}`)
    return new Polygonal(f.geometry)
  }

  const regionFile = readJson(requireFile(join(dataDir, 'wof-botswana/wof_bw_regions.geojson')))
  const botswanaRegions: BotswanaRegion[] = regionFile.features.map((f) => ({
    wofId: Number(f.properties['wof:id']),
    name: String(f.properties['wof:name']),
    shortcode: String(f.properties['wof:shortcode'] ?? ''),
    outline: new Polygonal(f.geometry),
  }))

  const bwLocalities = parseCsv(readFileSync(requireFile(join(dataDir, 'wof-botswana/wof_bw_localities.csv')), 'utf8'))
  const botswanaTowns = BOTSWANA_TOWNS.map((t) => resolveTown(t, bwLocalities, botswanaRegions))

  const provinceAt = (lon: number, lat: number): Province | null => {
    for (const p of provinces) if (p.outline.contains(lon, lat)) return p
    return null
  }

  const saRows = parseCsv(readFileSync(requireFile(join(dataDir, 'wof-south-africa/wof_za_localities.csv')), 'utf8'))
  const saLocalities: SaLocality[] = []
  for (const r of saRows) {
    const name = r.name.trim()
    const lon = Number(r.lon)
    const lat = Number(r.lat)
    if (!name || !Number.isFinite(lon) || !Number.isFinite(lat)) continue
    // WOF's own hierarchy is not used: the outlines here decide the province
    const province = provinceAt(lon, lat)
    if (!province) continue
    saLocalities.push({
      wofId: Number(r.wof_id),
      name,
      placetype: r.placetype === 'neighbourhood' ? 'neighbourhood' : 'locality',
      lon,
      lat,
      province: province.code,
      population: Number(r.gn_population) || 0,
      isCurrent: r.is_current === '1',
      srcGeom: r.src_geom,
      hasPolygon: r.geom_type === 'Polygon' || r.geom_type === 'MultiPolygon',
    })
  }

  const geography: Geography = {
    dataDir,
    provinces,
    province(code) {
      const p = byCode.get(code)
      if (!p) throw new Error(`unknown province code ${code}`)
      return p
    },
    provinceAt,
    botswana: country('BWA'),
    southAfrica: country('ZAF'),
    botswanaRegions,
    botswanaTowns,
    saLocalities,
  }
  cache.set(dataDir, geography)
  return geography
}
