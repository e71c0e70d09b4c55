/**
 * Calls to the API with the key: every request carries `X-API-KEY`, and each answer is kept with
 * the request that made it, so the panel can show "the JSON this came from" for any section.
 * A 401 tells the page the key was refused (`onKeyRejected`), so it asks again; a 429 is waited
 * out and sent again (throttle.js).
 */
import { getKey } from './state.js'
import { throttledFetch } from './throttle.js'

export const API_BASE = '/api/v1'

let keyRejected = () => {}

/** Called when the API answers 401 (a mistyped, revoked or expired key). */
export function onKeyRejected(handler) {
  keyRejected = handler
}

/** A tile request answered 401: the same as an API call's. */
export function keyRefused(answer) {
  keyRejected(answer)
}

/** The headers of a request to `url` (MapLibre's transformRequest uses it too): the key for /api/ only. */
export function headersFor(url) {
  const key = getKey()
  const path = new URL(url, location.origin)
  if (!key || path.origin !== location.origin || !path.pathname.startsWith(`${API_BASE}/`)) return undefined
  return { 'X-API-KEY': key }
}

/**
 * One API request: `{ method, url, body, status, json }`, never throwing for an answer (the
 * error envelope is the json of a 4xx); a network failure answers status 0 with a message.
 */
export async function call(method, path, body) {
  const url = path.startsWith(API_BASE) ? path : `${API_BASE}${path}`
  const headers = { ...headersFor(url), Accept: 'application/json' }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const answer = { method, url, body, status: 0, json: null }
  try {
    const res = await throttledFetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    answer.status = res.status
    answer.json = res.headers.get('content-type')?.includes('json') ? await res.json() : null
  } catch (err) {
    answer.json = { error: 'NetworkError', message: String(err) }
  }
  if (answer.status === 401) keyRejected(answer)
  return answer
}

export const get = (path) => call('GET', path)
export const post = (path, body) => call('POST', path, body)

/** The query string of `params`, keys in order, undefined values left out. */
export function query(params) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v))
  return q.toString()
}
