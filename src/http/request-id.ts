export const REQUEST_ID_HEADER = 'X-Request-Id'
/**
 * A client id is kept only when it is 1-128 characters of a safe alphabet, so it can go into logs and headers verbatim.
 */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Pure check, exported for tests. */
export function acceptClientRequestId(value: string | undefined): string | null {
  return value !== undefined && SAFE_ID.test(value) ? value : null
}
