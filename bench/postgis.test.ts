/**
 * The PostGIS side-by-side suite without PostgreSQL: its skip switch, its answer comparison and
 * its EWKT writer. The suite itself (apt-get, a private cluster) is run by `npm run bench -- --only postgis`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  lineStringWkt,
  multiLineStringEwkt,
  multiPolygonEwkt,
  NO_POSTGIS_ENV,
  parsePgbench,
  pgbenchLogLatencies,
  pgbenchScript,
  type PgbenchResult,
} from './lib/postgis.js'
import { Samples, type Summary } from './lib/stats.js'
import type { SuiteContext, SuiteRecord } from './lib/suite.js'
import { compare, explainDifference } from './suites/postgis/compare.js'
import { httpFromResults, httpPath, httpProbeIndices, sameRunRatio } from './suites/postgis/http.js'
import { postgisSuite } from './suites/postgis/index.js'
import type { PostgisData, SameRunOp } from './suites/postgis/model.js'

const saved = process.env[NO_POSTGIS_ENV]
afterEach(() => {
  if (saved === undefined) delete process.env[NO_POSTGIS_ENV]
  else process.env[NO_POSTGIS_ENV] = saved
})

it(`skips at once, cleanly, with ${NO_POSTGIS_ENV}=1`, async () => {
  process.env[NO_POSTGIS_ENV] = '1'
  const failures: string[] = []
  const ctx = {
    dataset: { dir: '/nonexistent/dataset' },
    log: () => {},
    fail: (m: string) => failures.push(m),
    opts: { quick: true, seed: 1 },
  } as unknown as SuiteContext
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
  expect(multiPolygonEwkt([[sq], [sq, sq]])).toBe(
    'SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((0 0,1 0,1 1,0 0),(0 0,1 0,1 1,0 0)))',
  )
})

it('writes lines as EWKT and WKT', () => {
  expect(
    multiLineStringEwkt([
      [
        [0, 0],
        [1, 1],
      ],
      [
        [2, 2],
        [3, 3.5],
      ],
    ]),
  ).toBe('SRID=4326;MULTILINESTRING((0 0,1 1),(2 2,3 3.5))')
  expect(
    lineStringWkt([
      [18.5, -33.9],
      [18.6, -33.8],
    ]),
  ).toBe('LINESTRING(18.5 -33.9,18.6 -33.8)')
})

describe('pgbench', () => {
  /** The value pgbench gives a `\\set` expression for probe k, read as JavaScript. */
  const evaluate = (expr: string, k: number): number =>
    new Function(
      'k',
      `return ${expr
        .replace(/case when /g, '(')
        .replace(/ then /g, ' ? ')
        .replace(/ else /g, ' : ')
        .replace(/ end/g, ')')
        .replace(/:k/g, 'k')}`,
    )(k) as number

  it("writes a script that asks the same statement with probe k's parameters, k drawn at random", () => {
    const probes = Array.from({ length: 37 }, (_, k) => [18 + k / 7, -34 + k / 11, 500, 100])
    probes[5][0] = -0.000123
    probes[6][1] = 1e-7
    const script = pgbenchScript(
      'SELECT id FROM plot\n  WHERE ST_DWithin(geog, ST_MakePoint($1::float8, $2::float8)::geography, $3::float8) ' +
        'LIMIT $4::int',
      probes,
    )
    const lines = script.trimEnd().split('\n')
    expect(lines[0]).toBe('\\set k random(0, 36)')
    expect(lines.at(-1)).toBe(
      'SELECT id FROM plot WHERE ST_DWithin(geog, ST_MakePoint(:p1::float8, :p2::float8)::geography, :p3::float8) ' +
        'LIMIT :p4::int;',
    )
    expect(lines).toHaveLength(6)
    for (let j = 0; j < 4; j++) {
      const [name, ...rest] = lines[j + 1].slice('\\set '.length).split(' ')
      expect(name).toBe(`p${j + 1}`)
      const expr = rest.join(' ')
      // no exponents: pgbench reads digits and a point
      expect(expr).not.toMatch(/\de/)
      for (let k = 0; k < probes.length; k++) expect(evaluate(expr, k)).toBe(probes[k][j])
    }
    // a balanced tree: about log2(37) comparisons deep
    expect(lines[1].split('case when').length - 1).toBe(36)
  })

  it('refuses statements with a parameter it cannot type and parameters that are not numbers', () => {
    expect(() => pgbenchScript('SELECT $1', [[1]])).toThrow(/without a cast/)
    expect(() => pgbenchScript('SELECT $1::text', [['LINESTRING(0 0,1 1)' as unknown as number]])).toThrow(
      /not a finite number/,
    )
    expect(() => pgbenchScript('SELECT $1::float8', [])).toThrow(/no probes/)
  })

  it('reads the figures of its report and its transaction log', () => {
    const report = [
      'transaction type: /tmp/pgbench-at.sql',
      'scaling factor: 1',
      'query mode: prepared',
      'number of clients: 8',
      'number of threads: 1',
      'maximum number of tries: 1',
      'duration: 10 s',
      'number of transactions actually processed: 123456',
      'number of failed transactions: 0 (0.000%)',
      'latency average = 0.648 ms',
      'initial connection time = 9.873 ms',
      'tps = 12345.678901 (without initial connection time)',
    ].join('\n')
    expect(parsePgbench(report)).toEqual({ qps: 12345.678901, latencyMeanUs: 648, transactions: 123456, failed: 0 })
    expect(parsePgbench('pgbench: error: connection refused')).toBeNull()
    const s = new Samples()
    pgbenchLogLatencies('0 0 120 0 1764190000 123456\n1 0 80 0 1764190000 123500\n0 1 100 0 1764190000 123600\n\n', s)
    expect(s.summary()).toMatchObject({ n: 3, p50Us: 100, minUs: 80, maxUs: 120 })
  })
})

