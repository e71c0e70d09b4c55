import { describe, expect, it } from 'vitest'
import { createPullProgress, formatBytes, formatEta, progressLine } from './progress.js'

describe('pull progress', () => {
  it('formats bytes, rates and the time left', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(1536)).toBe('1.50 KiB')
    expect(formatBytes(80 * 2 ** 20)).toBe('80.0 MiB')
    expect(formatBytes(4.7 * 2 ** 30)).toBe('4.70 GiB')
    expect(formatEta(100, 10)).toBe('10 s')
    expect(formatEta(1850, 10)).toBe('3 min 5 s')
    expect(formatEta(100, 0)).toBe('?')
    expect(progressLine(2 ** 20, 4 * 2 ** 20, 2000, 2, 5)).toBe(
      'pull: 1.00 MiB of 4.00 MiB, 512.0 KiB/s, ETA 6 s (file 2 of 5)',
    )
  })

  it('without a terminal: one line per file, retries said', () => {
    const out: string[] = []
    const p = createPullProgress({ write: (s) => out.push(s), isTTY: false })
    p.file('plots/a.sqlite', 'linked', 2048)
    p.begin(1, 100)
    p.bytes(100)
    p.retry('parcels/b.sqlite', new Error('HTTP 503'), 500)
    p.file('parcels/b.sqlite', 'fetched', 100)
    p.end()
    expect(out.join('')).toBe(
      'linked plots/a.sqlite (2.00 KiB)\npull: 1 files to fetch, 100 B\nretrying parcels/b.sqlite in 0.5 s: HTTP 503\n' +
        'fetched parcels/b.sqlite (100 B)\n',
    )
  })

  it('on a terminal: one line redrawn at most every 200 ms, ended by a newline', () => {
    const out: string[] = []
    let t = 0
    const p = createPullProgress({ write: (s) => out.push(s), isTTY: true }, () => t)
    p.begin(2, 1000)
    t = 100
    p.bytes(100) // within 200 ms of the first draw: not drawn
    t = 1000
    p.bytes(400)
    p.file('x', 'fetched', 500)
    p.end()
    expect(out.every((s) => s.startsWith('\r\x1b[K') || s === '\n')).toBe(true)
    expect(out).toContain('\r\x1b[Kpull: 500 B of 1000 B, 500 B/s, ETA 1 s (file 1 of 2)')
    expect(out.filter((s) => s !== '\n')).toHaveLength(3)
    expect(out.at(-1)).toBe('\n')
  })
})
