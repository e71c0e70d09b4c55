/** Key terms are calendar days in South Africa (SAST, UTC+2, no DST). */
export const KEY_TIME_ZONE = 'Africa/Johannesburg'

// Built once: constructing an Intl.DateTimeFormat costs far more than formatting with it.
const JHB_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: KEY_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/** SAST: UTC+2 all year; Africa/Johannesburg has kept this offset without DST since 1944. */
const SAST_OFFSET_MS = 2 * 3600 * 1000
const DAY_MS = 86_400_000
/** The SAST day number (days since 1970-01-01 SAST) of the last answer, and the answer. */
let cachedDay = NaN
let cachedDate = ''

/**
 * The 'YYYY-MM-DD' calendar date of `now` in Africa/Johannesburg. Called on every request (key
 * terms, the jurisdiction services' `as_at` default), so the answer is kept per SAST day: a
 * date formatted by Intl costs ~15 µs, the cached one a division.
 */
export function johannesburgDate(now: Date | number): string {
  const t = typeof now === 'number' ? now : now.getTime()
  const day = Math.floor((t + SAST_OFFSET_MS) / DAY_MS)
  if (day === cachedDay) return cachedDate
  // formatToParts rather than format(): immune to ICU changing en-CA's separators. Only dates
  // after 1944 take the cache: before, SAST had DST and the day number could be off.
  let y = ''
  let m = ''
  let d = ''
  for (const p of JHB_DAY.formatToParts(t)) {
    if (p.type === 'year') y = p.value
    else if (p.type === 'month') m = p.value
    else if (p.type === 'day') d = p.value
  }
  const date = `${y}-${m}-${d}`
  if (t > Date.UTC(1945, 0, 1)) {
    cachedDay = day
    cachedDate = date
  }
  return date
}

/** True only for a real calendar date written 'YYYY-MM-DD' ('2026-02-30' and '2026-2-3' are false). */
export function isValidIsoDate(s: unknown): s is string {
  if (typeof s !== 'string') return false
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (mo < 1 || mo > 12 || d < 1) return false
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
  return d <= daysInMonth
}

/** `YYYY-MM-DD` plus `n` days. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T12:00:00Z`)
  d.setUTCDate(d.getUTCDate() + n)
  return d.toISOString().slice(0, 10)
}
