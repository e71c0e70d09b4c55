import { describe, expect, it } from 'vitest'
import { isValidIsoDate, johannesburgDate } from './dates.js'

describe('johannesburgDate', () => {
  it('is the SAST (UTC+2) calendar day', () => {
    expect(johannesburgDate(new Date('2026-03-31T21:59:59.999Z'))).toBe('2026-03-31')
    expect(johannesburgDate(new Date('2026-03-31T22:00:00Z'))).toBe('2026-04-01')
    expect(johannesburgDate(new Date('2026-01-01T00:00:00Z'))).toBe('2026-01-01')
    expect(johannesburgDate(new Date('2025-12-31T22:30:00Z'))).toBe('2026-01-01')
  })

  it('does not depend on the process time zone (no DST in June or December)', () => {
    expect(johannesburgDate(new Date('2026-06-30T21:59:00Z'))).toBe('2026-06-30')
    expect(johannesburgDate(new Date('2026-12-31T22:00:00Z'))).toBe('2027-01-01')
  })

  it('answers each instant by its own day, whatever was asked before (the per-day cache)', () => {
    const fmt = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Africa/Johannesburg',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    })
    // instants hopping back and forth across midnights, seconds either side of 22:00 UTC
    let t = Date.UTC(2026, 10, 22, 21, 59, 58)
    for (let i = 0; i < 2000; i++) {
      t += (i % 2 ? -1 : 1) * 86_400_000 * (i % 5) + (i % 3 ? 1000 : -1000)
      const now = new Date(t)
      expect(johannesburgDate(now)).toBe(fmt.format(now))
    }
    expect(johannesburgDate(new Date('1943-06-01T21:30:00Z'))).toBe(fmt.format(new Date('1943-06-01T21:30:00Z')))
  })
})

describe('isValidIsoDate', () => {
  it.each(['2026-03-31', '2024-02-29', '2000-02-29', '2026-12-31', '2026-01-01'])('accepts %s', (s) => {
    expect(isValidIsoDate(s)).toBe(true)
  })
  it.each([
    '2026-02-30',
    '2026-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-05',
    '26-01-05',
    '2026-01-05T00:00:00Z',
    ' 2026-01-05',
    '',
    'none',
  ])('rejects %j', (s) => {
    expect(isValidIsoDate(s)).toBe(false)
  })
  it('rejects non-strings', () => {
    expect(isValidIsoDate(null)).toBe(false)
    expect(isValidIsoDate(20260105)).toBe(false)
  })
})
