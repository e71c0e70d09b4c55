/**
 * The bulk job routes (docs/api.md "Bulk jobs"): submit, list, watch, cancel or delete, and the
 * results (results.ts). A job belongs to the key id that submitted it (kept by `keys rotate`):
 * another key's request for it is a 404, as for a job that never was.
 *
 * @module
 */
import { randomBytes } from 'node:crypto'
import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { johannesburgDate } from '../auth/dates.js'
import type { AppEnv } from '../http/env.js'
import { ApiError } from '../http/errors.js'
import { type ApiRouter, ErrorBodySchema } from '../http/openapi.js'
import { json, reply, setHeader } from '../http/reply.js'
import { requestHeader } from '../http/request-header.js'
import { inputFile, removeFiles } from './files.js'
import { JOB_OPERATIONS, type JobOperation } from './operations.js'
import { registerResultsRoute } from './results.js'
import {
  JobIdParamsSchema,
  JobListSchema,
  JobSchema,
  jobView,
  SubmittedSchema,
  SubmitQuerySchema,
  TAG,
} from './schemas.js'
import { formatOf, readUpload, type UploadLimits } from './submit.js'
import { FINISHED, type Job, type JobStore } from './types.js'

/** The bulk job settings (docs/operations.md "Bulk jobs"). */
export interface JobsDeps extends UploadLimits {
  store: JobStore
  /** JOBS_DIR: the rows and results files */
  dir: string
  /** queued and running jobs a key may have (JOBS_MAX_RUNNING_PER_KEY) */
  maxRunningPerKey: number
  /** rows a day of a key without an allowance of its own (JOBS_ROWS_PER_DAY) */
  rowsPerDay: number
  /** ms results are kept after a job finishes (JOBS_RETENTION_DAYS) */
  retentionMs: number
  /** called once a job is queued (the runner looks for work) */
  wake?: () => void
}

/** The headers of the bulk allowance, on a submit's 202 and 429. */
export const ALLOWANCE_HEADERS = ['Bulk-Allowance-Limit', 'Bulk-Allowance-Remaining', 'Bulk-Allowance-Reset'] as const

const DAY_MS = 86_400_000
const SAST_MS = 2 * 3600 * 1000
/** Rows a second assumed for an operation no job has run yet. */
const FIRST_RATE = 500

/** Seconds to the next midnight in Africa/Johannesburg, when the daily allowance starts again. */
const secondsToMidnight = (now: number) => Math.ceil((DAY_MS - ((now + SAST_MS) % DAY_MS)) / 1000)

const errorOf = (description: string) => ({ description, schema: ErrorBodySchema })

/** The job `id` of the key, or a 404. */
async function ownJob(c: Context<AppEnv>, store: JobStore, id: string): Promise<Job> {
  const job = await store.get(id)
  if (!job || job.keyId !== c.get('apiKey').id) throw new ApiError('JobNotFound', `no job ${id} for this API key`)
  return job
}

/** Answers that change while the build does not: never cached. */
function noStore(c: Context<AppEnv>): void {
  setHeader(c, 'Cache-Control', 'no-store')
}

