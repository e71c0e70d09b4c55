import { describe, expect, it } from 'vitest'
import { round } from './round.js'

describe('round', () => {
  it('keeps the given number of decimals', () => {
    expect(round(1.23456, 2)).toBe(1.23)
    expect(round(-33.92487651, 7)).toBe(-33.9248765)
    expect(round(18.4241, 0)).toBe(18)
  })
  it('rounds halves as Math.round does', () => {
    expect(round(0.125, 2)).toBe(0.13)
    expect(round(-2.5, 0)).toBe(-2)
  })
})
