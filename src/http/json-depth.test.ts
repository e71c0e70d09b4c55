import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js'

const nest = (depth: number, inner = '1') => '[{"a":'.repeat(depth / 2) + inner + '}]'.repeat(depth / 2)

describe('nestsDeeperThan', () => {
  it('counts arrays and objects alike, up to the limit and not beyond', () => {
    expect(nestsDeeperThan(nest(64), 64)).toBe(false)
    expect(nestsDeeperThan(nest(66), 64)).toBe(true)
    expect(nestsDeeperThan('['.repeat(65) + ']'.repeat(65), 64)).toBe(true)
    expect(nestsDeeperThan('['.repeat(64) + ']'.repeat(64), 64)).toBe(false)
    expect(nestsDeeperThan('['.repeat(5000) + ']'.repeat(5000), MAX_JSON_DEPTH)).toBe(true)
    // siblings do not add up
    expect(nestsDeeperThan(`[${Array.from({ length: 200 }, () => '[[1]]').join(',')}]`, 3)).toBe(false)
  })

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = `{"a":"${'['.repeat(100)}","b":"x\\"${'{'.repeat(100)}","c":"\\\\","d":[1]}`
    expect(JSON.parse(text).c).toBe('\\')
    expect(nestsDeeperThan(text, 2)).toBe(false)
    // after an escaped backslash the quote closes the string, so the brackets after it count
    expect(nestsDeeperThan(`["\\\\",[[[1]]]]`, 3)).toBe(true)
  })

  it('leaves malformed text to JSON.parse', () => {
    expect(nestsDeeperThan('"unterminated [[[[', 1)).toBe(false)
    expect(nestsDeeperThan(']]]]', 1)).toBe(false)
    expect(nestsDeeperThan('', 1)).toBe(false)
  })
})
