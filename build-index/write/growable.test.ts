import { describe, expect, it } from 'vitest'
import { GrowableF64 } from './growable.js'

describe('GrowableF64', () => {
  it('keeps every value in order across growth, and toArray is an exact-size copy', () => {
    const g = new GrowableF64(4)
    for (let i = 0; i < 10; i++) g.push3(i, i + 0.5, -i)
    g.push2(99, 100)
    g.push4(1, 2, 3, 4)
    const a = g.toArray()
    expect(a.length).toBe(36)
    expect(Array.from(a.subarray(0, 6))).toEqual([0, 0.5, -0, 1, 1.5, -1])
    expect(Array.from(a.subarray(30))).toEqual([99, 100, 1, 2, 3, 4])
    g.push2(7, 8)
    expect(a.length).toBe(36)
  })
})
