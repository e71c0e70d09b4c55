/**
 * JSON text with tokens JSON.stringify never writes: a {@link Raw} value is copied into the text
 * as it is (`1e999`, which JSON.parse reads as Infinity; `-0`; `NaN`, which makes the text
 * invalid JSON), and a {@link Big} body is only written out when it is sent.
 */

/** A token written into the JSON text unchanged. */
export class Raw {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `<raw ${this.text}>`
  }
}

/** `value` as JSON text, {@link Raw} tokens copied verbatim. */
export function toJsonText(value: unknown): string {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`
  if (value === undefined) return 'null'
  return JSON.stringify(value)
}

/**
 * A body too big to keep in every generated case (and in fast-check's shrink tree): `prefix`,
 * then `filler` `count` times, then `suffix`, written out when the request is sent.
 */
export interface Big {
  prefix: string
  filler: string
  count: number
  suffix: string
}

export type BodyText = string | Big

export function bodyText(b: BodyText): string {
  return typeof b === 'string' ? b : b.prefix + b.filler.repeat(b.count) + b.suffix
}

/** The body's length in characters, without writing it out. */
export function bodyLength(b: BodyText): number {
  return typeof b === 'string' ? b.length : b.prefix.length + b.filler.length * b.count + b.suffix.length
}
