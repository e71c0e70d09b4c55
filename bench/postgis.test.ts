/**
 * The PostGIS side-by-side suite without PostgreSQL: its skip switch, its answer comparison and
 * its EWKT writer. The suite itself (apt-get, a private cluster) is run by `npm run bench -- --only postgis`.
 */
import { afterEach, expect, it } from 'vitest'
import { lineStringWkt, multiLineStringEwkt, multiPolygonEwkt, NO_POSTGIS_ENV } from './lib/postgis.js'
import type { SuiteContext, SuiteRecord } from './lib/suite.js'
import { compare, explainDifference, postgisSuite, type PostgisData } from './suites/postgis.js'

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

it('compares corridor answers by uid set and explains the uids met on one side only', () => {
  expect(compare('corridor', { ids: [5, 9], d: [1, 2] }, { ids: [9, 5], d: [2, 1] })).toBe('agreed')
  expect(compare('corridor', { ids: [5] }, { ids: [5, 9] })).toBe('disagreed')
  // ours alone, 1 cm from the route on the spheroid: our 2 cm edge tolerance
  expect(explainDifference('ours', 0.01, false, 0.011)).toBe('tolerance')
  // ours alone, meeting with straight edges but 30 cm away on great circles: the edge model
  expect(explainDifference('ours', 0.3, true, 0)).toBe('edge model')
  expect(explainDifference('ours', 0.3, false, 0.3)).toBe('unexplained')
  // PostGIS alone: explained only when straight edges miss
  expect(explainDifference('PostGIS', 0, false, 0.2)).toBe('edge model')
  expect(explainDifference('PostGIS', 0, true, 0)).toBe('unexplained')
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

it('writes lines as EWKT and WKT', () => {
  expect(multiLineStringEwkt([[[0, 0], [1, 1]], [[2, 2], [3, 3.5]]])).toBe('SRID=4326;MULTILINESTRING((0 0,1 1),(2 2,3 3.5))')
  expect(lineStringWkt([[18.5, -33.9], [18.6, -33.8]])).toBe('LINESTRING(18.5 -33.9,18.6 -33.8)')
})
