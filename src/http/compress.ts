import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/**
 * Compression of JSON (and GeoJSON) answers over {@link COMPRESS_MIN_BYTES} (docs/api.md "HTTP conventions"):
 * brotli or gzip as the request's `Accept-Encoding` allows, brotli when both are. Smaller answers
 * stay as they are.
 *
 * Synchronous (node:zlib's one-shot calls) so an answer stays synchronous. The threshold and the
 * levels come from the bench suite `compression` (real answers from 282 B to 133 KB, one core,
 * fastest of 31 batches; measured while the machine ran about 4x slower than when quiet, so read
 * the ratios): brotli quality 1 costs a third to a quarter of quality 4 (1 KB: 22 against 73 µs;
 * 21 KB: 73 against 320 µs; 133 KB: 308 against 1 151 µs) and less than gzip level 1 at every
 * size (1 KB: 38 µs; 21 KB: 111 µs), for answers up to 25 % larger than quality 4's, within 5 % of
 * gzip 1's below 25 KB and 12 to 18 % smaller above (21 KB radius answer: 2 406 B, quality 4
 * 1 933 B, gzip 2 288 B). Below
 * about 1 KB compressing saves under 450 B, and the answer with its headers fits one TCP segment
 * either way; from there it saves 40 to 90 % for about 20 µs on that slow machine, some 2 % of a
 * point lookup's CPU (quality 4: 7 %).
 *
 * @module
 */

/** Answers up to this many bytes are never compressed. */
export const COMPRESS_MIN_BYTES = 1024

export type Coding = 'br' | 'gzip'

/** Brotli's quality (0..11) and gzip's level (1..9). */
export const BROTLI_QUALITY = 1
export const GZIP_LEVEL = 1

const BROTLI = {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
  },
}
const GZIP = { level: GZIP_LEVEL }

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
