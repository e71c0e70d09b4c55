// esri shapefiles through the `shapefile` package, which yields geojson features. files are
// passed as streams since the package appends ".dbf" to paths not ending in lower-case ".dbf".
import { createReadStream, readFileSync } from 'node:fs'
import { open as openFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type * as Shapefile from 'shapefile'
import { prjProblem } from './crs.js'
import { featureToRow } from './geojson-feature.js'
import { findSibling } from './sibling-file.js'
import type { SourceRow } from './source-row.js'

const CHUNK_BYTES = 1 << 20

// the package's CommonJS (Node) build, always: a bundler or loader that prefers its `module`
// entry (vitest's global setup does) gets the browser build of stream-source, which cannot read
// Node streams
const { open: openShapefile } = createRequire(import.meta.url)('shapefile') as typeof Shapefile

/**
 * Streams the features of a shapefile and its .dbf; refs are `<file>#<record>`. The .dbf
 * encoding comes from a .cpg beside it, else UTF-8 when the records are valid UTF-8, else
 * windows-1252. A .prj beside it must name WGS84 longitude/latitude (none: taken as WGS84).
 * @throws when the .dbf is missing, the .prj names another coordinate system, the .cpg names an unknown encoding, or the file is corrupt
 */
export async function* readShapefile(file: string): AsyncGenerator<SourceRow> {
  const dbf = findSibling(file, 'dbf')
  if (dbf === null) throw new Error(`${file}: no .dbf beside the shapefile`)
  const prj = findSibling(file, 'prj')
  const problem = prj === null ? null : prjProblem(readFileSync(prj, 'utf8'))
  if (problem) throw new Error(`${file}: ${problem}`)
  const encoding = await dbfEncoding(file, dbf)
  const source = await openShapefile(createReadStream(file), createReadStream(dbf), { encoding }).catch(
    (error: Error) => {
      throw new Error(`${file}: cannot open shapefile: ${error.message}`)
    },
  )
  let featureNo = 0
  try {
    for (;;) {
      const result = await source.read().catch((error: Error) => {
        throw new Error(`${file}#${featureNo + 1}: cannot read shapefile record: ${error.message}`)
      })
      if (result.done) return
      yield featureToRow(result.value, `${file}#${++featureNo}`)
    }
  } finally {
    // closes both streams, also when the consumer stops early
    await source.cancel()
  }
}

/** Picks the text encoding of a shapefile's .dbf (a WHATWG encoding name). */
export async function dbfEncoding(shp: string, dbf: string): Promise<string> {
  const cpg = findSibling(shp, 'cpg')
  if (cpg !== null) return encodingFromCpg(cpg, readFileSync(cpg, 'latin1'))
  return (await dbfRecordsAreUtf8(dbf)) ? 'utf-8' : 'windows-1252'
}

/**
 * Maps the content of a .cpg file to an encoding name: ESRI code pages ("1252", "ANSI 1252",
 * "88591", "65001") or any WHATWG label ("UTF-8", "ISO-8859-1").
 * @throws naming the .cpg file when the encoding is unknown
 */
export function encodingFromCpg(cpg: string, text: string): string {
  const code = text
    .trim()
    .toLowerCase()
    .replace(/^ansi\s*/, '')
  let label = code
  if (code === '65001') label = 'utf-8'
  else if (/^8859\d{1,2}$/.test(code)) label = `iso-8859-${code.slice(4)}`
  else if (/^125\d$/.test(code)) label = `windows-${code}`
  try {
    return new TextDecoder(label).encoding
  } catch {
    throw new Error(`${cpg}: unknown encoding ${JSON.stringify(text.trim())}`)
  }
}

// only the records are checked: the dbf header holds binary counts that are not text
async function dbfRecordsAreUtf8(dbf: string): Promise<boolean> {
  const handle = await openFile(dbf, 'r')
  try {
    const head = Buffer.alloc(32)
    const { bytesRead } = await handle.read(head, 0, 32, 0)
    if (bytesRead < 32) return true
    const decoder = new TextDecoder('utf-8', { fatal: true })
    const chunk = Buffer.alloc(CHUNK_BYTES)
    let position = head.readUInt16LE(8)
    try {
      for (;;) {
        const { bytesRead: n } = await handle.read(chunk, 0, CHUNK_BYTES, position)
        if (n === 0) break
        decoder.decode(chunk.subarray(0, n), { stream: true })
        position += n
      }
      decoder.decode()
      return true
    } catch {
      return false
    }
  } finally {
    await handle.close()
  }
}
