import type { z } from 'zod'
import { describe, expect, it } from 'vitest'
import * as encumbrances from '../src/features/encumbrances/schemas.js'
import * as jurisdiction from '../src/features/jurisdiction/schemas.js'
import * as parcels from '../src/features/parcels/schemas.js'
import * as plots from '../src/features/plots/schemas.js'
import { fastObjectParser } from '../src/http/fast-params.js'

// values that sit on every rule's edges: number grammar, bounds, case, blanks, dates
const POOL = [
  '',
  ' ',
  '0',
  '1',
  '-1',
  '12',
  ' 12 ',
  '12.5',
  '-90',
  '90',
  '90.0000001',
  '-90.0000001',
  '180',
  '-180',
  '180.5',
  '1e2',
  '1E-3',
  '1e',
  '0x10',
  'Infinity',
  '-Infinity',
  'NaN',
  '+5',
  '.5',
  '5.',
  '-.5',
  '500',
  '5000',
  '20000',
  '100',
  '101',
  '500.0',
  '1000',
  '1001',
  '9007199254740993',
  '007',
  'south_africa',
  ' Botswana ',
  'BOTSWANA',
  'ALL',
  'all',
  ' All ',
  'none',
  'erf',
  'ERF',
  'farm_portion',
  'geojson',
  'WKT',
  'touching',
  'WITHIN',
  '2020-02-29',
  '2021-02-29',
  ' 2019-06-01 ',
  '2019-6-1',
  '-25.7',
  '28.1',
  '-26.2041',
  '25.9231',
  '17',
  '14',
  '9372',
  'GP',
  'gauteng',
  'JHB',
  'x',
]

function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const modules = { plots, parcels, jurisdiction, encumbrances } as Record<string, Record<string, unknown>>
const objectSchemas = Object.entries(modules).flatMap(([m, exports]) =>
  Object.entries(exports)
    .filter(([, v]) => v && typeof v === 'object' && '_zod' in v)
    .map(([name, v]) => ({ name: `${m}.${name}`, schema: v as z.ZodType }))
    .filter(({ schema }) => (schema._zod.def as { type: string }).type === 'object'),
)

describe('query fast paths (src/http/fast-params.ts)', () => {
  it('cover the hot GET queries', () => {
    for (const s of [
      plots.ReverseQuerySchema,
      plots.SearchQuerySchema,
      parcels.AtQuerySchema,
      jurisdiction.AtQuerySchema,
    ])
      expect(fastObjectParser(s)).not.toBeNull()
    expect(
      fastObjectParser(plots.ReverseQuerySchema)!({ latitude: '-24.6282', longitude: '25.9231', extra: 'x' }),
    ).toStrictEqual({ latitude: -24.6282, longitude: 25.9231 })
    expect(fastObjectParser(plots.SearchQuerySchema)!({ latitude: '-24.6', longitude: '25.9' })).toStrictEqual({
      latitude: -24.6,
      longitude: 25.9,
      radius: 500,
      limit: 100,
    })
  })

  it('accept only what zod accepts, and give exactly its output, on every object schema of every service', () => {
    const next = rng(7)
    let fastHits = 0
    let zodOnly = 0
    for (const { name, schema } of objectSchemas) {
      const parser = fastObjectParser(schema)
      if (!parser) continue
      const keys = Object.keys((schema._zod.def as unknown as { shape: Record<string, unknown> }).shape)
      for (let n = 0; n < 3000; n++) {
        const q: Record<string, string> = {}
        for (const k of keys)
          if (next() < 0.8) q[k] = next() < 0.2 ? String((next() - 0.5) * 400) : POOL[Math.floor(next() * POOL.length)]
        if (next() < 0.2) q.unknown_key = 'x'
        const fast = parser(q)
        const ref = schema.safeParse(q)
        if (fast !== undefined) {
          fastHits++
          expect(ref.success, `${name} ${JSON.stringify(q)}`).toBe(true)
          expect(fast, `${name} ${JSON.stringify(q)}`).toStrictEqual(ref.data)
        } else if (ref.success) zodOnly++
      }
    }
    // not vacuous: the fast path answered many queries (the rest were invalid or used an optional
    // parameter without a twin, which zod answers)
    expect(fastHits).toBeGreaterThan(1000)
    expect(zodOnly).toBeGreaterThanOrEqual(0)
  })

  it('leave objects with cross-parameter refinements to zod', () => {
    const refined = objectSchemas.filter(
      ({ schema }) => ((schema._zod.def as { checks?: unknown[] }).checks ?? []).length > 0,
    )
    expect(refined.length).toBeGreaterThan(0)
    for (const { schema } of refined) expect(fastObjectParser(schema)).toBeNull()
  })
})
