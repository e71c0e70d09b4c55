/**
 * The compressors the compression suite times: Node's one-shot calls as src/http/compress.ts
 * makes them (each call opens a native zlib or brotli handle, compresses, and closes it), and the
 * same codings on one handle kept open and reset after each answer. Node has no public
 * synchronous call on a kept handle: the reused one drives the stream's own handle the way
 * node:zlib's one-shot path does internally (`_handle.writeSync` with the `_writeState` it
 * reports into, then `reset()`), which is enough to measure whether reuse would pay; the server
 * does not do this.
 *
 * @module
 */
import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzipSync,
  type BrotliOptions,
  type ZlibOptions,
} from 'node:zlib'

const brotliAt = (quality: number): BrotliOptions => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
})
const gzipAt = (level: number): ZlibOptions => ({ level })

export type Compressor = (body: Uint8Array) => Buffer

/** One-shot, as src/http/compress.ts compresses: a native handle opened and closed per call. */
export const gzipOneShot =
  (level: number): Compressor =>
  (body) =>
    gzipSync(body, gzipAt(level))
export const brotliOneShot =
  (quality: number): Compressor =>
  (body) =>
    brotliCompressSync(body, brotliAt(quality))

/** What the reused compressors reach into: a zlib stream's native handle and its write state. */
interface HandleOf {
  _handle: {
    writeSync(
      flush: number,
      input: Uint8Array,
      inOff: number,
      inLen: number,
      out: Uint8Array,
      outOff: number,
      outLen: number,
    ): void
    reset(): void
  }
  _writeState: Uint32Array
}

/** A compressor on one kept handle: each call compresses a whole body (finish), then resets the handle. */
function reused(stream: unknown, finish: number): Compressor {
  const { _handle: h, _writeState: state } = stream as HandleOf
  const out = Buffer.allocUnsafe(256 * 1024)
  return (body) => {
    const chunks: Buffer[] = []
    let inOff = 0
    let inLen = body.length
    for (;;) {
      h.writeSync(finish, body, inOff, inLen, out, 0, out.length)
      // [0]: output space left, [1]: input left
      const outLeft = state[0]
      chunks.push(Buffer.from(out.subarray(0, out.length - outLeft)))
      inOff += inLen - state[1]
      inLen = state[1]
      if (outLeft !== 0) break
    }
    h.reset()
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
  }
}

export const gzipReused = (level: number): Compressor => reused(createGzip(gzipAt(level)), constants.Z_FINISH)
export const brotliReused = (quality: number): Compressor =>
  reused(createBrotliCompress(brotliAt(quality)), constants.BROTLI_OPERATION_FINISH)
