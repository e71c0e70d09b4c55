// geojsonseq: one feature per line, as `ogr2ogr -f GeoJSONSeq` writes it. a line may start with an
// rfc 8142 record separator; such a record may also be pretty-printed over several lines, in which
// case it runs until its json value closes.
import { featureToRow, jsonFeatureToRow } from './geojson-feature.js'
import { readLineBatches } from './lines.js'
import type { DeferredRow, SourceRow } from './source-row.js'

const RECORD_SEPARATOR = 0x1e

/**
 * Streams the features of a GeoJSONSeq file; refs are `<file>:<line>` (where the record starts).
 * With `deferJson`, a feature alone on its line (the usual layout) comes as its text, unparsed.
 */
export function readGeoJsonSeq(file: string): AsyncGenerator<SourceRow>
export function readGeoJsonSeq(file: string, deferJson: true): AsyncGenerator<SourceRow | DeferredRow>
export async function* readGeoJsonSeq(file: string, deferJson = false): AsyncGenerator<SourceRow | DeferredRow> {
  let lineNo = 0
  let open: OpenRecord | null = null
  for await (const lines of readLineBatches(file)) {
    for (let line of lines) {
      lineNo++
      if (line.charCodeAt(0) === RECORD_SEPARATOR) {
        if (open !== null && !open.isBlank()) yield open.finish(file)
        open = null
        line = stripSeparators(line)
        // the usual case is a whole feature on the line: parse it once and move on
        const parsed = tryParse(line)
        if (parsed.ok) yield featureToRow(parsed.value, `${file}:${lineNo}`)
        else open = new OpenRecord(line, lineNo)
      } else if (open !== null) {
        open.append(line, lineNo)
      } else if (!isBlank(line)) {
        yield deferJson
          ? { ok: 'json', ref: `${file}:${lineNo}`, text: line }
          : jsonFeatureToRow(line, `${file}:${lineNo}`)
      }
      // a broken one-line record is complete at once; a pretty-printed one when its value closes
      if (open?.complete) {
        yield open.finish(file)
        open = null
      }
    }
  }
  if (open !== null && !open.isBlank()) yield open.finish(file)
}

/** A separator-started record whose json continues on the following lines. */
class OpenRecord {
  private readonly balance = new JsonBalance()

  constructor(
    private text: string,
    private line: number,
  ) {
    this.balance.feed(text)
  }

  /** True once the record's json value has closed. */
  get complete(): boolean {
    return this.balance.complete
  }

  append(line: string, lineNo: number): void {
    // a bare separator line leaves the record to start on its first text line
    if (isBlank(this.text)) this.line = lineNo
    this.text += '\n' + line
    this.balance.feed(line)
  }

  finish(file: string): SourceRow {
    return jsonFeatureToRow(this.text, `${file}:${this.line}`)
  }

  isBlank(): boolean {
    return isBlank(this.text)
  }
}

/** Tracks json nesting outside strings, to tell when a value spread over lines has closed. */
class JsonBalance {
  private depth = 0
  private opened = false
  private inString = false
  private escaped = false

  get complete(): boolean {
    return this.opened && this.depth === 0 && !this.inString
  }

  feed(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === 0x5c) this.escaped = true
        else if (c === 0x22) this.inString = false
      } else if (c === 0x22) this.inString = true
      else if (c === 0x7b || c === 0x5b) {
        this.depth++
        this.opened = true
      } else if (c === 0x7d || c === 0x5d) this.depth--
    }
  }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

function stripSeparators(line: string): string {
  let i = 0
  while (line.charCodeAt(i) === RECORD_SEPARATOR) i++
  return line.slice(i)
}

// cheap for the usual case: a feature line starts with `{`
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 32) return false
  return true
}
