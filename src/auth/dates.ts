/** Key terms are calendar days in South Africa (SAST, UTC+2, no DST). */
export const KEY_TIME_ZONE = 'Africa/Johannesburg'

// Built once: constructing an Intl.DateTimeFormat costs far more than formatting with it.
const JHB_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: KEY_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/** The 'YYYY-MM-DD' calendar date of `now` in Africa/Johannesburg. */
export function johannesburgDate(now: Date): string {
  // formatToParts rather than format(): immune to ICU changing en-CA's separators.
  let y = ''
  let m = ''
  let d = ''
  for (const p of JHB_DAY.formatToParts(now)) {
    if (p.type === 'year') y = p.value
    else if (p.type === 'month') m = p.value
    else if (p.type === 'day') d = p.value
  }
  return `${y}-${m}-${d}`
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
