import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { accessLogWriter } from './log.js'

function capture(level = 'info', opts: pino.LoggerOptions = {}) {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    },
  })
  return { log: pino({ level, base: { pid: 42 }, ...opts }, stream), lines }
}

describe('access log line', () => {
  it('is the line pino writes for the same fields, key for key and value for value', async () => {
    const a = capture()
    const b = capture()
    const fixed = { timestamp: () => ',"time":1700000000000' }
    const byHand = capture('info', fixed)
    const byPino = capture('info', fixed)
    accessLogWriter(byHand.log, '2026-11-27')('id-1', 'GET', '/api/v1/plots/reverse', {
      status: 200,
      ms: 0.12345,
      keyId: 'k_abc',
      error: undefined,
      bytes: 312,
      client: '198.51.100.7',
      userAgent: 'curl/8.5 "x"',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    })
    byPino.log.info({
      requestId: 'id-1',
      method: 'GET',
      path: '/api/v1/plots/reverse',
      status: 200,
      ms: 0.123,
      keyId: 'k_abc',
      bytes: 312,
      build: '2026-11-27',
      client: '198.51.100.7',
      userAgent: 'curl/8.5 "x"',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    })
    accessLogWriter(a.log)('id-2', 'POST', '/nope', {
      status: 404,
      ms: 1.5,
      keyId: undefined,
      error: 'NotFound',
      bytes: 90,
      client: undefined,
      userAgent: undefined,
    })
    b.log.info({ requestId: 'id-2', method: 'POST', path: '/nope', status: 404, ms: 1.5, error: 'NotFound', bytes: 90 })
    await new Promise((r) => setImmediate(r))
    expect(byHand.lines).toEqual(byPino.lines)
    const [x] = a.lines.map((l) => JSON.parse(l))
    const [y] = b.lines.map((l) => JSON.parse(l))
    expect({ ...x, time: 0 }).toEqual({ ...y, time: 0 })
    expect(x).not.toHaveProperty('keyId')
  })

  it('escapes a path that holds quotes, backslashes and control characters', async () => {
    const c = capture()
    const path = '/a"b\\c\n\u0001é'
    accessLogWriter(c.log)('id', 'GET', path, {
      status: 400,
      ms: 0,
      keyId: 'k',
      error: 'ValidationError',
      bytes: 0,
      client: undefined,
      userAgent: undefined,
    })
    await new Promise((r) => setImmediate(r))
    expect(JSON.parse(c.lines[0]).path).toBe(path)
  })

  it('is disabled above the info level, enabled at it', () => {
    expect(accessLogWriter(capture('warn').log).enabled()).toBe(false)
    expect(accessLogWriter(capture('info').log).enabled()).toBe(true)
    expect(accessLogWriter(capture('silent').log).enabled()).toBe(false)
  })
})
