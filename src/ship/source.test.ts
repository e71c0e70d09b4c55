import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  fileUrl,
  httpSource,
  NotFoundError,
  openSource,
  parseHeader,
  rangeStart,
  statusError,
  TransientError,
} from './source.js'

describe('HTTP answers', () => {
  it('resumes a 206 that starts where asked, restarts on a 200, anything else starts again', () => {
    expect(rangeStart(100, 206, 'bytes 100-999/1000')).toBe(100)
    expect(rangeStart(100, 206, 'bytes 0-999/1000')).toBe('restart')
    expect(rangeStart(100, 206, null)).toBe('restart')
    expect(rangeStart(100, 200, null)).toBe(0)
    expect(rangeStart(100, 416, 'bytes */1000')).toBe('restart')
  })

  it('404 is not found, 5xx transient, 403 names the way to authorise', () => {
    expect(statusError('u', 404, 'Not Found')).toBeInstanceOf(NotFoundError)
    expect(statusError('u', 503, '')).toBeInstanceOf(TransientError)
    expect(statusError('u', 429, '')).toBeInstanceOf(TransientError)
    const forbidden = statusError('u', 403, 'Forbidden')
    expect(forbidden).not.toBeInstanceOf(TransientError)
    expect(forbidden.message).toBe(
      "u: HTTP 403 Forbidden (a private target: give --header 'Authorization: …', or a URL whose query string carries a token)",
    )
  })

  it('puts files under the base URL, carrying its query string (a prefix-wide token) to each', () => {
    expect(fileUrl('http://h/pub', 'objects/a')).toBe('http://h/pub/objects/a')
    expect(fileUrl('http://h/pub/', 'latest.json')).toBe('http://h/pub/latest.json')
    expect(fileUrl('https://acct.blob.core.windows.net/c/pub?sv=2024&sig=x%2By', 'builds/d.json')).toBe(
      'https://acct.blob.core.windows.net/c/pub/builds/d.json?sv=2024&sig=x%2By',
    )
  })

  it('reads a header line, and refuses other schemes than http(s) and paths', () => {
    expect(parseHeader('Authorization: Bearer abc')).toEqual({ Authorization: 'Bearer abc' })
    expect(() => parseHeader('Authorization Bearer abc')).toThrow(/is not 'Name: value'/)
    expect(() => openSource('s3://bucket/x')).toThrow(/only http:\/\/, https:\/\/ and directories/)
    expect(() => openSource('/no/such/dir/anywhere')).toThrow(NotFoundError)
  })
})

describe('httpSource over a real socket', () => {
  const BYTES = Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 256))
  let server: Server
  let base: string
  const seen: { range?: string; auth?: string }[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ range: req.headers.range, auth: req.headers.authorization })
      if (req.url === '/missing') return res.writeHead(404).end()
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
      const start = m ? Number(m[1]) : 0
      res.writeHead(m ? 206 : 200, {
        'Content-Length': BYTES.length - start,
        ...(m ? { 'Content-Range': `bytes ${start}-${BYTES.length - 1}/${BYTES.length}` } : {}),
      })
      // the first answer is cut after 20,000 bytes: the connection is destroyed mid-body
      if (req.url === '/drop' && seen.length === 1) {
        res.write(BYTES.subarray(start, start + 20_000))
        setTimeout(() => res.destroy(), 50)
        return
      }
      res.end(BYTES.subarray(start))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const drain = async (body: AsyncIterable<Uint8Array>) => {
    const chunks: Buffer[] = []
    for await (const c of body) chunks.push(Buffer.from(c))
    return Buffer.concat(chunks)
  }

  it('a dropped connection is transient; the next request asks for the rest, with the header', async () => {
    seen.length = 0
    const src = httpSource(base, { Authorization: 'Bearer t' })
    const first = await src.open('drop', 0)
    const got: Buffer[] = []
    await expect(
      (async () => {
        for await (const c of first.body) got.push(Buffer.from(c))
      })(),
    ).rejects.toBeInstanceOf(TransientError)
    const have = Buffer.concat(got).length
    expect(have).toBeGreaterThan(0)
    expect(have).toBeLessThan(BYTES.length)
    const rest = await src.open('drop', have)
    expect(rest.start).toBe(have)
    expect(Buffer.concat([Buffer.concat(got), await drain(rest.body)]).equals(BYTES)).toBe(true)
    expect(seen).toEqual([{ auth: 'Bearer t' }, { range: `bytes=${have}-`, auth: 'Bearer t' }])
  })

  it('a 404 is NotFoundError; a refused connection is transient', async () => {
    await expect(httpSource(base).open('missing', 0)).rejects.toBeInstanceOf(NotFoundError)
    await expect(httpSource('http://127.0.0.1:1/').text('latest.json')).rejects.toBeInstanceOf(TransientError)
  })
})
