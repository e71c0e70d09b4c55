/**
 * The PostGIS side-by-side suite without PostgreSQL: its skip switch, its answer comparison and
 * its EWKT writer. The suite itself (apt-get, a private cluster) is run by `npm run bench -- --only postgis`.
 */
import { afterEach, expect, it } from 'vitest'
import { multiPolygonEwkt, NO_POSTGIS_ENV } from './lib/postgis.js'
import type { SuiteContext, SuiteRecord } from './lib/suite.js'
import { compare, postgisSuite, type PostgisData } from './suites/postgis.js'

const saved = process.env[NO_POSTGIS_ENV]
afterEach(() => {
  if (saved === undefined) delete process.env[NO_POSTGIS_ENV]
  else process.env[NO_POSTGIS_ENV] = saved
})

it(`skips at once, cleanly, with ${NO_POSTGIS_ENV}=1`, async () => {
  process.env[NO_POSTGIS_ENV] = '1'
  const failures: string[] = []
  const ctx = { dataset: { dir: '/nonexistent/dataset' }, log: () => {}, fail: (m: string) => failures.push(m), opts: { quick: true, seed: 1 } } as unknown as SuiteContext
  const t0 = performance.now()
  const data = await postgisSuite.run(ctx)
  expect(performance.now() - t0).toBeLessThan(1000)
  expect(data.skipped).toBe(`${NO_POSTGIS_ENV}=1`)
  expect(failures).toEqual([])
  expect(postgisSuite.render({ data } as SuiteRecord<PostgisData>)).toBe(`_Skipped: ${NO_POSTGIS_ENV}=1._`)
})

it('compares answers: exact sets, equal nearest distances, radius edges', () => {
  expect(compare('at', { ids: [7, 3] }, { ids: [3, 7] })).toBe('agreed')
  expect(compare('at', { ids: [7] }, { ids: [3, 7] })).toBe('disagreed')
  expect(compare('nearest', { ids: [] }, { ids: [] })).toBe('agreed')
  expect(compare('nearest', { ids: [1], d: [12.34] }, { ids: [] })).toBe('disagreed')
  expect(compare('nearest', { ids: [1], d: [12.34] }, { ids: [2], d: [12.3412] })).toBe('tolerated')
  expect(compare('nearest', { ids: [1], d: [12.34] }, { ids: [2], d: [12.5] })).toBe('disagreed')
  expect(compare('radius', { ids: [1, 2], d: [3, 4] }, { ids: [2, 1], d: [4, 3] })).toBe('agreed')
  expect(compare('radius', { ids: [1, 2], d: [3, 500] }, { ids: [1], d: [3.001] })).toBe('tolerated')
  expect(compare('radius', { ids: [1, 2], d: [3, 400] }, { ids: [1], d: [3.001] })).toBe('disagreed')
})

it('writes multipolygons as EWKT in SRID 4326', () => {
  const sq = [
    [0, 0],
    [1, 0],
    [1, 1],
    [0, 0],
  ]
  expect(multiPolygonEwkt([[sq], [sq, sq]])).toBe('SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((0 0,1 0,1 1,0 0),(0 0,1 0,1 1,0 0)))')
})
