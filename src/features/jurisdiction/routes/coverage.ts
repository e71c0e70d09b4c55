/** `GET /jurisdiction/coverage`: per boundary type, what is installed, in force today, and missing. */
import type { Context } from 'hono'
import { BOUNDARY_TYPES } from '../../../data/jurisdiction-format.js'
import type { AppEnv } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { inForce, type BoundaryRow, type JurisdictionQueries } from '../queries.js'
import { CoverageEnvelopeSchema } from '../answers.js'
import { envOf, TAG, today, type JurisdictionRouteContext } from './common.js'

export function registerCoverageRoute(router: ApiRouter, { guards, service }: JurisdictionRouteContext): void {
  router.add(
    {
      method: 'get',
      path: '/jurisdiction/coverage',
      operationId: 'getJurisdictionCoverage',
      tags: TAG,
      summary: 'Layer vintages, counts and known gaps',
      description:
        'Per boundary type: boundaries in force today, the provinces it covers, and each installed set with its ' +
        'vintage, dates, count, and rows rejected or repaired on ingest. `known_gaps` names what is not ' +
        'installed.',
      request: {},
      responses: { 200: { description: 'Coverage.', schema: CoverageEnvelopeSchema } },
    },
    guards,
    (c) => coverage(c, service(c)),
  )
}

/** Every boundary type's sets and counts, and the known gaps. */
function coverage(c: Context<AppEnv>, s: JurisdictionQueries): Response {
  const d = today()
  const layers = BOUNDARY_TYPES.map((t) => {
    const rows = s.all().filter((r) => r.type === t)
    const bySet = new Map<string, BoundaryRow[]>()
    for (const r of rows) {
      const l = bySet.get(r.setName)
      if (l) l.push(r)
      else bySet.set(r.setName, [r])
    }
    return {
      boundary_type: t,
      in_force: rows.filter((r) => inForce(r, d)).length,
      provinces: s.provincesWith(t),
      sets: [...bySet.entries()].map(([set, list]) => {
        const info = s.sets.find((x) => x.name === set)
        const stats = s.layerStats(`${set}/${t}`)
        return {
          set,
          vintage: list[0].vintage,
          count: list.length,
          ...(list[0].from ? { effective_from: list[0].from } : {}),
          ...(list[0].to ? { effective_to: list[0].to } : {}),
          geometry: list.some((r) => r.bbox !== null),
          ...(info?.source ? { source: info.source } : {}),
          rejected: stats?.rejected ?? 0,
          repaired: stats?.repaired ?? 0,
        }
      }),
    }
  })
  const gaps: string[] = []
  for (const l of layers) {
    if (!l.sets.length) gaps.push(`${l.boundary_type}: not installed`)
    else if (l.provinces.length && l.provinces.length < 9)
      gaps.push(`${l.boundary_type}: published for ${l.provinces.join(', ')} only`)
    for (const st of l.sets)
      if (!st.geometry)
        gaps.push(
          `${l.boundary_type}: the ${st.vintage} (${st.effective_from ?? '…'} to ${st.effective_to ?? 'today'}) ` +
            `is installed without geometry; points on those dates get a null ${l.boundary_type} with a note`,
        )
  }
  return json(c, {
    layers,
    known_gaps: gaps,
    ...(s.earliest ? { earliest_as_at: s.earliest } : {}),
    message: `${s.all().length} boundary records in ${s.sets.length} sets`,
    ...envOf(s),
  })
}