it('compares throughput with the faster PostGIS client, and per-query time with the quicker one', () => {
  const sum = (p50Us: number): Summary => ({
    n: 100,
    p50Us,
    p99Us: p50Us * 2,
    meanUs: p50Us,
    minUs: p50Us / 2,
    maxUs: p50Us * 3,
  })
  const bench = (qps: number, p50Us: number, clients: number): PgbenchResult => ({
    qps,
    latencyMeanUs: p50Us,
    latency: sum(p50Us),
    transactions: qps * 10,
    failed: 0,
    clients,
    threads: 1,
    seconds: 10,
  })
  const data: PostgisData = {
    server: 'PostgreSQL 15.18, PostGIS 3.3.2',
    connections: 8,
    load: { plots: 10, parcels: 10, prepareMs: 1, copyMs: 1, indexMs: 1, analyzeMs: 1, tableBytes: 1, indexBytes: 1 },
    rows: [
      {
        op: 'at',
        probes: 100,
        ours: sum(20),
        oursOpsPerS: 30_000,
        pgSeq: sum(365),
        pgSeqQps: 2_600,
        pgConc: sum(1_200),
        pgConcQps: 5_000,
        pgServerMeanUs: 126,
        pgbenchSeq: bench(7_000, 120, 1),
        pgbench: bench(15_000, 500, 8),
        meanResultsOurs: 2,
        meanResultsPg: 2,
        agreement: { agreed: 100, tolerated: 0, disagreed: 0 },
      },
    ],
    http: [
      {
        op: 'at',
        endpoint: '/parcels/at',
        reqPerS: 16_000,
        ranAt: '2026-11-26T19:55:00.000Z',
        cpu: { totalUs: 142.4, answerUs: 56.8 },
      },
    ],
    notes: [],
  }
  const md = postgisSuite.render({ data } as SuiteRecord<PostgisData>)
  const row = md.split('\n').find((l) => l.startsWith('| at |'))!
  // per query: pgbench's 120 us p50, not pg's 365 us; throughput: pgbench's 15,000 q/s, not pg's 5,000
  expect(row).toContain('| 6.0x (target ≥ 50x: missed) | 2.0x (target ≥ 3x: missed) |')
  expect(row).toContain('365 / 730; 120 / 240')
  expect(row).toContain('5,000; 15,000')
  expect(md).toContain(
    '- /parcels/at: 16,000 req/s (measured 2026-11-26 19:55 UTC) vs 15,000 q/s → 1.1x (target ≥ 3x: missed)',
  )
  expect(md).toContain('at: ours would need ≥ 45,000 ops/s, it is 30,000')
  expect(md).toContain(
    'What limits it over HTTP: PostGIS is measured without an HTTP layer, ours through one. /parcels/at: each ' +
      "request cost 142 µs of CPU on one worker (its suite's profile), of which 56.8 µs the lookup and its answer",
  )
  expect(md).toContain("in process, one thread, ours serves 2.0x PostGIS's 8-connection throughput.")
  expect(md).toContain("pgbench: PostgreSQL's C client")
  // without pgbench the pg figures stand
  const { pgbench, pgbenchSeq, ...plain } = data.rows![0]
  void pgbench
  void pgbenchSeq
  const md2 = postgisSuite.render({ data: { ...data, rows: [plain] } } as SuiteRecord<PostgisData>)
  expect(md2.split('\n').find((l) => l.startsWith('| at |'))).toContain(
    '| 18.3x (target ≥ 50x: missed) | 6.0x (≥ 3x met) |',
  )
  expect(md2).not.toContain('What limits the in-process throughput ratio')
  // 16,000 req/s over HTTP against pg's 5,000 q/s: met, so nothing to explain
  expect(md2).not.toContain('What limits it over HTTP')
})

