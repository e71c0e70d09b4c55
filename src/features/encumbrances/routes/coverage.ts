/**
 * `GET /encumbrances/coverage`: what is loaded per province and class, and the gaps in words.
 *
 * @module
 */
import type { Context } from 'hono'
import { ENCUMBRANCE_CLASSES } from '../../../data/encumbrance-format.js'
import type { AppEnv, RouteGuard } from '../../../http/env.js'
import type { ApiRouter } from '../../../http/openapi.js'
import { json } from '../../../http/reply.js'
import { plural } from '../../../http/text.js'
import type { EncumbranceQueries } from '../queries.js'
import { CoverageEnvelopeSchema } from '../answers.js'
import { envelope, TAG, type EncumbranceService } from './shared.js'

/** The coverage table per province, the totals and the caveats. */
export function answerCoverage(c: Context<AppEnv>, s: EncumbranceQueries): Response {
  const rows = s.coverage()
  const provinces = [...new Set(rows.map((r) => r.province))].sort()
  let records = 0
  let current = 0
  let saRecords = 0
  let saUnspecified = 0
  const out = provinces.map((province) => {
    const classes: Record<string, unknown> = {}
    for (const r of rows.filter((x) => x.province === province)) {
      classes[r.class] = {
        records: r.records,
        current: r.current,
        not_current: r.records - r.current,
        unspecified: r.unspecified,
        unlisted: r.unlisted,
        repaired: r.repaired,
        rejected: r.rejected,
        reoriented: r.reoriented,
        duplicates: r.duplicates,
      }
      records += r.records
      current += r.current
      if (r.class === 'servitude_area') {
        saRecords += r.records
        saUnspecified += r.unspecified
      }
    }
    return { province, classes, missing_classes: ENCUMBRANCE_CLASSES.filter((k) => !(k in classes)) }
  })
  const caveats = ENCUMBRANCE_CLASSES.flatMap((k) => {
    const lacking = out.filter((p) => p.missing_classes.includes(k)).map((p) => p.province)
    if (!lacking.length) return []
    if (lacking.length === out.length) return [`No ${k} layer is loaded for any province.`]
    return [`No ${k} layer in ${lacking.join(', ')}: nothing of that class can be found there.`]
  })
  const share = saRecords ? Math.round((saUnspecified / saRecords) * 10000) / 100 : 0
  if (saRecords) caveats.push(`${share}% of servitude areas do not state their kind and are served as unspecified.`)
  return json(c, {
    provinces: out,
    totals: { records, current, unspecified_share_of_servitude_areas: share },
    caveats,
    message: `${records} encumbrance records in ${plural(provinces.length, 'province')} (${current} current)`,
    ...envelope(s),
  })
}

export function registerCoverageRoute(router: ApiRouter, guards: RouteGuard[], service: EncumbranceService): void {
  router.add(
    {
      method: 'get',
      path: '/encumbrances/coverage',
      operationId: 'getEncumbranceCoverage',
      tags: TAG,
      summary: 'What is loaded per province and class',
      description:
        'Per province: per class the records loaded, how many are current, how many have an unspecified kind, how ' +
        'many carry a raw type the vocabulary does not list (served as `other`), repaired and rejected rows; ' +
        'and `missing_classes`, the layers the export does not have for that province. `caveats` states those ' +
        'gaps in words.',
      request: {},
      responses: { 200: { description: 'Coverage.', schema: CoverageEnvelopeSchema } },
    },
    guards,
    (c) => answerCoverage(c, service(c)),
  )
}
