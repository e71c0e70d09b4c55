import { describe, expect, it } from 'vitest'
import { createProgress, formatDuration, LOG_EVERY_MS } from './progress.js'

/** A stream that keeps what is written, and a clock the test moves. */
function setup(isTTY: boolean) {
  const written: string[] = []
  let t = 1_000_000
  return {
    stream: { isTTY, write: (s: string) => written.push(s) > 0 },
    now: () => t,
    advance: (ms: number) => {
      t += ms
    },
    lines: () => written.join('').split('\n').filter(Boolean),
    raw: () => written.join(''),
  }
}

describe('createProgress without a terminal', () => {
  it('a short step prints only its summary line', () => {
    const s = setup(false)
    const p = createProgress('plots/botswana', 20_000, s)
    for (let i = 0; i < 20_000; i++) {
      p.tick()
      if (i % 100 === 0) s.advance(1) // 200 ms in all
    }
    p.done('20000 rows, 0 rejected')
    expect(s.lines()).toEqual(['plots/botswana: 20000 rows, 0 rejected in 0.2 s'])
    expect(s.raw()).not.toContain('\r')
  })

  it('a long step adds one line at most every 15 s, with rows done, rate and ETA', () => {
    const s = setup(false)
    const p = createProgress('parcels/relations', 100_000, s)
    // 60 s at 1,000 rows a second, ticked every 10 ms
    for (let i = 0; i < 6_000; i++) {
      s.advance(10)
      p.tick(10)
    }
    p.done('60000 touching pairs')
    const lines = s.lines()
    expect(lines).toHaveLength(5) // at 15, 30, 45 and 60 s, then the summary
    expect(lines[0]).toBe('parcels/relations: 15% (15,000 of 100,000 rows), 1,000 rows/s, 15 s so far, ETA 1 min 25 s')
    expect(lines[3]).toMatch(
      /^parcels\/relations: 60% \(60,000 of 100,000 rows\), 1,000 rows\/s, 1 min 0 s so far, ETA 40 s$/,
    )
    expect(lines[4]).toBe('parcels/relations: 60000 touching pairs in 60.0 s')
  })

  it('without a total, the periodic line has the rows and rate but no ETA', () => {
    const s = setup(false)
    const p = createProgress('boundaries/2011/ward', null, s)
    for (let i = 0; i < 20; i++) {
      s.advance(1_000)
      p.tick(50)
    }
    expect(s.lines()).toEqual(['boundaries/2011/ward: 750 rows, 50 rows/s, 15 s so far'])
  })

  it('a part (one file of a layer) is silent unless it runs long or has something to report', () => {
    const s = setup(false)
    const quick = createProgress('parcels/EC/erf', 1_000, { ...s, part: true })
    quick.tick(1_000)
    s.advance(2_000)
    quick.done('1000 parcels, 0 rejected')
    expect(s.lines()).toEqual([])
    const rejected = createProgress('parcels/FS/erf', 10, { ...s, part: true })
    rejected.tick(10)
    rejected.done('9 parcels, 1 rejected', true)
    const slow = createProgress('parcels/GP/erf', 40_000, { ...s, part: true })
    s.advance(LOG_EVERY_MS)
    slow.tick(20_000)
    s.advance(LOG_EVERY_MS)
    slow.tick(20_000)
    slow.done('40000 parcels, 0 rejected')
    expect(s.lines()).toEqual([
      'parcels/FS/erf: 9 parcels, 1 rejected in 0.0 s',
      'parcels/GP/erf: 50% (20,000 of 40,000 rows), 1,333 rows/s, 15 s so far, ETA 15 s',
      'parcels/GP/erf: 100% (40,000 of 40,000 rows), 1,333 rows/s, 30 s so far',
      'parcels/GP/erf: 40000 parcels, 0 rejected in 30.0 s',
    ])
  })
})

describe('createProgress on a terminal', () => {
  it('redraws a bar in place, then ends with the summary line, parts included', () => {
    const s = setup(true)
    const p = createProgress('parcels/EC/erf', 1_000, { ...s, part: true })
    for (let i = 0; i < 10; i++) {
      s.advance(150)
      p.tick(100)
    }
    p.done('1000 parcels')
    const raw = s.raw()
    expect(raw.match(/\r/g)!.length).toBe(11) // ten redraws and the summary
    expect(raw).toContain('100% 1,000 rows')
    expect(raw.trimEnd().endsWith('parcels/EC/erf: 1000 parcels in 1.5 s')).toBe(true)
  })
})

describe('formatDuration', () => {
  it.each([
    [400, '0 s'],
    [59_400, '59 s'],
    [75_000, '1 min 15 s'],
    [3_600_000, '60 min 0 s'],
  ])('%i ms is %s', (ms, text) => expect(formatDuration(ms)).toBe(text))
})
