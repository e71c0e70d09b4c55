/** `POST /jurisdiction/batch`: the chains of up to BATCH_MAX points, written as bytes around the cached items. */
import type { Context } from 'hono'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { reply } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { JurisdictionQueries } from '../queries.js'
import { BatchEnvelopeSchema } from '../answers.js'
import { BATCH_MAX, BatchBodySchema } from '../schemas.js'
import { envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

export function registerBatchRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'post',
      path: '/jurisdiction/batch',
      operationId: 'postJurisdictionBatch',
      tags: TAG,
      summary: `Chains for up to ${BATCH_MAX} points`,
      description:
        `Body \`{"points": [{"latitude": …, "longitude": …}, …], "as_at"?: "YYYY-MM-DD"}\` with 1 to ${BATCH_MAX} points. ` +
        '`results` is in input order: a `{jurisdiction, notes}` item per point, or null where the point lies ' +
        'outside the demarcated area. `found` + `not_found` = the number of points. Counts as one request.',
      request: { body: BatchBodySchema },
      responses: {
        200: { description: 'Results in input order.', schema: BatchEnvelopeSchema },
      },
    },
    guards,
    (c, { body }) => chainsOfPoints(c, service(c), body.points, body.as_at),
  )
}

/** The chains of `points` on `asAt` (default today), in input order. */
function chainsOfPoints(
  c: Context<AppEnv>,
  s: JurisdictionQueries,
  points: readonly { latitude: number; longitude: number }[],
  asAt: string | undefined,
): Response {
  const d = asAt ?? today()
  // items arrive as UTF-8 bytes (shared by points with the same chain), so the answer is
  // written around them into one buffer rather than serialised as one object or joined as
  // text and encoded again (a few megabytes for 5000 points)
  const { items, found } = s.resolveBatch(points, d)
  const notFound = points.length - found
  const tail = JSON.stringify({
    found,
    not_found: notFound,
    as_at: d,
    message: `${plural(found, 'point')} resolved, ${notFound} outside every boundary in force on ${d}`,
    ...envOf(s),
  })
  return reply(c, batchAnswer(items, tail), 200, 'application/json')
}

const RESULTS_OPEN = Buffer.from('{"results":[')
const NULL_ITEM = Buffer.from('null')
const COMMA = 0x2c

/**
 * The batch answer `{"results":[item,…],<the rest of tail>}` as UTF-8 bytes, the same text as
 * `{"results":[${items.join(',')}],${tail.slice(1)}` (null items written `null`).
 */
export function batchAnswer(items: readonly ({ bytes: Uint8Array } | null)[], tail: string): Uint8Array {
  const rest = Buffer.from(`],${tail.slice(1)}`, 'utf8')
  let size = RESULTS_OPEN.length + rest.length + Math.max(0, items.length - 1)
  for (const it of items) size += it === null ? NULL_ITEM.length : it.bytes.length
  const out = Buffer.allocUnsafeSlow(size)
  out.set(RESULTS_OPEN, 0)
  let at = RESULTS_OPEN.length
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA
    const b = items[i]?.bytes ?? NULL_ITEM
    out.set(b, at)
    at += b.length
  }
  out.set(rest, at)
  at += rest.length
  if (at !== size) throw new Error(`batch answer: wrote ${at} bytes of ${size}`)
  return out
}
