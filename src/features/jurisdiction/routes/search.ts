/** `GET /jurisdiction/search`: fuzzy name search across boundary types. */
import type { Context } from 'hono'
import type { z } from '@hono/zod-openapi'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import { round } from '../../../geo/round.js'
import type { JurisdictionQueries } from '../queries.js'
import { SearchEnvelopeSchema } from '../answers.js'
import { SearchQuerySchema } from '../schemas.js'
import { envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

export function registerSearchRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/search',
      operationId: 'searchJurisdiction',
      tags: TAG,
      summary: 'Fuzzy name search across boundary types',
      description:
        'Trigram similarity with PostgreSQL pg_trgm semantics (lower-cased, non-alphanumerics dropped, words ' +
        'padded with two spaces before and one after; similarity = shared / (|A| + |B| − shared); threshold ' +
        '0.3). ' +
        'An exact code (`JHB`, `DC48`, a ward id) comes first with similarity 1. Most similar first, then the ' +
        'shorter name. Only boundaries in force on `as_at` (default today); before the earliest installed set none, ' +
        'the undated register included, as `/jurisdiction/at` answers an empty chain then.',
      request: { query: SearchQuerySchema },
      responses: { 200: { description: 'Matches.', schema: SearchEnvelopeSchema } },
    },
    guards,
    (c, { query }) => nameSearch(c, service(c), query),
  )
}

/** The boundaries in force whose code is the query or whose name is like it, best first. */
function nameSearch(c: Context<AppEnv>, s: JurisdictionQueries, query: z.infer<typeof SearchQuerySchema>): Response {
  const d = query.as_at ?? today()
  // before the earliest dated set nothing answers, the undated register included: as /at's
  // chain is empty then (spec resolution rule 2), so is the search
  const beforeAll = s.earliest !== null && d < s.earliest
  const hits = beforeAll ? [] : s.search(query.q, query.types, d, query.limit)
  return json(c, {
    query: query.q,
    matches: hits.map((h) => ({ ...s.record(h.row), similarity: round(h.similarity, 4) })),
    threshold: 0.3,
    as_at: d,
    message: hits.length
      ? plural(hits.length, 'match', 'matches')
      : beforeAll
        ? `No boundary set was in force on ${d}: the earliest installed set took force on ${s.earliest}`
        : `No boundary name in force on ${d} is similar to "${query.q}"`,
    ...envOf(s),
  })
}
