import { AggregatorRegistry, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { FastHistogram, KeyedCounter } from './series.js'

describe('FastHistogram', () => {
  it('prints what a prom-client Histogram with the same observations prints', async () => {
    const ours = new Registry()
    const theirs = new Registry()
    const buckets = [0.001, 0.01, 0.1]
    const fast = new FastHistogram('h', 'help', buckets, ours)
    const ok = fast.series({ route: '/a', status: '200' })
    const missing = fast.series({ route: '/a', status: '404' })
    const reference = new Histogram({
      name: 'h',
      help: 'help',
      buckets,
      labelNames: ['route', 'status'],
      registers: [theirs],
    })
    for (const [s, status, v] of [
      [ok, '200', 0.0005],
      [ok, '200', 0.001],
      [ok, '200', 0.05],
      [missing, '404', 3],
    ] as const) {
      s.observe(v)
      reference.observe({ route: '/a', status }, v)
    }
    expect(await ours.metrics()).toBe(await theirs.metrics())
  })

  it('sums across registries as AggregatorRegistry sums cluster workers', async () => {
    const workers = [new Registry(), new Registry()]
    workers.forEach((r, i) => {
      new FastHistogram('h', 'help', [1], r).series({ route: '/a' }).observe(i)
      const errors = new KeyedCounter('e_total', 'help', 'code', r)
      errors.inc('NotFound')
      if (i === 1) errors.inc('RateLimitExceeded')
    })
    const text = await AggregatorRegistry.aggregate(
      await Promise.all(workers.map((r) => r.getMetricsAsJSON())),
    ).metrics()
    expect(text).toMatch(/^h_bucket\{le="1",route="\/a"\} 2$/m)
    expect(text).toMatch(/^h_count\{route="\/a"\} 2$/m)
    expect(text).toMatch(/^h_sum\{route="\/a"\} 1$/m)
    expect(text).toMatch(/^e_total\{code="NotFound"\} 2$/m)
    expect(text).toMatch(/^e_total\{code="RateLimitExceeded"\} 1$/m)
  })
})
