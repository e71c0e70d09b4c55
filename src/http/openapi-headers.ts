/**
 * The response headers the OpenAPI document describes, as reusable components
 * (`#/components/headers/...`), and the rule that attaches them to each response of each
 * operation (ApiRouter.add). The rule follows the code that sends them, so a client generated
 * from the document reads exactly the headers the server writes:
 *
 * - `X-Request-Id` on every answer (front-door.ts);
 * - `RateLimit-Policy` and `RateLimit` on every answer of an authenticated route once its key is
 *   accepted, so not with 401 or a 413 refused before the key is read (rate-limit/middleware.ts);
 * - `Retry-After` on 429, and on the 503 of a shared store that cannot count (errors.ts);
 * - `ETag` on the answers of a tagged route (etag.ts: 200 and 304) and of a tile route
 *   (tile-answer.ts: 200, 204 and 304), never on an error;
 * - `Content-Encoding` on any answer whose body is of a type compressed over 1 KB (reply.ts), and
 *   on a stored tile sent gzip-compressed as stored.
 *
 * `test/openapi-headers.test.ts` checks the description against real answers both ways.
 *
 * @module
 */
import { COMPRESSED_TYPES } from './reply.js'
import { REQUEST_ID_HEADER } from './request-id.js'

/** A header object of the document (a type, not an interface: the registry's has an index signature). */
type HeaderObject = {
  description: string
  required: boolean
  schema: Record<string, unknown>
}

/** The header components, by name (the name is the header's, as sent). */
export const HEADER_COMPONENTS: Readonly<Record<string, HeaderObject>> = {
  [REQUEST_ID_HEADER]: {
    description:
      "The request's id: the client's own `X-Request-Id` when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`, " +
      'else a new UUID. Also in the body of every error (`requestId`) and in the access log.',
    required: true,
    schema: { type: 'string', example: '0b6a9c1e-3f4d-4c2b-9a8e-5d7f1e2c3b4a' },
  },
  'RateLimit-Policy': {
    description:
      "The key's allowance, draft-ietf-httpapi-ratelimit-headers-07: requests per window of `w` seconds (with " +
      '`RATE_LIMIT_HEADERS=draft-11`, the current draft\'s form: `"default";q=60;w=60`). Tile and TileJSON routes ' +
      'describe the key\'s tile allowance (`"tiles"`), the others its requests. Sent on ' +
      'every answer of an authenticated route once the key is accepted, except while a shared store that a ' +
      'deployment lets fail open (`RATE_LIMIT_ON_STORE_ERROR=open`) is unavailable.',
    required: false,
    schema: { type: 'string', example: '60;w=60' },
  },
  RateLimit: {
    description:
      "What is left of the key's allowance, draft-ietf-httpapi-ratelimit-headers-07: the limit, the requests " +
      'remaining in this window and the seconds until it resets (draft-11: `"default";r=59;t=42`). Sent with ' +
      '`RateLimit-Policy`.',
    required: false,
    schema: { type: 'string', example: 'limit=60, remaining=59, reset=42' },
  },
  'Retry-After': {
    description:
      'Seconds to wait before retrying: 1 to 60 after 429 `RateLimitExceeded`, 2 after 503 `RateLimitUnavailable`, ' +
      'the seconds to midnight (Africa/Johannesburg) after 429 `BulkAllowanceExceeded`.',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 86400, example: 42 },
  },
  ETag: {
    description:
      'A strong tag of this answer (docs/api.md "HTTP conventions"), suffixed `-br` or `-gzip` when the body is ' +
      'compressed; send it back in `If-None-Match` for a 304.',
    required: true,
    schema: { type: 'string', example: '"5f0c2a9e81d34b77"' },
  },
  'Content-Encoding': {
    description:
      'The coding of a body over 1 KB, as `Accept-Encoding` allows (brotli on a tie); a stored tile is sent ' +
      'gzip-compressed as stored. Absent: the body is not compressed.',
    required: false,
    schema: { type: 'string', enum: ['br', 'gzip'] },
  },
}

/**
 * Headers only some operations send (the bulk job routes, src/jobs): a route names them in its
 * response (ResponseSpec.headers) and the router adds them to the rule's.
 */
export const OWN_HEADER_COMPONENTS: Readonly<Record<string, HeaderObject>> = {
  Location: {
    description: 'The URL of what was created (a bulk job: watch it there).',
    required: true,
    schema: { type: 'string', example: '/api/v1/jobs/job_Yb3k9x0cQe2LmT1a' },
  },
  'Bulk-Allowance-Limit': {
    description: "The key's bulk rows a day (`keys --bulk-rows-per-day`, else JOBS_ROWS_PER_DAY).",
    required: true,
    schema: { type: 'integer', example: 1000000 },
  },
  'Bulk-Allowance-Remaining': {
    description: 'Bulk rows left today after this upload (or, refused, before it).',
    required: true,
    schema: { type: 'integer', example: 900000 },
  },
  'Bulk-Allowance-Reset': {
    description: 'Seconds until the allowance starts again (midnight, Africa/Johannesburg).',
    required: true,
    schema: { type: 'integer', example: 3600 },
  },
  'Accept-Ranges': {
    description: '`bytes`: the NDJSON results can be asked for from an offset with `Range`.',
    required: true,
    schema: { type: 'string', enum: ['bytes'] },
  },
  'Job-Status': {
    description: "The job's status when the results were read (running: more rows will follow).",
    required: true,
    schema: { type: 'string', example: 'running' },
  },
  'Content-Range': {
    description: 'The bytes sent and the bytes served now: `bytes start-end/size`.',
    required: true,
    schema: { type: 'string', example: 'bytes 1000-4999/5000' },
  },
}

/** What the rule needs to know of an operation. */
export interface HeaderRuleInput {
  /** behind the key check and the rate limit */
  authenticated: boolean
  /** answers carry an ETag: a tagged JSON GET (etag.ts) or a tile route (tile-answer.ts) */
  etagStatuses: ReadonlySet<string>
}

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })

/**
 * The headers of one response: `status` as the document keys it, `contentTypes` the media types
 * of its body (none: no body).
 */
export function responseHeaders(
  op: HeaderRuleInput,
  status: string,
  contentTypes: readonly string[],
  own: readonly string[] = [],
): Record<string, { $ref: string }> {
  const headers: Record<string, { $ref: string }> = { [REQUEST_ID_HEADER]: ref(REQUEST_ID_HEADER) }
  if (op.authenticated && status !== '401' && status !== '413') {
    headers['RateLimit-Policy'] = ref('RateLimit-Policy')
    headers.RateLimit = ref('RateLimit')
  }
  if (op.authenticated && (status === '429' || status === '503')) headers['Retry-After'] = ref('Retry-After')
  if (op.etagStatuses.has(status)) headers.ETag = ref('ETag')
  if (contentTypes.some((t) => COMPRESSED_TYPES.has(t))) headers['Content-Encoding'] = ref('Content-Encoding')
  for (const name of own) headers[name] = ref(name)
  return headers
}
