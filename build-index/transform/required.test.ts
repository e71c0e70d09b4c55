import { describe, expect, it } from 'vitest'
import { blankReason, listOf } from './required.js'

describe('required fields', () => {
  it('lists names as prose', () => {
    expect(listOf(['a'])).toBe('a')
    expect(listOf(['a', 'b'])).toBe('a and b')
    expect(listOf(['a', 'b', 'c'])).toBe('a, b and c')
  })

  it('names every blank field of a row in one reason', () => {
    expect(
      blankReason([
        ['id', null],
        ['lstatus', 'R'],
      ]),
    ).toBe('id is blank')
    expect(
      blankReason([
        ['erf_number', ''],
        ['township', null],
        ['province', null],
      ]),
    ).toBe('erf_number, township and province are blank')
  })
})
