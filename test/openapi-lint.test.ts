/**
 * The served OpenAPI document passes Redocly's `recommended` rules with no error and no warning
 * (docs/api.md "OpenAPI document"), so a client generated from it gets named operations, typed
 * answers and unambiguous paths. Redocly's lint runs in process (@redocly/openapi-core, the
 * library behind `redocly lint`): the ruleset ships inside the package and the document has no
 * external `$ref`, so nothing is fetched.
 */
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core'
import { describe, expect, it } from 'vitest'
import { json, makeTestApp } from './helpers.js'

/** One line per problem: severity, rule, message, where. */
const describeProblem = (p: NormalizedProblem) =>
  `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`

describe("the OpenAPI document under Redocly's recommended rules", () => {
  it('has no error and no warning', async () => {
    const doc = await json(await makeTestApp().get('/api/v1/openapi.json'))
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config })
    expect(problems.map(describeProblem)).toEqual([])
  })

  it('sees a problem when there is one (the lint is not a no-op)', async () => {
    const doc = await json(await makeTestApp().get('/api/v1/openapi.json'))
    const [path] = Object.keys(doc.paths)
    delete doc.paths[path].get.operationId
    delete doc.info.license
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config })
    expect(problems.map((p) => `${p.severity} ${p.ruleId}`).sort()).toEqual([
      'warn info-license',
      'warn operation-operationId',
    ])
  })
})
