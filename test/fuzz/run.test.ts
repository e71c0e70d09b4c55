import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type FuzzRequest, requestTo } from './arbitraries.js'
import { bodyText, Raw, toJsonText } from './json-text.js'
import { curlOf } from './replay.js'
import { boundOf, DOCUMENTED_MS, SAFETY, SUITE_COUNT, SUITE_SEED, settingsFromEnv } from './run.js'
import type { Samples } from './samples.js'
import { operationsOf } from './spec.js'

const doc = JSON.parse(readFileSync(new URL('../fixtures/openapi.json', import.meta.url), 'utf8'))

describe('fuzz settings', () => {
  it('reads the seed, count and replay path from the environment, the suite defaults otherwise', () => {
    expect(settingsFromEnv({})).toEqual({ seed: SUITE_SEED, count: SUITE_COUNT, path: undefined })
    expect(settingsFromEnv({ FUZZ_SEED: '1', FUZZ_COUNT: '100000', FUZZ_PATH: '3:0:1' })).toEqual({
      seed: 1,
      count: 100000,
      path: '3:0:1',
    })
    expect(() => settingsFromEnv({ FUZZ_COUNT: '1e5' })).toThrow(/FUZZ_COUNT must be a whole number/)
  })

  it('bounds /intersect by its documented worst case and every other request by theirs, times the safety factor', () => {
    const r = (op: string) => ({ op }) as FuzzRequest
    expect(boundOf(r('POST /api/v1/encumbrances/intersect'))).toBe(DOCUMENTED_MS.intersect * SAFETY)
    expect(boundOf(r('GET /api/v1/parcels/within'))).toBe(DOCUMENTED_MS.other * SAFETY)
  })
})

describe('the operations read from the OpenAPI document', () => {
  const ops = operationsOf(doc)

  it('holds every operation with its parameters and its body schema, references resolved', () => {
    expect(ops.length).toBe(Object.values(doc.paths).reduce((n: number, m: any) => n + Object.keys(m).length, 0))
    const batch = ops.find((o) => o.method === 'POST' && o.path === '/api/v1/parcels/batch')!
    expect(batch.body?.properties?.points?.items?.properties?.latitude).toMatchObject({ minimum: -90, maximum: 90 })
    const tile = ops.find((o) => o.path === '/api/v1/parcels/tiles/{z}/{x}/{y}.mvt')!
    expect(tile.tile).toBe(true)
    expect(tile.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(['z', 'x', 'y'])
  })

  it('makes valid requests that fill every path parameter and send a body only with a body operation', () => {
    const samples: Samples = { byName: {}, boundaries: [['ward', '1']], points: [[28, -26]], lists: {} }
    for (const op of ops) {
      for (const r of fc.sample(requestTo(op, samples, 'valid'), { numRuns: 5, seed: 7 })) {
        expect(r.method).toBe(op.method)
        expect(r.url).not.toMatch(/[{}]/)
        expect(r.body !== undefined).toBe(op.body !== undefined)
        expect(r.headers['X-API-KEY']).toBe('$KEY')
      }
    }
  })
})

describe('replaying a request', () => {
  it('writes JSON tokens JSON.stringify would not', () => {
    expect(toJsonText({ a: [new Raw('1e999'), -1, 'x'], b: undefined })).toBe('{"a":[1e999,-1,"x"]}')
    expect(bodyText({ prefix: '[', filler: '1,', count: 3, suffix: '1]' })).toBe('[1,1,1,1]')
  })

  it('prints a curl command that sends the path as it is, the headers and the body', () => {
    const r: FuzzRequest = {
      op: 'POST /api/v1/parcels/batch',
      method: 'POST',
      url: "/api/v1/parcels/../batch?x=%00&q='",
      headers: { 'X-API-KEY': '$KEY', 'Content-Type': 'application/json' },
      body: `{"lpis":["it's"]}`,
      tile: false,
    }
    expect(curlOf(r)).toBe(
      `curl -sS --path-as-is -g -i -X POST -H "X-API-KEY: $KEY" -H "Content-Type: application/json" ` +
        `--data-binary '{"lpis":["it'\\''s"]}' 'http://localhost:8080/api/v1/parcels/../batch?x=%00&q='\\'''`,
    )
    expect(curlOf({ ...r, method: 'HEAD', body: undefined })).toMatch(/^curl -sS --path-as-is -g -I /)
  })
})
