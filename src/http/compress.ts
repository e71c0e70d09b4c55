import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/**
 * Compression of JSON (and GeoJSON) answers over {@link COMPRESS_MIN_BYTES} (docs/api.md "HTTP conventions"):
 * brotli or gzip as the request's `Accept-Encoding` allows, brotli when both are. Smaller answers
 * stay as they are: compressing costs 20–40 µs even for a few hundred bytes, more than a small
 * answer's whole request, and saves a packet at most.
 *
 * Synchronous (node:zlib's one-shot calls) so an answer stays synchronous; the levels are the
 * fast ones (brotli quality 4, gzip level 1): measured on plot answers of 12 KB, brotli 64 µs
 * (to 6 %), gzip 30 µs (to 9 %); of 105 KB, 316 µs and 120 µs. Brotli's default quality 11
 * would cost milliseconds.
 *
 * @module
 */

/** Answers up to this many bytes are never compressed. */
export const COMPRESS_MIN_BYTES = 1024

export type Coding = 'br' | 'gzip'

const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
}
const GZIP = { level: 1 }

/**
 * The coding to answer with for this `Accept-Encoding`, or null (identity): `br` or `gzip` when
 * listed (or covered by `*`) with a q above 0, the higher q first, brotli on a tie.
 */
export function negotiate(acceptEncoding: string | undefined): Coding | null {
  if (acceptEncoding === undefined || acceptEncoding === '') return null
  const { br, gzip } = qualities(acceptEncoding)
  if (br <= 0 && gzip <= 0) return null
  return br >= gzip ? 'br' : 'gzip'
}

/**
 * Whether this `Accept-Encoding` takes gzip (listed, or covered by `*`, with a q above 0): a body
 * stored gzip-compressed is then sent as it is, whatever else the client prefers.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined || acceptEncoding === '') return false
  return qualities(acceptEncoding).gzip > 0
}

/** The q of br and gzip in an `Accept-Encoding` (`*` standing in for one not listed); -1: not accepted. */
function qualities(acceptEncoding: string): { br: number; gzip: number } {
  let br = -1
  let gzip = -1
  let star = -1
  for (const part of acceptEncoding.split(',')) {
    const semi = part.indexOf(';')
    const name = (semi < 0 ? part : part.slice(0, semi)).trim().toLowerCase()
    let q = 1
    if (semi >= 0) {
      const m = /q\s*=\s*([0-9.]+)/i.exec(part.slice(semi + 1))
      if (m) q = Number(m[1])
    }
    if (name === 'br') br = q
    else if (name === 'gzip' || name === 'x-gzip') gzip = q
    else if (name === '*') star = q
  }
  if (br < 0) br = star
  if (gzip < 0) gzip = star
  return { br, gzip }
}

/** `body` in `coding`. */
export function compress(body: string | Uint8Array, coding: Coding): Buffer {
  return coding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body, GZIP)
}
