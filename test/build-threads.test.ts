import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

describe('build passes on worker threads', () => {
  it('the bundled build gives the same parcel relations and overlaps on two workers as in the thread', () => {
    const work = mkdtempSync(join(inject('workDir'), 'threads-'))
    const build = (threads: number) => {
      const out = join(work, `t${threads}`)
      const r = spawnSync(process.execPath, ['dist/build-index.js', '--source', inject('sourceDir'), '--out', out], {
        env: { ...process.env, LANDDATA_BUILD_THREADS: String(threads) },
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
      return { out, log: r.stdout + r.stderr }
    }
    const one = build(1)
    const two = build(2)
    expect(one.log).not.toContain('worker threads')
    expect(two.log).toContain('overlaps on 2 worker threads')
    expect(two.log).toContain('relations on 2 worker threads')
    // touching pairs, beacon ring positions and General Plan links, byte for byte
    expect(sha(join(two.out, 'parcels/parcels.sqlite'))).toBe(sha(join(one.out, 'parcels/parcels.sqlite')))
    expect(sha(join(two.out, 'encumbrances/encumbrances.sqlite'))).toBe(sha(join(one.out, 'encumbrances/encumbrances.sqlite')))
    expect(sha(join(two.out, 'manifest.json'))).toBe(sha(join(one.out, 'manifest.json')))
  }, 120_000)
})
