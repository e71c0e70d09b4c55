// entry point of the source readers: find a layer's file and stream its rows, whatever the format.
import { extname } from 'node:path'
import { readCsv } from './read-csv.js'
import { readGeoJsonCollection } from './read-geojson-collection.js'
import { readGeoJsonSeq } from './read-geojson-seq.js'
import { readGpkg } from './read-gpkg.js'
import { readShapefile } from './read-shapefile.js'
import { findFileIgnoringCase, isFile } from './sibling-file.js'
import type { DeferredRow, SourceRow } from './source-row.js'

export type {
  DeferredRow,
  SourceGeometry,
  SourceGeometryType,
  SourcePosition,
  SourceProperties,
  SourceRow,
  SourceValue,
} from './source-row.js'

/** Layer file extensions in order of preference when several exist for one layer. */
export const LAYER_EXTENSIONS = ['geojsonl', 'geojsons', 'geojson', 'gpkg', 'shp', 'csv'] as const

/** One of the layer file extensions. */
export type LayerExtension = (typeof LAYER_EXTENSIONS)[number]

/** Options of {@link readLayer}. */
export interface ReadLayerOptions {
  /**
   * Whether the layer holds points. CSV is accepted only for point layers, so `false` makes a
   * `.csv` file an error; left out, CSV is accepted.
   */
  pointLayer?: boolean
  /**
   * GeoJSONSeq only: a feature alone on its line comes as a {@link DeferredRow}, its JSON text
   * unparsed, for a caller that parses on another thread. Other formats ignore it.
   */
  deferJson?: boolean
  /**
   * CSV only: the columns the layer requires besides its coordinates. A header lacking any of
   * them, or a coordinate column, fails naming every one it lacks. Other formats name blank
   * fields row by row (build-index/transform/required.ts).
   */
  required?: readonly string[]
}

/**
 * Finds `<dir>/<base>.<ext>` for the first extension of {@link LAYER_EXTENSIONS} that exists,
 * or null (also when `dir` does not exist). The name is matched exactly first, then ignoring case.
 */
export function findLayerFile(dir: string, base: string): string | null {
  const listing = {}
  for (const ext of LAYER_EXTENSIONS) {
    const found = findFileIgnoringCase(dir, `${base}.${ext}`, listing)
    if (found !== null) return found
  }
  return null
}

/**
 * Streams the rows of one layer file, whatever its format (chosen by extension). Never throws for
 * a bad row: it yields `{ ok: false }` with the file, line or feature number and the reason.
 * Rows come in source order; stopping early releases the file.
 * @throws when the file itself cannot be opened or recognised; the message names the file
 */
export function readLayer(file: string, opts?: ReadLayerOptions & { deferJson?: false }): AsyncIterable<SourceRow>
export function readLayer(file: string, opts: ReadLayerOptions): AsyncIterable<SourceRow | DeferredRow>
export function readLayer(file: string, opts: ReadLayerOptions = {}): AsyncIterable<SourceRow | DeferredRow> {
  // the format readers are returned as they are, without a delegating generator per row
  if (!isFile(file)) return failing(`${file}: layer file not found`)
  const ext = extname(file).slice(1).toLowerCase()
  switch (ext) {
    case 'geojsonl':
    case 'geojsons':
      return opts.deferJson ? readGeoJsonSeq(file, true) : readGeoJsonSeq(file)
    case 'geojson':
      return readGeoJsonCollection(file)
    case 'gpkg':
      return readGpkg(file)
    case 'shp':
      return readShapefile(file)
    case 'csv':
      if (opts.pointLayer === false) return failing(`${file}: CSV holds point layers only, and this layer is not one`)
      return readCsv(file, opts.required)
    default:
      return failing(`${file}: unsupported layer format ".${ext}" (expected one of ${LAYER_EXTENSIONS.join(', ')})`)
  }
}

// reports a file-level problem when iteration starts, like the format readers do
// biome-ignore lint/correctness/useYield: a generator that fails as soon as it is iterated
async function* failing(message: string): AsyncGenerator<SourceRow> {
  throw new Error(message)
}
