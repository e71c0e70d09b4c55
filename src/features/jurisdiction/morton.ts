/** The spatial order the batch visits its points in: Morton (Z-order) codes of 1/64° cells. */

/** Spreads the low 16 bits of v to the even bits. */
function spread16(v: number): number {
  v &= 0xffff
  v = (v | (v << 8)) & 0x00ff00ff
  v = (v | (v << 4)) & 0x0f0f0f0f
  v = (v | (v << 2)) & 0x33333333
  v = (v | (v << 1)) & 0x55555555
  return v
}

/** Morton (Z-order) code of the 1/64° cell of a point: nearby points get nearby codes. */
export function morton(lon: number, lat: number): number {
  const x = Math.min(0x7fff, Math.max(0, Math.floor((lon + 180) * 64)))
  const y = Math.min(0x7fff, Math.max(0, Math.floor((lat + 90) * 64)))
  // 30 bits: non-negative as an int32, so >>> 0 is not needed
  return spread16(x) | (spread16(y) << 1)
}
