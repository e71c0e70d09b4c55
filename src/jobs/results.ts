/**
 * `GET /jobs/{id}/results` (docs/api.md "Bulk jobs"): the rows answered so far, streamed from the
 * results file as they are checkpointed (the file up to the job's `results_offset`, so a line is
 * never served half-written), while the job runs too. NDJSON by default, resumable with
 * `Range: bytes=…` (206); CSV with `Accept: text/csv`, flattened (csv.ts; Range ignored there);
 * gzip when `Accept-Encoding` allows (not
 * with a range: the range counts the NDJSON's own bytes).
 *
 * @module
 */
import { createReadStream, existsSync } from 'node:fs'
import { Readable, Transform } from 'node:stream'
import { createGzip } from 'node:zlib'
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../http/env.js'
import { ApiError } from '../http/errors.js'
import { type ApiRouter, ErrorBodySchema } from '../http/openapi.js'
import { appendHeader, replyStream, setHeader } from '../http/reply.js'
import { requestHeader } from '../http/request-header.js'
import { resultsFile } from './files.js'
import { CsvPlan, type ResultLine } from './csv.js'
import type { JobOperation } from './operations.js'
import { JobIdParamsSchema, ResultLineSchema, TAG } from './schemas.js'
import type { Job } from './types.js'

/** The byte range `bytes=a-b`, `bytes=a-` or `bytes=-n` of a `size`-byte file, or null (no range); 416 when unsatisfiable. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (header === undefined) return null
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  const unsatisfiable = () =>
    new ApiError(
      'RangeNotSatisfiable',
      `the range ${header.slice(0, 60)} is not within the ${size} bytes served`,
      undefined,
      {
        'Content-Range': `bytes */${size}`,
      },
    )
  if (!m || (m[1] === '' && m[2] === '')) throw unsatisfiable()
  let start: number
  let end: number
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]))
    end = size - 1
  } else {
    start = Number(m[1])
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  }
  if (start >= size || start > end) throw unsatisfiable()
  return { start, end }
}

/** Turns NDJSON result lines into the flattened CSV of `plan` (csv.ts), its header first. */
function toCsv(plan: CsvPlan): Transform {
  let carry = ''
  const linesOf = (text: string) => plan.lines(JSON.parse(text) as ResultLine)
  return new Transform({
    construct(done) {
      this.push(plan.headerLine())
      done()
    },
    transform(chunk: Buffer, _enc, done) {
      const lines = (carry + chunk.toString('utf8')).split('\n')
      carry = lines.pop()!
      done(null, lines.map(linesOf).join(''))
    },
    flush(done) {
      done(null, carry ? linesOf(carry) : '')
    },
  })
}

/** The CSV of a job's results: its operation's columns, or the answer's JSON text in one column. */
function csvPlanOf(job: Job, op: JobOperation | undefined): CsvPlan {
  return op ? op.csvPlan(job.columns) : new CsvPlan(job.columns, {})
}

export function registerResultsRoute(
  router: ApiRouter,
  deps: { dir: string },
  ownJob: (c: Context<AppEnv>, id: string) => Promise<Job>,
  operations: (operationId: string) => JobOperation | undefined,
): void {
  router.add(
    {
      method: 'get',
      path: '/jobs/{id}/results',
      operationId: 'getJobResults',
      tags: TAG,
      summary: "A bulk job's results: one line per row, while it runs too",
      description:
        'NDJSON, one line per row in input order: `row`, `input`, `status` and `result` (the answer exactly as the ' +
        'endpoint gives it online) or `error` (its error envelope). While the job runs, the rows checkpointed so ' +
        'far (`rows_done`); ask again, or with `Range: bytes=N-` from the bytes already read, for the rest. ' +
        '`Accept: text/csv`: the results flattened for a spreadsheet (RFC 4180): the input columns, `row`, `status`, ' +
        "`error_code`, `error_message`, then every field of the operation's answer under its dotted name " +
        '(`jurisdiction.ward.name`); the columns come from the answer schema, so the header is the same while the ' +
        'job runs. A list of records (`parcels`, `encumbrances`, `plots`) gives one line per record, numbered in ' +
        "`item`, the row's other columns repeated; a list of text is joined with `; `, anything deeper is JSON " +
        'text; a field named like an input column is `result.<name>`. A cell starting with `=`, `+`, `-`, `@`, a tab ' +
        "or a carriage return that is not a number is prefixed with `'` (no spreadsheet formula runs). Range is " +
        'ignored on CSV (`Accept-Ranges: none`: its offsets are not known before it is made); resume with the ' +
        'NDJSON. gzip when `Accept-Encoding` allows it and no range is asked. An expired job has no results: 404.',
      request: { params: JobIdParamsSchema },
      untagged: true,
      responses: {
        200: {
          description: 'The results (`Accept-Ranges: bytes` on NDJSON, `none` on CSV).',
          contentTypes: { 'application/x-ndjson': ResultLineSchema, 'text/csv': z.string() },
          headers: ['Accept-Ranges', 'Job-Status', 'Content-Encoding'],
        },
        206: {
          description: 'The asked range of the NDJSON.',
          contentTypes: { 'application/x-ndjson': z.string() },
          headers: ['Accept-Ranges', 'Job-Status', 'Content-Range'],
        },
        404: {
          description: 'JobNotFound, also for an expired job (its results are deleted).',
          schema: ErrorBodySchema,
        },
        416: {
          description: 'RangeNotSatisfiable: the range is not within the bytes served now (`Content-Range`).',
          schema: ErrorBodySchema,
          headers: ['Content-Range'],
        },
      },
    },
    [],
    async (c, { params }) => {
      const job = await ownJob(c, params.id)
      if (job.status === 'expired') throw new ApiError('JobNotFound', `the results of job ${job.id} have expired`)
      setHeader(c, 'Cache-Control', 'no-store')
      setHeader(c, 'Job-Status', job.status)
      appendHeader(c, 'Vary', 'Accept, Accept-Encoding')
      const file = resultsFile(deps.dir, job.id)
      const size = existsSync(file) ? job.resultsOffset : 0
      const csv = /\btext\/csv\b/i.test(requestHeader(c, 'accept') ?? '')
      // the CSV is made from the NDJSON line by line: its byte offsets are not known before it is
      // made, so a range of it cannot be served; Range is ignored there (RFC 9110 allows it)
      setHeader(c, 'Accept-Ranges', csv ? 'none' : 'bytes')
      const range = csv ? null : byteRange(requestHeader(c, 'range'), size)
      const start = range?.start ?? 0
      const end = range?.end ?? size - 1
      let body: Readable = end >= start ? createReadStream(file, { start, end }) : Readable.from([] as Buffer[])
      if (csv) body = body.pipe(toCsv(csvPlanOf(job, operations(job.operation))))
      const gzip = !range && /\bgzip\b/i.test(requestHeader(c, 'accept-encoding') ?? '')
      if (gzip) {
        body = body.pipe(createGzip())
        setHeader(c, 'Content-Encoding', 'gzip')
      }
      if (range) setHeader(c, 'Content-Range', `bytes ${start}-${end}/${size}`)
      const type = csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson'
      return replyStream(c, Readable.toWeb(body) as ReadableStream, range ? 206 : 200, type)
    },
  )
}
