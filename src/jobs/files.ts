/**
 * A job's files under JOBS_DIR: `<id>.input.ndjson`, its rows as validated (one JSON object of
 * column to text a line), and `<id>.results.ndjson`, one line per row answered.
 *
 * @module
 */
import { closeSync, existsSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const inputFile = (dir: string, id: string) => join(dir, `${id}.input.ndjson`)
export const resultsFile = (dir: string, id: string) => join(dir, `${id}.results.ndjson`)

/** Deletes a job's files (gone already: nothing to do). */
export function removeFiles(dir: string, id: string): void {
  rmSync(inputFile(dir, id), { force: true })
  rmSync(resultsFile(dir, id), { force: true })
}

/**
 * Reads the lines of a file from a byte offset, a chunk at a time; each line comes with the
 * offset just past its line break (where reading resumes after it).
 */
export class LineReader {
  private readonly fd: number
  private readonly buf = Buffer.allocUnsafe(64 * 1024)
  private carry = Buffer.alloc(0)
  private pos: number
  private eof = false

  constructor(file: string, offset: number) {
    this.fd = openSync(file, 'r')
    this.pos = offset
  }

  /** The next line (without its break) and the offset after it, or null at the end. */
  next(): { line: string; end: number } | null {
    for (;;) {
      const nl = this.carry.indexOf(10)
      if (nl >= 0) {
        const line = this.carry.subarray(0, nl).toString('utf8')
        const end = this.pos - this.carry.length + nl + 1
        this.carry = this.carry.subarray(nl + 1)
        return { line, end }
      }
      if (this.eof) return null
      const n = readSync(this.fd, this.buf, 0, this.buf.length, this.pos)
      if (n === 0) {
        this.eof = true
        // a last line without a break is not a whole line: never written so (see RowSink)
        continue
      }
      this.pos += n
      this.carry = this.carry.length
        ? Buffer.concat([this.carry, this.buf.subarray(0, n)])
        : Buffer.from(this.buf.subarray(0, n))
    }
  }

  /** Up to `n` next lines (fewer at the end, none past it). */
  take(n: number): { line: string; end: number }[] {
    const lines: { line: string; end: number }[] = []
    while (lines.length < n) {
      const next = this.next()
      if (!next) break
      lines.push(next)
    }
    return lines
  }

  close(): void {
    closeSync(this.fd)
  }
}

/**
 * The results file of a running job, appended to: cut back first to the last checkpoint's
 * offset, so the lines written after it by a process that then stopped are written again
 * once, never twice.
 */
export class ResultsFile {
  private readonly fd: number
  private pending: string[] = []
  private pendingBytes = 0

  constructor(
    file: string,
    private offset: number,
  ) {
    this.fd = openSync(file, existsSync(file) ? 'r+' : 'w+')
    ftruncateSync(this.fd, offset)
  }

  /** Adds a line (it ends with its break), held until `flush`. */
  add(line: string): void {
    this.pending.push(line)
    this.pendingBytes += Buffer.byteLength(line)
  }

  get held(): number {
    return this.pending.length
  }

  /** Writes the held lines; the offset after them (the checkpoint's). */
  flush(): number {
    if (this.pending.length) {
      const bytes = Buffer.from(this.pending.join(''), 'utf8')
      let done = 0
      while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.offset + done)
      this.offset += bytes.length
      this.pending = []
      this.pendingBytes = 0
    }
    return this.offset
  }

  close(): void {
    closeSync(this.fd)
  }
}
