// streaming line splitter: big chunks decoded once and split natively, far faster than per-line
// events, and never holds more than a chunk plus one partial line in memory.
import { createReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'

const CHUNK_BYTES = 1 << 20

/**
 * Streams a UTF-8 text file as batches of lines, in order. Line terminators (LF or CRLF) and a
 * leading byte-order mark are removed; a final line without terminator is kept. Counting the
 * lines of every batch gives 1-based line numbers.
 */
export async function* readLineBatches(file: string): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8')
  let rest = ''
  let atStart = true
  for await (const chunk of createReadStream(file, { highWaterMark: CHUNK_BYTES })) {
    let text = rest + decoder.write(chunk as Buffer)
    if (atStart && text !== '') {
      text = stripBom(text)
      atStart = false
    }
    const lines = text.split('\n')
    rest = lines.pop() as string
    if (lines.length > 0) yield stripCarriageReturns(lines)
  }
  let last = rest + decoder.end()
  if (atStart) last = stripBom(last)
  if (last !== '') yield stripCarriageReturns([last])
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

function stripCarriageReturns(lines: string[]): string[] {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line.charCodeAt(line.length - 1) === 13) lines[i] = line.slice(0, -1)
  }
  return lines
}
