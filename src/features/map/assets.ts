/**
 * The map page's files (docs/map.md), read once at start and served from memory: the page
 * itself (`page/`: index.html and its ES modules and stylesheet), MapLibre GL JS from the
 * installed `maplibre-gl` package (its CSP build, whose worker is a file of this origin rather
 * than a blob), and the country outlines of the basemap (Natural Earth, from data/real/).
 *
 * Where they are: beside this module in the source tree (`src/features/map/page/`, the outlines
 * in data/real/), or in `dist/map/` beside the bundle, where scripts/build.mjs copies both (the
 * Docker image holds dist/ but not src/ or data/real/).
 *
 * Every file but index.html is served under `/map/assets/<version>/`, `version` being a digest
 * of all of them, so those answers can be cached for a year (`immutable`): a new build of the
 * page or a new MapLibre changes the version, and index.html (revalidated on every load) names
 * the new one. Compressed copies (brotli or gzip, as the request allows) are made on first use
 * and kept.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Coding, compress } from '../../http/compress.js'

/** One file of the page, with its compressed copies made on demand. */
export interface MapAsset {
  readonly body: Buffer
  readonly type: string
  readonly etag: string
  readonly coded: Partial<Record<Coding, Buffer>>
}

export interface MapAssets {
  /** index.html with the asset base filled in */
  readonly page: MapAsset
  /** the digest of every file, the path segment of their URLs */
  readonly version: string
  readonly files: ReadonlyMap<string, MapAsset>
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=UTF-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.geojson': 'application/geo+json',
}

/** The country outlines of the basemap, as data/real/ holds them and as dist/map/ names them. */
export const COUNTRIES_SOURCE = 'data/real/naturalearth-za-bw/ne10m_countries_southern_africa.geojson'
export const COUNTRIES_FILE = 'countries.geojson'
/** The MapLibre files served, from the package's dist/ directory. */
export const MAPLIBRE_FILES = ['maplibre-gl-csp.js', 'maplibre-gl-csp-worker.js', 'maplibre-gl.css'] as const

/** Where the page's own files are: the source tree's `page/`, else the bundle's `map/` (dist/map). */
function locate(): { pageDir: string; countries: string } {
  const here = dirname(fileURLToPath(import.meta.url))
  const source = join(here, 'page')
  if (existsSync(join(source, 'index.html')))
    return { pageDir: source, countries: join(here, '..', '..', '..', COUNTRIES_SOURCE) }
  const bundled = join(here, 'map')
  if (existsSync(join(bundled, 'index.html'))) return { pageDir: bundled, countries: join(bundled, COUNTRIES_FILE) }
  throw new Error(`the map page is missing: neither ${source} nor ${bundled} holds index.html (run npm run build)`)
}

function typeOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.')
  return dot < 0 ? undefined : TYPES[name.slice(dot)]
}

function asset(body: Buffer, type: string): MapAsset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`
  return { body, type, etag, coded: {} }
}

/** Reads every file of the page once; throws naming what is missing. */
export function loadMapAssets(): MapAssets {
  const { pageDir, countries } = locate()
  const raw = new Map<string, Buffer>()
  for (const name of readdirSync(pageDir).sort()) {
    if (name === 'index.html' || name === COUNTRIES_FILE || !typeOf(name)) continue
    raw.set(name, readFileSync(join(pageDir, name)))
  }
  const maplibre = dirname(createRequire(import.meta.url).resolve('maplibre-gl/package.json'))
  for (const name of MAPLIBRE_FILES) raw.set(name, readFileSync(join(maplibre, 'dist', name)))
  raw.set(COUNTRIES_FILE, readFileSync(countries))

  const digest = createHash('sha256')
  for (const [name, body] of raw) digest.update(name).update('\0').update(body)
  const version = digest.digest('base64url').slice(0, 12)
  const files = new Map<string, MapAsset>()
  for (const [name, body] of raw) files.set(name, asset(body, typeOf(name)!))
  const html = readFileSync(join(pageDir, 'index.html'), 'utf8').replaceAll('{{ASSETS}}', `/map/assets/${version}`)
  return { page: asset(Buffer.from(html), TYPES['.html']), version, files }
}

/** The body of `a` in `coding` (made once, then kept), or as it is when `coding` is null. */
export function bodyIn(a: MapAsset, coding: Coding | null): Buffer {
  if (coding === null) return a.body
  let coded = a.coded[coding]
  if (coded === undefined) a.coded[coding] = coded = compress(a.body, coding)
  return coded
}
