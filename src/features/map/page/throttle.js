/**
 * Waiting out a 429: every request the page makes to the API (its own calls, and the tiles
 * through the tile protocol) goes through `throttledFetch`. An answer 429 closes the gate of its
 * kind (tiles and TileJSON, or the other API calls: the server counts them under allowances of
 * their own) for the seconds its `Retry-After` names; the request is then sent again, and every
 * other request of that kind waits at the gate instead of spending more of the allowance. While a
 * gate is closed, `onSlowDown` hears the seconds left, once a second, so the page can say
 * "Slowing down: retrying in N s"; it hears 0 when every gate is open again.
 */

/** Retries of one request before its 429 is answered to the caller. */
const MAX_RETRIES = 5
/** The wait when a 429 names none, and the longest one honoured (a minute's window and a bit). */
const DEFAULT_WAIT_S = 5
const MAX_WAIT_S = 120

/** Until when (epoch ms) the requests of each kind wait. */
const gates = { tiles: 0, api: 0 }
let listener = () => {}
let ticker = null

/** Called with the seconds left while requests wait out a 429, and with 0 when none waits. */
export function onSlowDown(handler) {
  listener = handler
}

/** `tiles` for the tile sets' tiles and TileJSON, `api` for anything else. */
export function kindOf(url) {
  return /\/tiles(?:\.json|\/)/.test(new URL(url, location.origin).pathname) ? 'tiles' : 'api'
}

/** The seconds a `Retry-After` value asks for (seconds or an HTTP date), within 1..MAX_WAIT_S. */
export function retryAfterSeconds(value, now = Date.now()) {
  const text = (value ?? '').trim()
  let s = /^\d+$/.test(text) ? Number(text) : text ? Math.ceil((Date.parse(text) - now) / 1000) : Number.NaN
  if (!Number.isFinite(s)) s = DEFAULT_WAIT_S
  return Math.min(MAX_WAIT_S, Math.max(1, s))
}

function secondsLeft() {
  return Math.max(0, Math.ceil((Math.max(gates.tiles, gates.api) - Date.now()) / 1000))
}

function tick() {
  const left = secondsLeft()
  listener(left)
  if (left === 0) {
    clearInterval(ticker)
    ticker = null
  }
}

function closeGate(kind, seconds) {
  gates[kind] = Math.max(gates[kind], Date.now() + seconds * 1000)
  ticker ??= setInterval(tick, 1000)
  tick()
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const done = () => {
      signal?.removeEventListener('abort', stop)
      resolve()
    }
    const timer = setTimeout(done, ms)
    const stop = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal?.addEventListener('abort', stop, { once: true })
  })
}

/**
 * `fetch(url, init)`, waiting at its kind's gate first and sending again after a 429 (up to
 * MAX_RETRIES times, each after the answer's `Retry-After`); answers the last response.
 */
export async function throttledFetch(url, init = {}) {
  const kind = kindOf(url)
  for (let attempt = 0; ; attempt++) {
    const wait = gates[kind] - Date.now()
    if (wait > 0) await sleep(wait, init.signal)
    const res = await fetch(url, init)
    if (res.status !== 429 || attempt >= MAX_RETRIES) return res
    res.body?.cancel()
    closeGate(kind, retryAfterSeconds(res.headers.get('Retry-After')))
  }
}
