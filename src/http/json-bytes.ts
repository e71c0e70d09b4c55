/**
 * A JSON answer written straight into UTF-8 bytes, for answers made of many small records (a
 * 100-plot radius answer): the same bytes `Buffer.from(JSON.stringify(value))` gives, without
 * the objects, the stringify, the UTF-8 encoding pass and @hono/node-server's byte count of a
 * string body.
 *
 * Numbers: `int` for integers, `rounded(v, places)` for `Math.round(v * 10^places) / 10^places`
 * written as JavaScript (and so JSON.stringify) prints it. That value is the double nearest the
 * decimal `m / 10^places` (m an integer, the division correctly rounded); two decimals of at most
 * 15 significant digits never read back as the same double, so m's digits, with the point put in
 * and trailing zeros dropped, are the shortest text of that double, which is what JavaScript
 * prints. Where JavaScript switches to exponent form (below 1e-6) or m has more than 15 digits,
 * JSON.stringify writes it instead.
 *
 * One writer is reused by every request: `start()` to `take()` must run without an await between
 * them (the answer is built synchronously), and `take()` returns a copy that the socket may keep.
 *
 * @module
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON must escape
const ESCAPE_FREE = /^[^"\\\u0000-\u001f\u0080-\uffff]*$/

export class JsonBytes {
  private buf: Buffer
  private pos = 0

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes)
  }

  /** Empties the writer. */
  start(): this {
    this.pos = 0
    return this
  }

  /**
   * A copy of what was written. `Buffer.allocUnsafe` carves answers under 4 KiB out of Node's
   * shared pool: about 4x cheaper than a typed-array slice, which allocates a backing store of
   * its own for every answer (~1 µs saved on a one-plot answer).
   */
  take(): Uint8Array {
    const out = Buffer.allocUnsafe(this.pos)
    this.buf.copy(out, 0, 0, this.pos)
    return out
  }

  /** Where the next byte goes: with `since`, a fragment of the answer can be kept for reuse. */
  mark(): number {
    return this.pos
  }

  /**
   * A copy of the bytes written since `mark` (a fragment to cache and write again with `bytes`),
   * with a backing store of its own: unlike take()'s short-lived answers, a kept fragment must
   * not pin a slab of Node's shared pool.
   */
  since(mark: number): Uint8Array {
    return Uint8Array.prototype.slice.call(this.buf, mark, this.pos)
  }

  /** What was written, as text (tests and callers that want a string). */
  text(): string {
    return this.buf.toString('utf8', 0, this.pos)
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let len = this.buf.length * 2
    while (len < this.pos + n) len *= 2
    const next = Buffer.allocUnsafe(len)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  /** JSON text that needs no escaping and is ASCII (punctuation, keys, enum values). */
  ascii(s: string): this {
    const n = s.length
    this.room(n)
    const b = this.buf
    let p = this.pos
    for (let k = 0; k < n; k++) b[p++] = s.charCodeAt(k)
    this.pos = p
    return this
  }

  /** Bytes already in JSON form (a cached fragment). */
  bytes(fragment: Uint8Array): this {
    const n = fragment.length
    this.room(n)
    const b = this.buf
    let p = this.pos
    if (n < 64) for (let k = 0; k < n; k++) b[p++] = fragment[k]
    else {
      b.set(fragment, p)
      p += n
    }
    this.pos = p
    return this
  }

  /** A JSON string, as JSON.stringify writes it. */
  string(s: string): this {
    if (s.length < 64 && ESCAPE_FREE.test(s)) return this.ascii('"').ascii(s).ascii('"')
    const text = JSON.stringify(s)
    const n = Buffer.byteLength(text)
    this.room(n)
    this.buf.write(text, this.pos, n, 'utf8')
    this.pos += n
    return this
  }

  /**
   * The JSON string of UTF-8 bytes `src[from, to)` (valid UTF-8, as a string table written from
   * JavaScript strings holds): copied as they are unless a quote, backslash or control byte needs
   * escaping (non-ASCII needs none).
   */
  utf8String(src: Uint8Array, from: number, to: number): this {
    for (let k = from; k < to; k++) {
      const c = src[k]
      if (c < 0x20 || c === 0x22 || c === 0x5c)
        return this.string(Buffer.from(src.buffer, src.byteOffset + from, to - from).toString('utf8'))
    }
    this.room(to - from + 2)
    const b = this.buf
    let p = this.pos
    b[p++] = 0x22
    for (let k = from; k < to; k++) b[p++] = src[k]
    b[p++] = 0x22
    this.pos = p
    return this
  }

  /** An integer (a safe one; anything else as String() writes it). */
  int(n: number): this {
    if (!Number.isSafeInteger(n)) return this.ascii(String(n))
    if (n < 0) {
      this.ascii('-')
      n = -n
    }
    this.room(16)
    this.digits(n, 0)
    return this
  }

  /** `Math.round(v * 10^places) / 10^places` as JSON.stringify writes it (places 0..15). */
  rounded(v: number, places: number): this {
    const scale = POW10[places]
    const m = Math.round(v * scale)
    const a = Math.abs(m)
    // zero (either sign), exponent form (below 1e-6), or more than 15 digits: JavaScript writes it
    if (a === 0) return this.ascii('0')
    if (a * 1e6 < scale || a >= 1e15) return this.ascii(JSON.stringify(m / scale))
    this.room(40)
    if (m < 0) this.buf[this.pos++] = 0x2d
    let width = places
    if (a < 2147483648 && places <= 9) {
      // int32 arithmetic (every coordinate at 7 places and distance at 2 of an answer): integer
      // division and remainder instead of floating-point floor and fmod
      const ai = a | 0
      const sc = scale | 0
      const whole = (ai / sc) | 0
      let frac = (ai - whole * sc) | 0
      this.digits(whole, 0)
      if (frac === 0) return this
      while (frac % 10 === 0) {
        frac = (frac / 10) | 0
        width--
      }
      this.buf[this.pos++] = 0x2e
      this.digits(frac, width)
      return this
    }
    const whole = Math.floor(a / scale)
    let frac = a - whole * scale
    this.digits(whole, 0)
    if (frac === 0) return this
    while (frac % 10 === 0) {
      frac /= 10
      width--
    }
    this.buf[this.pos++] = 0x2e
    this.digits(frac, width)
    return this
  }

  /** Decimal digits of a non-negative safe integer, zero-padded on the left to `width`. */
  private digits(n: number, width: number): void {
    const b = this.buf
    let len = 1
    while (len < 16 && n >= POW10[len]) len++
    if (len < width) len = width
    let p = this.pos + len
    this.pos = p
    if (n < 2147483648) {
      // int32 arithmetic: every coordinate, distance and id of a plot answer
      for (let k = 0; k < len; k++) {
        const q = (n / 10) | 0
        b[--p] = 48 + n - q * 10
        n = q
      }
      return
    }
    for (let k = 0; k < len; k++) {
      const q = Math.floor(n / 10)
      b[--p] = 48 + (n - q * 10)
      n = q
    }
  }
}

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k)
