import { afterEach, describe, expect, it, vi } from 'vitest'
import { Pacer } from './file-hash.js'

/** A clock the test moves by hand. */
function clock() {
  let now = 1000
  vi.spyOn(performance, 'now').mockImplementation(() => now)
  return (ms: number) => void (now += ms)
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('Pacer', () => {
  it('asks for no rest within a slice, then for as much rest as keeps work at its share', () => {
    const pass = clock()
    const half = new Pacer(10)
    const quarter = new Pacer(10, 0.25)
    pass(9)
    expect([half.rest(), quarter.rest()]).toEqual([0, 0])
    pass(3)
    // 12 ms of work: 12 ms of rest at a half, 36 at a quarter
    expect([half.rest(), quarter.rest()]).toEqual([12, 36])
    half.resume()
    pass(4)
    expect(half.rest()).toBe(0)
  })

  it('at a share of 1 never rests; a share outside (0, 1] is refused', () => {
    const pass = clock()
    const full = new Pacer(10, 1)
    pass(500)
    expect(full.rest()).toBe(0)
    expect(() => new Pacer(10, 0)).toThrow(RangeError)
    expect(() => new Pacer(10, 1.5)).toThrow(RangeError)
  })

  it('counts a pause as rest, and carries the work it did not rest for into the next slice', () => {
    const pass = clock()
    const p = new Pacer(10, 0.25)
    pass(6)
    p.pause()
    // 6 ms worked, owing 18 ms of rest: a 9 ms wait pays half of it, leaving 3 ms of work owed
    pass(9)
    p.unpause()
    pass(6)
    expect(p.rest()).toBe(0)
    pass(1)
    expect(p.rest()).toBe(30)
    // a wait of the whole debt forgives it
    p.pause()
    pass(30)
    p.unpause()
    pass(9)
    expect(p.rest()).toBe(0)
  })
})
