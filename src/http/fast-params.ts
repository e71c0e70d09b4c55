import type { z } from 'zod'

/**
 * Fast paths for query validation. A query parameter's parse rule is written once, as a zod
 * schema, and zod stays the reference for every answer it gives; the builders in params.ts
 * also register a plain-function twin of their rule here. For an object schema whose every
 * parameter has a twin (or is optional and absent), {@link fastObjectParser} answers a valid
 * query without zod; on anything it does not accept it returns `undefined`, and zod parses the
 * query again to produce its answer and its error details.
 *
 * Why: zod's generic machinery cost ~10 µs of a small request's CPU on the server (checks,
 * refinements and transforms run as closures over a shared object walk), against under 1 µs
 * for the twins. `fast-params.test.ts` checks on thousands of seeded queries that the twins
 * accept only what zod accepts and give exactly zod's output.
 *
 * @module
 */

/** A parameter's twin: `{ value }` when it accepts `raw` (as zod would give it), else undefined. */
export type FastParam = (raw: string | undefined) => { value: unknown } | undefined

// keyed by the schema's definition: `.openapi()` returns a new schema object over the same def
const TWINS = new WeakMap<object, FastParam>()
const ABSENT = { value: undefined }

/** Registers the twin of `schema`'s rule and returns the schema. */
export function withFastPath<T extends z.ZodType>(schema: T, fast: FastParam): T {
  TWINS.set(schema._zod.def, fast)
  return schema
}

function twinOf(schema: z.ZodType): FastParam | null {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType }
  const twin = TWINS.get(def)
  if (twin) return twin
  if (def.type === 'optional' && def.innerType) {
    // absent is always valid for an optional parameter, whatever its rule
    const inner = twinOf(def.innerType)
    return (raw) => (raw === undefined ? ABSENT : inner ? inner(raw) : undefined)
  }
  return null
}

const PARSERS = new WeakMap<object, ((query: Record<string, string>) => Record<string, unknown> | undefined) | null>()

/**
 * The fast parser of an object schema of query parameters, or null when one of its parameters
 * has no twin and is not optional, or the object itself carries refinements. Unknown query keys are dropped, as zod's
 * object drops them;
 * an optional parameter that is absent is left out of the result, as zod leaves it out.
 */
export function fastObjectParser(
  schema: z.ZodType,
): ((query: Record<string, string>) => Record<string, unknown> | undefined) | null {
  const known = PARSERS.get(schema)
  if (known !== undefined) return known
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; checks?: unknown[] }
  let parser: ((query: Record<string, string>) => Record<string, unknown> | undefined) | null = null
  // an object with refinements of its own (checks across parameters) always goes to zod
  if (def.type === 'object' && def.shape && !def.checks?.length) {
    const keys = Object.keys(def.shape)
    const twins = keys.map((k) => twinOf(def.shape![k]))
    if (twins.every((t) => t !== null)) {
      parser = function fastParse(query) {
        const out: Record<string, unknown> = {}
        for (let i = 0; i < keys.length; i++) {
          const r = twins[i]!(query[keys[i]])
          if (r === undefined) return undefined
          if (r !== ABSENT) out[keys[i]] = r.value
        }
        return out
      }
    }
  }
  PARSERS.set(schema, parser)
  return parser
}
