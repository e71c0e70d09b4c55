/**
 * The operations of the served OpenAPI document, as the fuzzer reads them: each operation's
 * method, path template, parameters and request body schema, every `$ref` resolved.
 */

/** The subset of JSON Schema the document uses. */
export interface Schema {
  type?: string
  enum?: unknown[]
  format?: string
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  default?: unknown
  example?: unknown
  description?: string
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  additionalProperties?: unknown
  $ref?: string
}

export interface Parameter {
  name: string
  in: 'query' | 'path' | 'header'
  required: boolean
  schema: Schema
}

export interface Operation {
  method: string
  /** the path template, e.g. `/api/v1/parcels/{lpi}/geometry` */
  path: string
  parameters: Parameter[]
  /** the JSON body's schema, absent when the operation takes none */
  body?: Schema
  /** whether the operation answers vector tiles (`.mvt`) */
  tile: boolean
  /** the documented statuses */
  statuses: string[]
}

type Doc = {
  paths: Record<string, Record<string, any>>
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, any> }
}

/** `schema` with every `$ref` replaced by the component it names (the document has no cycles). */
function resolve(doc: Doc, schema: Schema, depth = 0): Schema {
  if (depth > 20) throw new Error('OpenAPI schema nests too deeply (a cycle?)')
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '')
    const target = doc.components?.schemas?.[name]
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`)
    return resolve(doc, target, depth + 1)
  }
  const out: Schema = { ...schema }
  if (schema.properties)
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, resolve(doc, v, depth + 1)]),
    )
  if (schema.items) out.items = resolve(doc, schema.items, depth + 1)
  if (schema.anyOf) out.anyOf = schema.anyOf.map((s) => resolve(doc, s, depth + 1))
  return out
}

/** Every operation of the document, in its order. */
export function operationsOf(doc: Doc): Operation[] {
  const ops: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const parameters: Parameter[] = (op.parameters ?? []).map((p: any) => ({
        name: p.name,
        in: p.in,
        required: p.required === true || p.in === 'path',
        schema: resolve(doc, p.schema ?? {}),
      }))
      const bodySchema = op.requestBody?.content?.['application/json']?.schema
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters,
        body: bodySchema ? resolve(doc, bodySchema) : undefined,
        tile: path.endsWith('.mvt'),
        statuses: Object.keys(op.responses ?? {}),
      })
    }
  }
  return ops
}
