import { describe, expect, it } from 'vitest'
import { closest, editDistance } from './suggest.js'

describe('editDistance', () => {
  it.each([
    ['scale', 'scale', 0],
    ['scael', 'scale', 1], // one transposition
    ['scle', 'scale', 1], // one deletion
    ['scalee', 'scale', 1], // one insertion
    ['sxale', 'scale', 1], // one substitution
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3], // optimal string alignment: no edit of a transposed pair
  ])('%s -> %s is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d)
    expect(editDistance(b, a)).toBe(d)
  })
})

describe('closest', () => {
  const OPTIONS = ['scale', 'seed', 'out', 'only', 'overlap-days', 'help', 'version']
  it('suggests the nearest within two edits', () => {
    expect(closest('scael', OPTIONS)).toBe('scale')
    expect(closest('sed', OPTIONS)).toBe('seed')
    expect(closest('VERSION', OPTIONS)).toBe('version')
  })
  it('suggests the only option a prefix begins', () => {
    expect(closest('overlap', OPTIONS)).toBe('overlap-days')
  })
  it('suggests nothing for a word far from every candidate, or too short to judge', () => {
    expect(closest('verbose', OPTIONS)).toBeNull()
    expect(closest('x', ['id'])).toBeNull()
    // "o" begins out, only and overlap-days: too short, and ambiguous
    expect(closest('o', OPTIONS)).toBeNull()
  })
})
