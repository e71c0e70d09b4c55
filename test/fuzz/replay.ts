/**
 * A failing request as something to run again: a curl command against a running server (the
 * body in a file when it is long or not plain text), and the fuzz command that regenerates it.
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FuzzRequest } from './arbitraries.js'
import { bodyLength, bodyText } from './json-text.js'

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Whether `s` can be pasted into a shell argument as it is. */
const plain = (s: string) => /^[\x20-\x7e]*$/.test(s)

/**
 * A curl command sending `r` to a server at `base`; the keys stay `$KEY` and `$KEY_NARROW`
 * (export them before running it: any key, and one for plots in Botswana only). A body over
 * 2 000 characters, or with bytes a shell argument cannot hold, is written to a file in the
 * temporary directory and sent from there.
 */
export function curlOf(r: FuzzRequest, base = 'http://localhost:8080'): string {
  // curl waits for a body after `-X HEAD`: `-I` asks for the head alone
  const parts = ['curl', '-sS', '--path-as-is', '-g', ...(r.method === 'HEAD' ? ['-I'] : ['-i', '-X', r.method])]
  for (const [k, v] of Object.entries(r.headers)) parts.push('-H', `"${k}: ${v.replace(/["\\`]/g, '\\$&')}"`)
  if (r.body !== undefined) {
    if (bodyLength(r.body) <= 2000 && plain(bodyText(r.body))) parts.push('--data-binary', quote(bodyText(r.body)))
    else parts.push('--data-binary', `@${writeBody(bodyText(r.body))}`)
  }
  parts.push(quote(base + r.url))
  return parts.join(' ')
}

function writeBody(text: string): string {
  const file = join(tmpdir(), `landdata-fuzz-body-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.json`)
  writeFileSync(file, text)
  return file
}

/** `r` for the report: the operation, the curl command, and the request as JSON (body cut at 300 characters). */
export function describeRequest(r: FuzzRequest): string {
  const body = r.body === undefined ? undefined : bodyText(r.body)
  const shown = {
    method: r.method,
    url: r.url,
    headers: r.headers,
    ...(body !== undefined
      ? { body: body.length > 300 ? `${body.slice(0, 300)}… (${body.length} characters)` : body }
      : {}),
  }
  return `${r.op}\n  request: ${JSON.stringify(shown)}\n  replay:  ${curlOf(r)}`
}