describe('ours over HTTP next to PostGIS in the same run', () => {
  it('asks the endpoint at the very probe PostGIS was asked', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: more digits than a double holds, as a client may send
    const lon = 25.923112345678901
    const lat = -1e-7
    const path = httpPath('radius', lon, lat)
    expect(path.startsWith('/api/v1/plots/search-given-coordinates?')).toBe(true)
    const q = new URL(path, 'http://x').searchParams
    // the text parses back to the same doubles (the API's number grammar takes exponents)
    expect(Number(q.get('longitude'))).toBe(lon)
    expect(Number(q.get('latitude'))).toBe(lat)
    expect(q.get('radius')).toBe('500')
    expect(q.get('limit')).toBe('100')
    expect(httpPath('nearest', 18.5, -33.9)).toBe('/api/v1/plots/reverse?latitude=-33.9&longitude=18.5')
    expect(httpPath('at', 28.1, -26.2)).toBe('/api/v1/parcels/at?latitude=-26.2&longitude=28.1')
  })

  it('loads every plot probe, and /parcels/at only where a parcel is (elsewhere a 404)', () => {
    const answers = [{ ids: [3] }, { ids: [] }, { ids: [5, 9] }, { ids: [] }]
    expect(httpProbeIndices('at', answers)).toEqual([0, 2])
    expect(httpProbeIndices('nearest', answers)).toEqual([0, 1, 2, 3])
    expect(httpProbeIndices('radius', answers)).toEqual([0, 1, 2, 3])
  })

  it('reports each turn, the ratio of the medians, and what limits a miss', () => {
    const turn = (ours: number, pg: number) => ({
      oursReqPerS: ours,
      oursP50Ms: 3.5,
      oursP99Ms: 8.25,
      oursErrors: 0,
      pgQps: pg,
    })
    const at: SameRunOp = {
      op: 'at',
      endpoint: '/parcels/at',
      probes: 4000,
      checked: 25,
      agreed: 25,
      turns: [turn(12_000, 7_000), turn(11_000, 8_000), turn(13_000, 6_000)],
    }
    // medians 12,000 and 7,000 (not the mean of the per-turn ratios)
    expect(sameRunRatio(at)).toEqual({ ours: 12_000, pg: 7_000, ratio: 12_000 / 7_000 })
    const reverse: SameRunOp = {
      op: 'nearest',
      endpoint: '/plots/reverse',
      probes: 5000,
      checked: 25,
      agreed: 24,
      turns: [turn(12_500, 400)],
    }
    const sum: Summary = { n: 10, p50Us: 15, p99Us: 30, meanUs: 15, minUs: 5, maxUs: 40 }
    const row = {
      probes: 10,
      ours: sum,
      oursOpsPerS: 70_000,
      pgSeq: sum,
      pgSeqQps: 3_000,
      pgConc: sum,
      pgConcQps: 5_000,
      pgServerMeanUs: 90,
      meanResultsOurs: 1,
      meanResultsPg: 1,
      agreement: { agreed: 10, tolerated: 0, disagreed: 0 },
    }
    const data: PostgisData = {
      server: 'PostgreSQL 15.18, PostGIS 3.3.2',
      connections: 8,
      load: { plots: 10, parcels: 10, prepareMs: 1, copyMs: 1, indexMs: 1, analyzeMs: 1, tableBytes: 1, indexBytes: 1 },
      rows: [
        { op: 'nearest', ...row },
        { op: 'at', ...row },
      ],
      // an earlier suite's figure: its profile explains the miss, its req/s is not used
      http: [
        {
          op: 'at',
          endpoint: '/parcels/at',
          reqPerS: 99_999,
          ranAt: '2026-11-26T19:55:00.000Z',
          cpu: { totalUs: 123, answerUs: 54.4 },
        },
      ],
      sameRun: {
        tool: 'wrk',
        workers: 2,
        connections: 50,
        durationS: 10,
        pgClient: 'pgbench',
        pgConnections: 8,
        pgSeconds: 10,
        ops: [reverse, at],
      },
      notes: [],
    }
    const md = postgisSuite.render({ data } as SuiteRecord<PostgisData>)
    expect(md).toContain(
      'and PostGIS with no HTTP (pgbench, 8 connections, 10 s per turn) took turns, query by query, 3 round(s)',
    )
    expect(md).toContain('Before the turns, 49 of 50 answers over HTTP were identical to ours in process.')
    expect(md).toContain(
      '| /parcels/at | 4,000 | 12,000, 11,000, 13,000 | 3.50 / 8.25 | 7,000, 8,000, 6,000 | 1.7x (target ≥ 3x: ' +
        'missed) |',
    )
    expect(md).toContain('| /plots/reverse | 5,000 | 12,500 | 3.50 / 8.25 | 400 | 31.3x (≥ 3x met) |')
    expect(md).not.toContain('99,999')
    expect(md).not.toContain("from this run's http / parcels suites")
    expect(md).toContain(
      'What limits it over HTTP: PostGIS is measured without an HTTP layer, ours through one. /parcels/at: each ' +
        "request cost 123 µs of CPU on one worker (its suite's profile), of which 54.4 µs the lookup and its " +
        "answer and the rest HTTP (socket writes, Node's parser, Hono, the access log); in process, one thread, " +
        "ours serves 14.0x PostGIS's 8-connection throughput.",
    )
    // both met: nothing to explain
    const met = { ...at, turns: [turn(30_000, 7_000)] }
    expect(
      postgisSuite.render({
        data: { ...data, sameRun: { ...data.sameRun!, ops: [reverse, met] } },
      } as SuiteRecord<PostgisData>),
    ).not.toContain('What limits it over HTTP')
  })
})

