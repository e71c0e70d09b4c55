/**
 * The rows of a bulk job's upload (docs/api.md "Bulk jobs"), read as the body streams in: a CSV
 * with a header row (RFC 4180: quoted fields may hold commas, quotes doubled, line breaks) or
 * NDJSON, one JSON object a line. Nothing is held but the line being read: `push` takes each
 * chunk of bytes and hands every complete row to `onRow` as a record of column to text.
 *
 * Strict on purpose (the upload is refused before anything is queued, naming the first bad row):
 * bytes that are not UTF-8, an empty line, a CSV row with more or fewer fields than the header,
 * an NDJSON line that is not one flat object, a field over {@link MAX_FIELD_CHARS}. A row number
 * is the data row's, from 1 (the CSV header is row 0).
 *
 * @module
 */

/** What the reader reads: `csv` (text/csv) or `ndjson` (application/x-ndjson). */
export type RowFormat = 'csv' | 'ndjson'

/** One data row: column name to its text (an empty CSV field is left out). */
export type Row = Record<string, string>

/** A field, or an NDJSON line, longer than this is refused (no lookup takes anything near it). */
export const MAX_FIELD_CHARS = 4096

/** A problem with the upload: `row` (0: the CSV header) and, when one is to blame, `column`. */
export class RowError extends Error {
  constructor(
    readonly row: number,
    message: string,
    readonly column?: string,
  ) {
    super(message)
  }
}

/**
 * Reads rows from UTF-8 chunks. `onHeader` sees the CSV header (or each NDJSON line's keys) and
 * throws a RowError to refuse a column; `onRow` gets each row and its number.
 */
