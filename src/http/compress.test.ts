import { describe, expect, it } from 'vitest'
import { acceptsGzip, negotiate } from './compress.js'

describe('negotiate', () => {
  it('answers br or gzip as Accept-Encoding allows, the higher q first, br on a tie', () => {
    for (const [header, coding] of [
      [undefined, null],
      ['', null],
      ['identity', null],
      ['deflate', null],
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['GZIP', 'gzip'],
      ['br', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0.8', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip;q=0', null],
      ['*', 'br'],
      ['*;q=0', null],
      ['gzip, *;q=0', 'gzip'],
    ] as const)
      expect(negotiate(header), String(header)).toBe(coding)
  })
})

describe('acceptsGzip', () => {
  it('is true when gzip is listed or covered by *, with a q above 0', () => {
    for (const [header, yes] of [
      [undefined, false],
      ['', false],
      ['br', false],
      ['identity', false],
      ['gzip', true],
      ['x-gzip', true],
      ['br, gzip;q=0.1', true],
      ['gzip;q=0', false],
      ['*', true],
      ['gzip;q=0, *', false],
      ['br, *;q=0', false],
    ] as const)
      expect(acceptsGzip(header), String(header)).toBe(yes)
  })
})
