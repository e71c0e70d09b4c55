// a .geojson FeatureCollection can be far larger than one javascript string may hold, so instead
// of parsing the file whole, a byte scanner cuts the top-level `features` array into its elements
// and each element is parsed on its own.
import { createReadStream } from 'node:fs'
import { crsProblem } from './crs.js'
import { jsonFeatureToRow } from './geojson-feature.js'
import type { SourceRow } from './source-row.js'

const CHUNK_BYTES = 1 << 20
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const MAX_KEY_BYTES = 64

/** Streams the features of a GeoJSON FeatureCollection file; refs are `<file>#<feature>`. */
export async function* readGeoJsonCollection(file: string): AsyncGenerator<SourceRow> {
  const scanner = new FeatureArrayScanner()
  let featureNo = 0
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
      for (const text of scanner.scan(chunk as Buffer)) yield jsonFeatureToRow(text, `${file}#${++featureNo}`)
    }
    for (const text of scanner.finish()) yield jsonFeatureToRow(text, `${file}#${++featureNo}`)
  } catch (error) {
    if (error instanceof NotACollection) throw new Error(`${file}: ${error.message}`)
    throw error
  }
}

class NotACollection extends Error {}

/**
 * Finds the elements of the top-level `features` array in a stream of JSON bytes. It tracks only
 * nesting depth, strings and the keys of the top-level object; each element's own syntax is left
 * to JSON.parse, so a broken feature is rejected alone.
 */
export class FeatureArrayScanner {
  private depth = 0
  private inString = false
  private escaped = false
  private keyBytes: number[] = []
  private lastString = ''
  private key = ''
  private inFeatures = false
  private foundFeatures = false
  private parts: Buffer[] = []
  private start = -1
  /** bytes scanned before the current chunk, for the offsets errors name */
  private offset = 0
  /** the top-level object has closed: only whitespace may follow */
  private closed = false
  private elements = 0
  /** the top-level `crs` object's bytes while it is being read (from `crsStart` in this chunk) */
  private crsParts: Buffer[] | null = null
  private crsStart = 0

  /** Scans the next chunk and returns the texts of the elements it completes. */
  scan(chunk: Buffer): string[] {
    const out: string[] = []
    if (this.inFeatures) this.start = 0
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]
      if (this.inString) this.stringByte(c)
      else if (this.closed) this.afterEnd(c, i)
      else this.structureByte(chunk, i, c, out)
    }
    if (this.inFeatures) this.parts.push(chunk.subarray(this.start))
    if (this.crsParts) {
      this.crsParts.push(chunk.subarray(this.crsStart))
      this.crsStart = 0
    }
    this.offset += chunk.length
    return out
  }

  /**
   * Ends the scan. A file that ends before its top-level object closes is truncated (a cut
   * export, even one cut exactly between two features, would otherwise build part of a layer
   * without a word): an error naming the offset and how many features came before it.
   */
  finish(): string[] {
    if (!this.foundFeatures) throw new NotACollection('not a GeoJSON FeatureCollection (no "features" array)')
    if (!this.closed) {
      throw new NotACollection(
        `truncated: the file ends at byte ${this.offset} before the FeatureCollection closes ` +
          `(${this.inFeatures ? 'inside the "features" array' : 'after it'}, ${this.elements} complete features ` +
          'before the cut); export the layer again',
      )
    }
    return []
  }

  /** After the top-level object: whitespace only. */
  private afterEnd(c: number, i: number): void {
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return
    throw new NotACollection(
      `unexpected content at byte ${this.offset + i}, after the end of the FeatureCollection ` +
        '(two collections in one file, or a damaged export?)',
    )
  }

  private stringByte(c: number): void {
    if (this.escaped) this.escaped = false
    else if (c === BACKSLASH) this.escaped = true
    else if (c === QUOTE) {
      this.inString = false
      if (this.depth === 1) this.lastString = Buffer.from(this.keyBytes).toString('utf8')
    } else if (this.depth === 1 && this.keyBytes.length < MAX_KEY_BYTES) this.keyBytes.push(c)
  }

  private structureByte(chunk: Buffer, i: number, c: number, out: string[]): void {
    switch (c) {
      case QUOTE:
        this.inString = true
        if (this.depth === 1) this.keyBytes.length = 0
        return
      case COLON:
        if (this.depth === 1) this.key = this.lastString
        return
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.open(c, i)
        return
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.depth--
        if (this.inFeatures && this.depth === 1) {
          this.endElement(chunk, i, out, true)
          this.inFeatures = false
        }
        if (this.depth === 0) this.closed = true
        if (this.crsParts && this.depth === 1) this.checkCrs(chunk.subarray(this.crsStart, i + 1))
        return
      case COMMA:
        if (this.inFeatures && this.depth === 2) {
          this.endElement(chunk, i, out, false)
          this.start = i + 1
        }
        return
      default:
        if (this.depth === 0 && !this.foundFeatures && !isSkippableBeforeStart(c)) {
          throw new NotACollection('not a GeoJSON FeatureCollection (not a JSON object)')
        }
    }
  }

  private open(c: number, i: number): void {
    if (this.depth === 0 && c !== OPEN_OBJECT)
      throw new NotACollection('not a GeoJSON FeatureCollection (not a JSON object)')
    if (this.depth === 1 && c === OPEN_OBJECT && this.key === 'crs') {
      this.crsParts = []
      this.crsStart = i
    }
    if (this.depth === 1 && c === OPEN_ARRAY && this.key === 'features' && !this.foundFeatures) {
      this.inFeatures = true
      this.foundFeatures = true
      this.start = i + 1
    }
    this.depth++
  }

  /** The whole `crs` object read: anything but WGS84 longitude/latitude refuses the file. */
  private checkCrs(last: Buffer): void {
    const bytes = Buffer.concat([...this.crsParts!, last])
    this.crsParts = null
    let crs: unknown
    try {
      crs = JSON.parse(bytes.toString('utf8'))
    } catch {
      throw new NotACollection('its crs member is not valid JSON')
    }
    const problem = crsProblem(crs)
    if (problem) throw new NotACollection(problem)
  }

  private endElement(chunk: Buffer, end: number, out: string[], closing: boolean): void {
    this.parts.push(chunk.subarray(this.start, end))
    const text = this.takeElement()
    // `[]` and a trailing comma leave a blank element at the close; a blank one between commas is an error
    if (!closing || !isBlank(text)) {
      out.push(text)
      this.elements++
    }
  }

  private takeElement(): string {
    const bytes = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts)
    this.parts = []
    return bytes.toString('utf8')
  }
}

// json whitespace and the utf-8 byte-order mark
function isSkippableBeforeStart(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xef || c === 0xbb || c === 0xbf
}

function isBlank(text: string): boolean {
  return text.trim() === ''
}
