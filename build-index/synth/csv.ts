/**
 * CSV in and out for the generator: a small RFC 4180 reader for the real-data inputs, and a
 * buffered, synchronous writer for the multi-million-row outputs.
 *
 * @module
 */
import { closeSync, openSync, renameSync, writeSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Parses CSV text (quoted fields, doubled quotes, CRLF or LF) into rows keyed by the header.
 * A blank trailing line is ignored.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const records: string[][] = []
  let field = ''
  let record: string[] = []
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      record.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      record.push(field)
      records.push(record)
      record = []
      field = ''
    } else field += ch
  }
  if (field !== '' || record.length > 0) {
    record.push(field)
    records.push(record)
  }
  const header = records.shift()
  if (!header) return []
  const rows: Record<string, string>[] = []
  for (const r of records) {
    if (r.length === 1 && r[0] === '') continue
    const row: Record<string, string> = {}
    for (let c = 0; c < header.length; c++) row[header[c]] = r[c] ?? ''
    rows.push(row)
  }
  return rows
}

/** Quotes a CSV field when it holds a comma, quote or line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

// about 1 MiB of text per write(2): few syscalls, bounded memory
const FLUSH_AT_CHARS = 1 << 20

/**
 * Streams lines to a file through a ~1 MiB string buffer with synchronous writes (no event-loop
 * backpressure to manage, no array of row strings). Writes to `<path>.tmp` and renames on
 * {@link LineWriter.close}, so an interrupted run never leaves a plausible-looking partial file.
 * Used as is for GeoJSONSeq (one Feature per line).
 */
export class LineWriter {
  /** Lines written (a header excluded). */
  rows = 0
  /** Bytes written, header included. */
  bytes = 0
  private fd: number
  protected buffer = ''
  private readonly tmpPath: string

  /** @param path final file path; parent folders are created */
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true })
    this.tmpPath = `${path}.tmp`
    this.fd = openSync(this.tmpPath, 'w')
  }

  /** Appends one already formatted line, which must end with `\n`. */
  line(text: string): void {
    this.buffer += text
    this.rows++
    if (this.buffer.length >= FLUSH_AT_CHARS) this.flush()
  }

  /** Writes out the buffer. */
  flush(): void {
    if (this.buffer.length === 0) return
    const chunk = Buffer.from(this.buffer, 'utf8')
    let off = 0
    while (off < chunk.length) off += writeSync(this.fd, chunk, off, chunk.length - off)
    this.bytes += chunk.length
    this.buffer = ''
  }

  /** Flushes, closes and moves the file into place. */
  close(): void {
    this.flush()
    closeSync(this.fd)
    renameSync(this.tmpPath, this.path)
  }
}

/** A {@link LineWriter} that starts with a CSV header line. */
export class CsvWriter extends LineWriter {
  /**
   * @param path final file path; parent folders are created
   * @param header column names, written as the first line
   */
  constructor(path: string, header: readonly string[]) {
    super(path)
    this.buffer = header.map(csvField).join(',') + '\n'
  }
}