export class RowReader {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true })
  /** text of the line being read (CSV: possibly several physical lines inside quotes) */
  private pending = ''
  private header: string[] | null = null
  private rowNo = 0

  constructor(
    private readonly format: RowFormat,
    private readonly onRow: (row: Row, n: number) => void,
    private readonly onHeader: (columns: readonly string[], n: number) => void,
  ) {}

  /** The data rows read so far. */
  get rows(): number {
    return this.rowNo
  }

  /** Reads a chunk; throws a RowError at the first bad row. */
  push(chunk: Uint8Array): void {
    this.take(this.decode(chunk, true))
  }

  /** The end of the body: reads a last line without its line break. */
  end(): void {
    this.take(this.decode(new Uint8Array(0), false))
    if (this.pending !== '') {
      const line = this.pending
      this.pending = ''
      if (this.format === 'csv' && !closedQuotes(line))
        throw new RowError(this.rowNo + (this.header ? 1 : 0), 'a quoted field is not closed before the end')
      this.line(line)
    }
    if (this.format === 'csv' && this.header === null) throw new RowError(0, 'the CSV has no header row')
  }

  private decode(chunk: Uint8Array, stream: boolean): string {
    try {
      return this.decoder.decode(chunk, { stream })
    } catch {
      // the row of the first bad byte: the line breaks before it in this chunk (the CSV header is row 0)
      const loose = new TextDecoder('utf-8').decode(chunk)
      const breaks = loose.slice(0, Math.max(0, loose.indexOf('\uFFFD'))).split('\n').length - 1
      const row = this.rowNo + breaks + (this.format === 'csv' && this.header === null ? 0 : 1)
      throw new RowError(row, `the body is not valid UTF-8 (row ${row})`)
    }
  }

  private take(text: string): void {
    let from = 0
    for (;;) {
      const nl = text.indexOf('\n', from)
      if (nl < 0) break
      const piece = this.pending + text.slice(from, nl)
      from = nl + 1
      // a line break inside a quoted CSV field belongs to the field
      if (this.format === 'csv' && !closedQuotes(piece)) {
        this.pending = `${piece}\n`
        this.checkLength()
        continue
      }
      this.pending = ''
      this.line(piece.endsWith('\r') ? piece.slice(0, -1) : piece)
    }
    this.pending += text.slice(from)
    this.checkLength()
  }

  private checkLength(): void {
    if (this.pending.length > MAX_FIELD_CHARS * 4)
      throw new RowError(this.rowNo + 1, `row ${this.rowNo + 1} is longer than ${MAX_FIELD_CHARS * 4} characters`)
  }

  private line(text: string): void {
    if (this.format === 'ndjson') return this.jsonLine(text)
    if (this.header === null) {
      if (text.trim() === '') throw new RowError(0, 'the CSV header row is empty')
      const names = splitCsv(text, 0).map((n) => n.trim())
      this.onHeader(names, 0)
      const seen = new Set<string>()
      for (const n of names) {
        if (seen.has(n)) throw new RowError(0, `the column ${JSON.stringify(n)} is named twice`, n)
        seen.add(n)
      }
      this.header = names
      return
    }
    const n = this.rowNo + 1
    if (text === '') throw new RowError(n, `row ${n} is empty`)
    const fields = splitCsv(text, n)
    if (fields.length !== this.header.length)
      throw new RowError(n, `row ${n} has ${fields.length} fields, the header ${this.header.length}`)
    const row: Row = {}
    for (let i = 0; i < fields.length; i++) {
      const v = fields[i]!
      if (v.length > MAX_FIELD_CHARS)
        throw new RowError(n, `row ${n}: ${this.header[i]} is longer than ${MAX_FIELD_CHARS}`, this.header[i])
      if (v !== '') row[this.header[i]!] = v
    }
    this.rowNo = n
    this.onRow(row, n)
  }

  private jsonLine(text: string): void {
    const n = this.rowNo + 1
    if (text.trim() === '') throw new RowError(n, `row ${n} is empty`)
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new RowError(n, `row ${n} is not valid JSON`)
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new RowError(n, `row ${n} is not a JSON object`)
    const row: Row = {}
    const names = Object.keys(value)
    this.onHeader(names, n)
    for (const k of names) {
      const v = (value as Record<string, unknown>)[k]
      if (typeof v === 'string') {
        if (v !== '') row[k] = v
      } else if (typeof v === 'number' || typeof v === 'boolean') row[k] = String(v)
      else if (v !== null) throw new RowError(n, `row ${n}: ${k} must be a string, number or boolean`, k)
    }
    this.rowNo = n
    this.onRow(row, n)
  }
}

/** Whether the line's quotes are balanced (an odd count: a quoted field goes on). */
function closedQuotes(s: string): boolean {
  let quotes = 0
  for (let i = s.indexOf('"'); i >= 0; i = s.indexOf('"', i + 1)) quotes++
  return quotes % 2 === 0
}

/** The fields of one CSV record (RFC 4180). */
export function splitCsv(line: string, row: number): string[] {
  const out: string[] = []
  let i = 0
  for (;;) {
    if (line[i] === '"') {
      let v = ''
      i++
      for (;;) {
        const q = line.indexOf('"', i)
        if (q < 0) throw new RowError(row, `row ${row}: a quoted field is not closed`)
        v += line.slice(i, q)
        if (line[q + 1] === '"') {
          v += '"'
          i = q + 2
          continue
        }
        i = q + 1
        break
      }
      if (i < line.length && line[i] !== ',')
        throw new RowError(row, `row ${row}: text follows a quoted field's closing quote`)
      out.push(v)
    } else {
      const comma = line.indexOf(',', i)
      const end = comma < 0 ? line.length : comma
      const v = line.slice(i, end)
      if (v.includes('"')) throw new RowError(row, `row ${row}: a quote inside an unquoted field`)
      out.push(v)
      i = end
    }
    if (i >= line.length) return out
    i++ // the comma
    if (i === line.length) {
      out.push('')
      return out
    }
  }
}

/** One CSV field, quoted when it must be. */
export function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v
}
