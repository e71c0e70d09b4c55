import { describe, expect, it } from 'vitest'
import { byClass, type FuzzData, fuzzSuite } from './fuzz.js'
import type { SuiteRecord } from '../lib/suite.js'

const data: FuzzData = {
  seed: 1,
  requests: 6,
  seconds: 1.5,
  failed: false,
  failure: null,
  operations: [
    { op: 'GET /a', statuses: { 200: 2, 304: 1 }, slowestMs: 40 },
    { op: 'POST /b', statuses: { 400: 2, 503: 1 }, slowestMs: 900 },
  ],
}

describe('the fuzz suite', () => {
  it('counts answers by status class', () => {
    expect(byClass(data)).toEqual({ '2xx': 2, '3xx': 1, '4xx': 2, '5xx': 1 })
  })

  it('says a run with a 5xx failed, and names the slowest operation first', () => {
    const text = fuzzSuite.render({ data } as SuiteRecord<FuzzData>)
    expect(text).toContain('**Failed**: 1 answers were 5xx')
    expect(text).toMatch(/Slowest answers: POST \/b 900 ms; GET \/a 40 ms\./)
    const clean = { ...data, operations: [data.operations[0]] }
    expect(fuzzSuite.render({ data: clean } as SuiteRecord<FuzzData>)).toContain('**Passed**')
  })
})
