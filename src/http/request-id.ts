export const REQUEST_ID_HEADER = 'X-Request-Id'
/**
 * A client id is kept only when it is 1-128 characters of a safe alphabet, so it can go into logs and headers verbatim.
 */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/ 3.2): version, trace id,
 * parent id and flags in lower-case hex. Version `ff` is invalid, and so are all-zero ids; a
 * later version may append fields after the flags, which are dropped.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-|$)/
const ZERO_TRACE = '0'.repeat(32)
const ZERO_PARENT = '0'.repeat(16)

/**
 * The client's `traceparent` as logged (its version-00 part), or null when absent or not valid:
 * then it is ignored, as the W3C recommendation says, and the request goes on.
 */
export function acceptTraceparent(value: string | undefined): string | null {
  if (value === undefined || value.length > 512) return null
  const m = TRACEPARENT.exec(value.trim())
  if (m === null || m[1] === 'ff' || m[2] === ZERO_TRACE || m[3] === ZERO_PARENT) return null
  // version 00 is exactly these four fields
  if (m[1] === '00' && m[5] === '-') return null
  return `${m[1]}-${m[2]}-${m[3]}-${m[4]}`
}

/** Pure check, exported for tests. */
export function acceptClientRequestId(value: string | undefined): string | null {
  return value !== undefined && SAFE_ID.test(value) ? value : null
}
