import { describe, expect, it } from 'vitest'
import { JsonBytes } from './json-bytes.js'

const w = new JsonBytes(8)
const written = (f: (w: JsonBytes) => void) => {
  f(w.start())
  return Buffer.from(w.take()).toString('utf8')
}

let seed = 424242
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32

describe('JsonBytes', () => {
  it('keeps a fragment written since a mark, a copy that survives the writer growing and restarting', () => {
    const m = new JsonBytes(4)
    m.start().ascii('[')
    const mark = m.mark()
    m.ascii('{"a":').string('é"x').ascii('}')
    const fragment = m.since(mark)
    m.start().ascii('zzzzzzzzzzzzzzzzzzzzzzzz') // overwrite and grow the buffer
    expect(Buffer.from(fragment).toString('utf8')).toBe('{"a":"é\\"x"}')
    m.start().ascii('[').bytes(fragment).ascii(',').bytes(fragment).ascii(']')
    expect(JSON.parse(m.text())).toEqual([{ a: 'é"x' }, { a: 'é"x' }])
  })

  it('writes rounded numbers exactly as JSON.stringify writes Math.round(v * 10^p) / 10^p', () => {
    const values = [
      0, -0, 1, -1, 0.5, -0.5, 1e-7, 4e-7, 9.9e-7, 1e-6, -1e-6, 0.0000015, 1e-9, 123.456, 99.99999995, -24.65432109,
      28.0504, 1e14, 123456789.0123456, 1e15, 2e20, 1e21, 1e300, -1e300,
    ]
    for (let k = 0; k < 20000; k++) {
      const mag = 10 ** Math.floor(rand() * 24 - 9)
      values.push((rand() - 0.5) * mag, Math.round(rand() * 1e9) / 1e7, -Math.round(rand() * 1e9) / 1e7 + 1e-12)
    }
    const wrong: string[] = []
    for (const places of [0, 1, 2, 3, 7, 9, 10, 12]) {
      const scale = 10 ** places
      for (const v of values) {
        const got = written((w) => w.rounded(v, places))
        const want = JSON.stringify(Math.round(v * scale) / scale)
        if (got !== want) wrong.push(`${v} at ${places}: ${got}, want ${want}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it('writes integers as JSON.stringify does, safe or not', () => {
    for (const n of [0, -0, 7, -7, 10, 100, 12345678901, -9007199254740991, 9007199254740991, 2 ** 60, 1e21]) {
      expect(written((w) => w.int(n))).toBe(JSON.stringify(n))
    }
  })

  it('writes strings and raw UTF-8 string bytes as JSON.stringify does', () => {
    const strings = [
      '',
      'GABORONE',
      '12/3',
      'Ö"12\\3',
      'tab\there',
      'line\nbreak',
      '\u0000\u001f',
      'é',
      '日本',
      '😀',
      'x'.repeat(100),
      `${'y'.repeat(70)}"`,
    ]
    for (const s of strings) {
      expect(written((w) => w.string(s))).toBe(JSON.stringify(s))
      const bytes = Buffer.from(`ab${s}cd`)
      expect(written((w) => w.utf8String(bytes, 2, bytes.length - 2))).toBe(JSON.stringify(s))
    }
  })

  it('grows past its first buffer and keeps what it wrote, and take() is a copy', () => {
    const big = new JsonBytes(4)
    big.start().ascii('[')
    for (let k = 0; k < 1000; k++) big.ascii(k ? ',' : '').int(k)
    big.ascii(']')
    const first = big.take()
    expect(JSON.parse(Buffer.from(first).toString())).toEqual(Array.from({ length: 1000 }, (_, k) => k))
    big.start().ascii('"overwritten"')
    expect(Buffer.from(first).toString().startsWith('[0,1,2')).toBe(true)
    expect(big.text()).toBe('"overwritten"')
  })

  it('copies cached fragments of any length', () => {
    const short = Buffer.from(',"k":"v"')
    const long = Buffer.from(`,"k":"${'z'.repeat(200)}"`)
    expect(written((w) => w.ascii('{"a":1').bytes(short).bytes(long).ascii('}'))).toBe(
      `{"a":1,"k":"v","k":"${'z'.repeat(200)}"}`,
    )
  })
})