describe('httpFromResults', () => {
  it('reads the reverse and radius figures of the http suite from issue #37 on (format 2)', () => {
    const run = (load: string, reqPerS: number) => ({ round: 1, load, result: { reqPerS, connections: 50 } })
    const breakdown = {
      busyMs: 100,
      requests: 1000,
      rows: [
        { component: 'service code (index, queries, answer building)', share: 0.3, usPerRequest: 30 },
        { component: 'answer serialisation (JSON text or bytes, the Response)', share: 0.1, usPerRequest: 10 },
        { component: 'socket writes (kernel, loopback)', share: 0.6, usPerRequest: 60 },
      ],
    }
    const http = {
      name: 'http',
      ranAt: '2026-11-29T07:00:00.000Z',
      dataset: { scale: 'unit-test' },
      data: {
        format: 2,
        runs: [
          run('hello', 50_000),
          run('/plots/reverse', 20_000),
          run('/plots/reverse', 24_000),
          run('/plots/reverse', 22_000),
          run('radius 500 m, limit 100', 9_000),
          run('same bytes: radius 500 m, limit 100', 15_000),
        ],
        profiles: [{ endpoint: '/plots/reverse', reqPerS: 9_000, breakdown }],
      },
    } as unknown as SuiteRecord
    const ctx = { dataset: { scale: 'unit-test' }, earlier: [http] } as unknown as SuiteContext
    expect(httpFromResults(ctx)).toEqual([
      {
        op: 'nearest',
        endpoint: '/plots/reverse',
        reqPerS: 22_000,
        ranAt: http.ranAt,
        cpu: { totalUs: 100, answerUs: 40 },
      },
      { op: 'radius', endpoint: '/plots/search-given-coordinates', reqPerS: 9_000, ranAt: http.ranAt, cpu: undefined },
    ])
  })
})
