/**
 * The operations a bulk job may run (docs/api.md "Bulk jobs"): GET lookups of one parcel or one
 * point. A job's columns are the operation's parameters (path and query, under their names or
 * their aliases, param-aliases.ts), read from the registered route itself, so a job accepts what
 * the endpoint accepts; each row is checked against the same schemas when it is uploaded, and
 * answered later by a request to the same path.
 *
 * @module
 */
import { z } from '@hono/zod-openapi'
import type { FieldError } from '../http/errors.js'
import type { ApiRouter, RegisteredOperation } from '../http/openapi.js'
import { issuesToDetails } from '../http/validate.js'
import { CsvPlan, type JsonSchema } from './csv.js'
import { type Row, RowError } from './rows.js'

/** The operationIds a job may name, in the order the docs list them. */
export const JOB_OPERATIONS = [
  'getParcelAt',
  'getParcelByLpi',
  'getEncumbrancesOfParcel',
  'getEncumbranceSummaryOfParcel',
  'getEncumbrancesAt',
  'getJurisdictionAt',
  'getJurisdictionOfParcel',
  'getPlotsReverse',
] as const

/**
 * Parameters a job's rows may not set: `format` (a row's result is the JSON answer, never
 * GeoJSON) and `cursor` (one page per row would not be the whole answer).
 */
const NOT_IN_JOBS = new Set(['format', 'cursor'])

const shapeOf = (s: z.ZodType | undefined): Record<string, z.ZodType> =>
  (s as unknown as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {}

/** The operations of `router` as jobs run them, made once each; undefined for one not registered. */
export function jobOperations(router: ApiRouter): (operationId: string) => JobOperation | undefined {
  const ops = new Map<string, JobOperation>()
  return (id) => {
    const registered = router.operation(id)
    if (registered && !ops.has(id)) ops.set(id, new JobOperation(registered))
    return ops.get(id)
  }
}

/** An operation as a job runs it: which columns it takes, how a row is checked and asked. */
export class JobOperation {
  /** path parameters, in the order of the path */
  private readonly pathParams: string[]
  private readonly query: Record<string, z.ZodType>
  /** every accepted column: path and query parameters and their aliases */
  readonly columns: ReadonlySet<string>

  constructor(readonly op: RegisteredOperation) {
    this.pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
    this.query = Object.fromEntries(Object.entries(shapeOf(op.schemas.query)).filter(([k]) => !NOT_IN_JOBS.has(k)))
    const cols = new Set([...this.pathParams, ...Object.keys(this.query)])
    for (const [alias, canonical] of op.aliases?.entries() ?? []) if (cols.has(canonical)) cols.add(alias)
    this.columns = cols
  }

  private answerSchema: JsonSchema | undefined

  /**
   * The flattened CSV of the operation's results after the input columns `input` (csv.ts),
   * its columns read from the answer's schema: the same header before the first row is answered.
   */
  csvPlan(input: readonly string[]): CsvPlan {
    if (this.answerSchema === undefined) {
      try {
        this.answerSchema = this.op.answer
          ? (z.toJSONSchema(this.op.answer, { io: 'output', unrepresentable: 'any' }) as JsonSchema)
          : {}
      } catch {
        // a schema JSON Schema cannot state: the answer as JSON text in one column
        this.answerSchema = {}
      }
    }
    return new CsvPlan(input, this.answerSchema)
  }

  /** The required parameters, for the message of a missing column. */
  required(): string[] {
    return [
      ...this.pathParams,
      ...Object.entries(this.query)
        .filter(([, s]) => !s.safeParse(undefined).success)
        .map(([k]) => k),
    ]
  }

  /** Throws a RowError naming the first column the operation does not take. */
  checkColumns(columns: readonly string[], row: number): void {
    for (const c of columns)
      if (!this.columns.has(c))
        throw new RowError(
          row,
          `${row === 0 ? 'the header' : `row ${row}`} names ${JSON.stringify(c)}, which ${this.op.operationId} does ` +
            `not take (it takes ${[...this.columns].join(', ')})`,
          c,
        )
  }

  /** Throws a RowError naming the row and its first invalid field, as the endpoint would answer. */
  checkRow(row: Row, n: number): void {
    const details: FieldError[] = []
    const params: Record<string, string> = {}
    const query: Record<string, string> = {}
    for (const [k, v] of Object.entries(row)) (this.pathParams.includes(k) ? params : query)[k] = v
    for (const p of this.pathParams)
      if (params[p] === undefined) details.push({ field: p, message: 'required (a path parameter)' })
    if (!details.length && this.op.schemas.params) {
      const r = this.op.schemas.params.safeParse(params)
      if (!r.success) details.push(...issuesToDetails(r.error.issues))
    }
    const aliased = this.op.aliases?.apply(query) ?? null
    if (aliased) details.push(...aliased.errors)
    if (this.op.schemas.query) {
      const r = this.op.schemas.query.safeParse(aliased?.query ?? query)
      if (!r.success) details.push(...issuesToDetails(r.error.issues))
    }
    const first = details[0]
    if (first)
      throw new RowError(
        n,
        `row ${n}: ${first.field}: ${first.message}`,
        aliased?.sentAs.get(first.field) ?? first.field,
      )
  }

  /** The path and query of a row's request, from the API root (`/parcels/C0...?include_status=all`). */
  url(base: string, row: Row): string {
    let path = this.op.path
    const q = new URLSearchParams()
    for (const [k, v] of Object.entries(row)) {
      if (this.pathParams.includes(k)) path = path.replace(`{${k}}`, encodeURIComponent(v))
      else q.append(k, v)
    }
    const qs = q.toString()
    return base + path + (qs ? `?${qs}` : '')
  }
}
