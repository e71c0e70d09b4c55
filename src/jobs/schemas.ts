/** The request and answer contract of the bulk job routes (docs/api.md "Bulk jobs"). */
import { z } from '@hono/zod-openapi'
import { JOB_OPERATIONS } from './operations.js'
import { JOB_STATUSES, type Job } from './types.js'

export const TAG = [
  {
    name: 'Jobs',
    description:
      'Bulk jobs: one upload ' +
      'of up to a million rows, each answered as the operation it names answers it online, with progress and ' +
      'results to download. A job needs the product of the operation it runs.',
  },
]

export const SubmitQuerySchema = z.object({
  operation: z.enum(JOB_OPERATIONS).openapi({
    description:
      'The operationId each row runs; the columns of the upload are its parameters (path and query, under the ' +
      'same names and aliases as the endpoint).',
    example: 'getParcelAt',
  }),
})

export const JobIdParamsSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .openapi({ description: 'The job id, as the submit answered it.', example: 'job_Yb3k9x0cQe2LmT1a' }),
})

export const SubmittedSchema = z
  .object({
    id: z.string(),
    status: z.enum(JOB_STATUSES),
    operation: z.string(),
    rows: z.number().int().openapi({ description: 'Data rows in the upload (the CSV header not counted).' }),
    estimate_seconds: z
      .number()
      .int()
      .openapi({ description: 'Rough time to run, from recent jobs of the operation.' }),
  })
  .openapi('JobSubmitted')

export const JobSchema = z
  .object({
    id: z.string(),
    operation: z.string(),
    status: z.enum(JOB_STATUSES),
    rows: z.number().int(),
    rows_done: z.number().int().openapi({ description: 'Rows answered and checkpointed (results to fetch).' }),
    rows_failed: z.number().int().openapi({ description: 'Rows of those whose answer was an error.' }),
    rate: z.number().nullable().openapi({ description: 'Rows a second since the job started; null before.' }),
    eta_seconds: z.number().int().nullable().openapi({ description: 'Seconds left at that rate; null when unknown.' }),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: 'When the results are deleted; set once finished.' }),
    build: z.string().nullable().openapi({ description: 'The dataset build every row ran on, once started.' }),
    error: z.string().nullable().openapi({ description: 'Why it failed, or was cancelled.' }),
    results: z.string().openapi({ description: 'The URL of the results.' }),
  })
  .openapi('Job')

export const JobListSchema = z.object({ jobs: z.array(JobSchema) }).openapi('JobList')

/** A row of the results (one NDJSON line). */
export const ResultLineSchema = z
  .object({
    row: z.number().int().openapi({ description: 'The row number in the upload, from 1.' }),
    input: z.record(z.string(), z.string()).openapi({ description: 'The row as read (empty fields left out).' }),
    status: z.number().int().openapi({ description: 'The HTTP status the endpoint answered.' }),
    result: z.unknown().optional().openapi({ description: 'The answer (status below 400), exactly as online.' }),
    error: z.unknown().optional().openapi({ description: 'The error envelope (status 400 and over).' }),
  })
  .openapi('JobResultLine')

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString())

/** A job as its owner sees it. */
export function jobView(job: Job, base: string): z.infer<typeof JobSchema> {
  const running = job.startedAt !== null && job.rowsDone > 0
  const end = job.finishedAt ?? Math.max(job.updatedAt, job.startedAt ?? 0)
  const rate = running ? job.rowsDone / Math.max((end - job.startedAt!) / 1000, 0.001) : null
  const left = job.rows - job.rowsDone
  return {
    id: job.id,
    operation: job.operation,
    status: job.status,
    rows: job.rows,
    rows_done: job.rowsDone,
    rows_failed: job.rowsFailed,
    rate: rate === null ? null : Math.round(rate * 10) / 10,
    eta_seconds:
      job.status === 'done'
        ? 0
        : rate && (job.status === 'running' || job.status === 'queued')
          ? Math.ceil(left / rate)
          : null,
    created_at: iso(job.createdAt)!,
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
    expires_at: iso(job.expiresAt),
    build: job.build,
    error: job.error,
    results: `${base}/jobs/${job.id}/results`,
  }
}
