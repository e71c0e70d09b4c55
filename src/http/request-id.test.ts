import { describe, expect, it } from 'vitest'
import { acceptClientRequestId, acceptTraceparent } from './request-id.js'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT = '00f067aa0ba902b7'

describe('acceptTraceparent (W3C Trace Context)', () => {
  it('keeps a valid version-00 header, and the four fields of a later version', () => {
    expect(acceptTraceparent(`00-${TRACE}-${PARENT}-01`)).toBe(`00-${TRACE}-${PARENT}-01`)
    expect(acceptTraceparent(`00-${TRACE}-${PARENT}-00`)).toBe(`00-${TRACE}-${PARENT}-00`)
    expect(acceptTraceparent(`01-${TRACE}-${PARENT}-01-what-comes-next`)).toBe(`01-${TRACE}-${PARENT}-01`)
  })

  it.each([
    ['absent', undefined],
    ['upper case', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['extra field on version 00', `00-${TRACE}-${PARENT}-01-x`],
    ['a log injection', `00-${TRACE}-${PARENT}-01"},"admin":true`],
    ['too long', `00-${TRACE}-${PARENT}-01`.padEnd(600, 'a')],
  ])('ignores %s', (_, value) => {
    expect(acceptTraceparent(value)).toBeNull()
  })
})

describe('acceptClientRequestId', () => {
  it('keeps a safe id and refuses anything else', () => {
    expect(acceptClientRequestId('abc-123_x.y:z')).toBe('abc-123_x.y:z')
    expect(acceptClientRequestId('a b')).toBeNull()
    expect(acceptClientRequestId('x'.repeat(129))).toBeNull()
  })
})
