/**
 * Reading a bulk job's upload (docs/api.md "Bulk jobs"): the body is read as it streams in,
 * each row checked against the operation (operations.ts) and written, as one JSON object a line,
 * to the job's input file; nothing of it is held whole. The first problem stops the reading and
 * deletes the file, so a refused upload leaves nothing queued.
 *
 * @module
 */
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { ApiError } from '../http/errors.js'
import type { JobOperation } from './operations.js'
import { type Row, RowError, RowReader, type RowFormat } from './rows.js'

export interface UploadLimits {
  /** rows at most (JOBS_MAX_ROWS) */
  maxRows: number
  /** bytes at most (JOBS_MAX_BYTES): more is a 413 */
  maxBytes: number
}

/** The format of a Content-Type, or the 415 to answer. */
export function formatOf(contentType: string | undefined): RowFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'text/csv') return 'csv'
  if (type === 'application/x-ndjson' || type === 'application/jsonl') return 'ndjson'
  throw new ApiError(
    'UnsupportedMediaType',
    `a job's rows are sent as text/csv (a header row, then one row a line) or application/x-ndjson (one JSON ` +
      `object a line), not ${type || 'a body without Content-Type'}`,
  )
}

/** The ValidationError of a bad row, naming it and its column. */
function refused(err: RowError): ApiError {
  return new ApiError('ValidationError', `the upload is refused: ${err.message}`, [
    { field: err.column ?? '(body)', message: err.message },
  ])
}

/**
 * Reads `body` into `file`; the rows and the columns (in the order first seen), or throws the
 * answer (400 naming the first bad row, 413 past the byte cap) with the file deleted.
 */
export async function readUpload(
  body: ReadableStream<Uint8Array> | null,
  format: RowFormat,
  op: JobOperation,
  limits: UploadLimits,
  file: string,
): Promise<{ rows: number; columns: string[] }> {
  // JOBS_DIR is made by the first upload (docs/operations.md "Bulk jobs"): its rows are written first
  mkdirSync(dirname(file), { recursive: true })
  const fd = openSync(file, 'wx')
  const columns: string[] = []
  const seen = new Set<string>()
  let lines: string[] = []
  const write = () => {
    if (lines.length) writeSync(fd, lines.join(''))
    lines = []
  }
  const reader = new RowReader(
    format,
    (row: Row, n: number) => {
      if (n > limits.maxRows) throw new RowError(n, `more than ${limits.maxRows} rows (JOBS_MAX_ROWS)`)
      op.checkRow(row, n)
      lines.push(`${JSON.stringify(row)}\n`)
    },
    (names, n) => {
      op.checkColumns(names, n)
      for (const c of names)
        if (!seen.has(c)) {
          seen.add(c)
          columns.push(c)
        }
    },
  )
  const stream = body?.getReader()
  let bytes = 0
  let ok = false
  try {
    if (stream)
      for (;;) {
        const { done, value } = await stream.read()
        if (done) break
        bytes += value.byteLength
        if (bytes > limits.maxBytes)
          throw new ApiError(
            'PayloadTooLarge',
            `the upload is larger than ${limits.maxBytes} bytes (JOBS_MAX_BYTES)`,
            undefined,
            // the rest is not read: the connection cannot carry another request
            { Connection: 'close' },
          )
        reader.push(value)
        write()
      }
    reader.end()
    write()
    if (reader.rows === 0)
      throw new ApiError('ValidationError', 'the upload has no rows', [
        { field: '(body)', message: 'at least one row is needed' },
      ])
    ok = true
    return { rows: reader.rows, columns }
  } catch (err) {
    void stream?.cancel().catch(() => {})
    throw err instanceof RowError ? refused(err) : err
  } finally {
    closeSync(fd)
    if (!ok) rmSync(file, { force: true })
  }
}
