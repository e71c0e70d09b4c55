import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { summariseCpuProfile } from './profile.js'

const SERVER = 'file:///app/dist/server.js'
const HONO = 'file:///app/node_modules/hono/dist/hono-base.js'
const HONO_CONTEXT = 'file:///app/node_modules/hono/dist/context.js'
const PINO = 'file:///app/node_modules/pino/lib/proto.js'
const frame = (functionName: string, url = '', lineNumber = 0) => ({
  functionName,
  url,
  scriptId: '0',
  lineNumber,
  columnNumber: 0,
})

// root ─┬ (idle)
//       ├ evaluate ─ buildServices          (start-up: left out)
//       └ dispatch (hono) ─┬ handler (server) ─┬ json (hono)
//                          │                   ├ json (server, reply.ts)
//                          │                   ├ rounded (server, json-bytes.ts)
//                          │                   └ nearest (server)
//                          │                   (both json and rounded: answer serialisation)
//                          ├ writeAccessLine (server) ─ write (pino)
//                          └ writev (native)
const nodes = [
  { id: 1, callFrame: frame('(root)'), children: [2, 3, 5] },
  { id: 2, callFrame: frame('(idle)') },
  { id: 3, callFrame: frame('evaluate'), children: [4] },
  { id: 4, callFrame: frame('buildServices', SERVER) },
  { id: 5, callFrame: frame('dispatch', HONO), children: [6, 9, 11] },
  { id: 6, callFrame: frame('handler', SERVER), children: [7, 8, 12, 13] },
  { id: 7, callFrame: frame('json', HONO_CONTEXT) },
  { id: 8, callFrame: frame('nearest', SERVER) },
  { id: 9, callFrame: frame('writeAccessLine', SERVER), children: [10] },
  { id: 10, callFrame: frame('write', PINO) },
  { id: 11, callFrame: frame('writev') },
  { id: 12, callFrame: frame('json', SERVER) },
  { id: 13, callFrame: frame('rounded', SERVER) },
]
// sample -> microseconds
const samples: [number, number][] = [
  [2, 5000],
  [4, 7000],
  [7, 100],
  [8, 300],
  [6, 100],
  [10, 200],
  [9, 100],
  [11, 200],
  [5, 50],
  [12, 100],
  [13, 100],
]

describe('summariseCpuProfile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'profile-test-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('sums busy time by the innermost claiming frame, leaving out idle and start-up', () => {
    writeFileSync(
      join(dir, 'x.cpuprofile'),
      JSON.stringify({
        nodes,
        samples: samples.map((s) => s[0]),
        timeDeltas: samples.map((s) => s[1]),
        startTime: 0,
        endTime: 1,
      }),
    )
    const b = summariseCpuProfile(dir, 10)
    expect(b.busyMs).toBeCloseTo(1.25, 9)
    const us = Object.fromEntries(b.rows.map((r) => [r.component, r.usPerRequest]))
    expect(us).toEqual({
      'service code (index, queries, answer building)': 40,
      'answer serialisation (JSON text or bytes, the Response)': 30,
      'access log (pino)': 30,
      'Hono (routing, context, middleware chain)': 5,
      'socket writes (kernel, loopback)': 20,
    })
    expect(b.rows[0].component).toBe('service code (index, queries, answer building)')
    expect(b.rows.reduce((s, r) => s + r.share, 0)).toBeCloseTo(1, 9)
  })

  it('tells bundled dependencies from our code by the source map of the bundle', () => {
    // a bundle whose line 0 came from Hono and line 1 from our plot queries
    const app = mkdtempSync(join(tmpdir(), 'profile-bundle-'))
    mkdirSync(join(app, 'dist'))
    writeFileSync(
      join(app, 'dist/server.js.map'),
      JSON.stringify({
        version: 3,
        sources: ['../node_modules/hono/dist/compose.js', '../src/features/plots/queries.ts'],
        names: [],
        mappings: 'AAAA;ACAA',
      }),
    )
    const bundle = pathToFileURL(join(app, 'dist/server.js')).href
    const profDir = join(app, 'prof')
    mkdirSync(profDir)
    const bundled = [
      { id: 1, callFrame: frame('(root)'), children: [2] },
      { id: 2, callFrame: frame('dispatch', bundle, 0), children: [3] },
      { id: 3, callFrame: frame('nearest', bundle, 1) },
    ]
    writeFileSync(
      join(profDir, 'x.cpuprofile'),
      JSON.stringify({ nodes: bundled, samples: [2, 3, 3], timeDeltas: [100, 300, 100], startTime: 0, endTime: 1 }),
    )
    const us = Object.fromEntries(summariseCpuProfile(profDir, 1).rows.map((r) => [r.component, r.usPerRequest]))
    expect(us).toEqual({
      'Hono (routing, context, middleware chain)': 100,
      'service code (index, queries, answer building)': 400,
    })
    rmSync(app, { recursive: true, force: true })
  })

  it('refuses a directory without exactly one profile', () => {
    const empty = mkdtempSync(join(tmpdir(), 'profile-none-'))
    expect(() => summariseCpuProfile(empty, 1)).toThrow(/expected one \.cpuprofile/)
    rmSync(empty, { recursive: true, force: true })
  })
})
