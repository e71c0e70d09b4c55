import type { Context } from 'hono'
import type { z } from 'zod'
import { ApiError, type FieldError } from './errors.js'
import { fastObjectParser } from './fast-params.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js'
import type { AppEnv } from './env.js'
import { type AliasPlan, canonicalUrl, detailsAsSent } from './param-aliases.js'

/** Turns zod issues into one `details` entry per invalid field (first message per field). */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  const seen = new Map<string, FieldError>()
  for (const issue of issues) {
    const field = prefix + (issue.path.length ? issue.path.map(String).join('.') : '(body)')
    if (!seen.has(field)) seen.set(field, { field, message: issue.message })
  }
  return [...seen.values()]
}

export interface RequestSchemas {
  params?: z.ZodType
  query?: z.ZodType
  body?: z.ZodType
}

export interface ValidatedInput<S extends RequestSchemas> {
  params: S['params'] extends z.ZodType ? z.infer<S['params']> : Record<string, never>
  query: S['query'] extends z.ZodType ? z.infer<S['query']> : Record<string, never>
  body: S['body'] extends z.ZodType ? z.infer<S['body']> : undefined
}

/**
 * Reads the JSON body; a missing, non-JSON, malformed or too deeply nested body is a
 * ValidationError, never a 500 (the depth is checked on the text, before anything recurses).
 */
async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const type = c.req.header('content-type') ?? ''
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ApiError('ValidationError', 'the request body must be JSON (Content-Type: application/json)', [
      {
        field: '(body)',
        message: type ? `unsupported content type ${type.slice(0, 80)}` : 'Content-Type header missing',
      },
    ])
  }
  const text = await c.req.text()
  if (text.trim() === '')
    throw new ApiError('ValidationError', 'the request body is empty', [
      { field: '(body)', message: 'a JSON body is required' },
    ])
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new ApiError('ValidationError', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`, [
      { field: '(body)', message: `arrays and objects may nest at most ${MAX_JSON_DEPTH} levels deep` },
    ])
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new ApiError('ValidationError', 'the request body is not valid JSON', [
      { field: '(body)', message: (err as Error).message.slice(0, 200) },
    ])
  }
}

/**
 * Validates path, query and body together, so one answer lists every invalid field of the
 * request whichever part it is in (Hono's per-target validators would stop at the first part).
 * Without a body schema it answers synchronously (no promise per GET request). `aliases`: the
 * route's other spellings of its query parameters (param-aliases.ts), renamed before validation;
 * when a request used one, the URL its answer is tagged by is set (`tagUrl`, etag.ts).
 */
export function validateRequest<S extends RequestSchemas>(
  c: Context<AppEnv>,
  schemas: S,
  aliases: AliasPlan | null = null,
): ValidatedInput<S> | Promise<ValidatedInput<S>> {
  const details: FieldError[] = []
  const out: Record<string, unknown> = { params: {}, query: {}, body: undefined }
  if (schemas.params) {
    const r = schemas.params.safeParse(c.req.param())
    if (r.success) out.params = r.data
    else details.push(...issuesToDetails(r.error.issues))
  }
  if (schemas.query) {
    let query = c.req.query()
    const aliased = aliases === null ? null : aliases.apply(query)
    if (aliased !== null) {
      query = aliased.query
      c.set('tagUrl', canonicalUrl(c.req.url, aliases!, aliased))
    }
    // the registered twins answer a valid query; zod answers everything else (fast-params.ts)
    const fast = fastObjectParser(schemas.query)?.(query)
    let found: FieldError[] | null = null
    if (fast !== undefined) out.query = fast
    else {
      const r = schemas.query.safeParse(query)
      if (r.success) out.query = r.data
      else found = issuesToDetails(r.error.issues)
    }
    // conflicts and bad boxes first; a field sent under an alias is named by it
    if (aliased !== null) details.push(...detailsAsSent([...aliased.errors, ...(found ?? [])], aliased.sentAs))
    else if (found !== null) details.push(...found)
  }
  if (!schemas.body) return finish(out, details) as ValidatedInput<S>
  const body = schemas.body
  return readJsonBody(c).then((raw) => {
    const r = body.safeParse(raw)
    if (r.success) out.body = r.data
    else details.push(...issuesToDetails(r.error.issues))
    return finish(out, details) as ValidatedInput<S>
  })
}

function finish(out: Record<string, unknown>, details: FieldError[]): unknown {
  if (details.length) {
    const names = details.map((d) => d.field).join(', ')
    throw new ApiError('ValidationError', `invalid request: ${names}`, details)
  }
  return out
}