export function registerJobRoutes(
  router: ApiRouter,
  deps: JobsDeps,
  clock: () => number,
  operations: (operationId: string) => JobOperation | undefined,
): void {
  const { store } = deps
  const base = router.basePath
  const operation = (id: string): JobOperation => {
    const op = operations(id)
    if (!op)
      throw new ApiError('ValidationError', `${id} is not served here`, [{ field: 'operation', message: 'not served' }])
    return op
  }

  router.add(
    {
      method: 'post',
      path: '/jobs',
      operationId: 'postJob',
      tags: TAG,
      summary: 'Submit a bulk job: up to a million rows of one operation',
      description:
        'The body is CSV (`text/csv`, a header row naming the columns) or NDJSON (`application/x-ndjson`, one JSON ' +
        "object a line); the columns are the operation's parameters under the endpoint's names or aliases. It is read " +
        'as it streams and every row checked as the endpoint checks it: an unknown column, an empty line, a ragged ' +
        'row, bytes that are not UTF-8 or an invalid value is a 400 naming the first bad row and column, and a key ' +
        "without the operation's product a 403, before anything is queued. The rows count against the key's bulk " +
        'allowance (rows a day, the `Bulk-Allowance-*` headers), not its per-minute rate (the submit itself counts ' +
        'as one request). 202 with `Location`: watch it there.',
      request: { query: SubmitQuerySchema },
      rawBody: {
        description: 'The rows: CSV with a header row, or NDJSON.',
        content: {
          'text/csv': z.string().openapi({ example: 'latitude,longitude\n-33.9249,18.4241\n-25.7479,28.2293\n' }),
          'application/x-ndjson': z.string().openapi({ example: '{"lpi":"C01600000000012300000"}\n' }),
        },
        maxBytes: deps.maxBytes,
      },
      responses: {
        202: {
          description: 'Queued; `Location` names the job.',
          schema: SubmittedSchema,
          headers: ['Location', ...ALLOWANCE_HEADERS],
        },
        400: errorOf('ValidationError: a bad operation, column, row or value (the first, named), or no rows.'),
        403: errorOf('ProductNotPermitted, CountryNotPermitted: the key lacks what the operation needs.'),
        415: errorOf('UnsupportedMediaType: the body is neither text/csv nor application/x-ndjson.'),
        429: errorOf(
          "RateLimitExceeded; BulkAllowanceExceeded: the rows exceed what is left of the key's allowance today " +
            '(`Bulk-Allowance-*`); TooManyJobs: the key has JOBS_MAX_RUNNING_PER_KEY jobs queued or running.',
        ),
      },
    },
    [],
    async (c, { query }) => {
      noStore(c)
      const key = c.get('apiKey')
      const op = operation(query.operation)
      // the endpoint's own checks (product, country, the domain installed), before the body is read
      for (const guard of op.op.guards) guard(c)
      const running = await store.unfinished(key.id)
      if (running >= deps.maxRunningPerKey)
        throw new ApiError(
          'TooManyJobs',
          `API key ${key.id} has ${running} jobs queued or running, the most it may have; wait for one to finish`,
        )
      const format = formatOf(requestHeader(c, 'content-type'))
      const id = `job_${randomBytes(12).toString('base64url')}`
      const file = inputFile(deps.dir, id)
      const { rows, columns } = await readUpload(c.req.raw.body, format, op, deps, file)
      const now = clock()
      const limit = key.bulkRowsPerDay ?? deps.rowsPerDay
      const allowance = await store.count(key.id, johannesburgDate(now), rows, limit)
      setHeader(c, 'Bulk-Allowance-Limit', String(limit))
      setHeader(c, 'Bulk-Allowance-Remaining', String(allowance.remaining))
      setHeader(c, 'Bulk-Allowance-Reset', String(secondsToMidnight(now)))
      if (!allowance.ok) {
        removeFiles(deps.dir, id)
        throw new ApiError(
          'BulkAllowanceExceeded',
          `the upload has ${rows} rows and API key ${key.id} has ${allowance.remaining} of its ${limit} bulk rows ` +
            `left today (${allowance.day}, Africa/Johannesburg)`,
          { rows, remaining: allowance.remaining, limit },
          { 'Retry-After': String(secondsToMidnight(now)) },
        )
      }
      const job = await store.create({
        id,
        keyId: key.id,
        key,
        operation: op.op.operationId,
        format,
        columns,
        rows,
        createdAt: now,
      })
      deps.wake?.()
      const rate = (await store.rateOf(job.operation)) ?? FIRST_RATE
      setHeader(c, 'Location', `${base}/jobs/${id}`)
      return json(
        c,
        { id, status: job.status, operation: job.operation, rows, estimate_seconds: Math.ceil(rows / rate) },
        202,
      )
    },
  )

  router.add(
    {
      method: 'get',
      path: '/jobs',
      operationId: 'getJobs',
      tags: TAG,
      summary: "The key's bulk jobs, newest first",
      description: 'Every job of the key (expired ones until deleted), as `GET /jobs/{id}` shows each.',
      request: {},
      untagged: true,
      responses: { 200: { description: 'The jobs.', schema: JobListSchema } },
    },
    [],
    async (c) => {
      noStore(c)
      return json(c, { jobs: (await store.list(c.get('apiKey').id)).map((j) => jobView(j, base)) })
    },
  )

  const NOT_FOUND = errorOf("JobNotFound: no such job for this key (another key's jobs are not found either).")
  router.add(
    {
      method: 'get',
      path: '/jobs/{id}',
      operationId: 'getJob',
      tags: TAG,
      summary: 'A bulk job: status, progress, rate, ETA, build, expiry',
      description:
        '`status`: queued, running, done, failed, cancelled or expired. `rows_done` counts rows checkpointed (their ' +
        'results can be fetched); `rate` is rows a second since it started, `eta_seconds` the rest at that rate. ' +
        '`build` is the dataset build every row runs on: one per job, even across a dataset switch. Allowed ' +
        `operations: ${JOB_OPERATIONS.join(', ')}.`,
      request: { params: JobIdParamsSchema },
      untagged: true,
      responses: { 200: { description: 'The job.', schema: JobSchema }, 404: NOT_FOUND },
    },
    [],
    async (c, { params }) => {
      noStore(c)
      return json(c, jobView(await ownJob(c, store, params.id), base))
    },
  )

  router.add(
    {
      method: 'delete',
      path: '/jobs/{id}',
      operationId: 'deleteJob',
      tags: TAG,
      summary: 'Cancel a queued or running job; delete a finished one',
      description:
        'A queued or running job is cancelled (it stops at its next checkpoint; the rows done stay to fetch until ' +
        'it expires) and answered as it is now. A finished job is deleted with its results: 204.',
      request: { params: JobIdParamsSchema },
      responses: {
        200: { description: 'Cancelled: the job.', schema: JobSchema },
        204: { description: 'Deleted with its results.' },
        404: NOT_FOUND,
      },
    },
    [],
    async (c, { params }) => {
      noStore(c)
      const job = await ownJob(c, store, params.id)
      if (FINISHED.has(job.status) || job.status === 'expired') {
        await store.remove(job.id)
        removeFiles(deps.dir, job.id)
        return reply(c, null, 204)
      }
      const now = clock()
      const cancelled = await store.cancel(job.id, now, now + deps.retentionMs)
      return json(c, jobView(cancelled ?? job, base))
    },
  )

  registerResultsRoute(router, deps, (c, id) => ownJob(c, store, id), operations)
}
