import { describe, expect, it } from 'vitest'
import { nameListParam } from './params.js'

const LAYERS = ['ward', 'province', 'township'] as const
const param = nameListParam('layers', LAYERS, ['province'], { example: 'ward', description: 'layers' })

describe('nameListParam', () => {
  it('reads a comma list in any case, trimmed, duplicates dropped, order kept', () => {
    expect(param.parse(' Township, WARD ,township,,')).toEqual(['township', 'ward'])
  })

  it('gives the default when absent or blank, as a fresh array', () => {
    const a = param.parse(undefined)
    expect(a).toEqual(['province'])
    a.push('ward')
    expect(param.parse('  ')).toEqual(['province'])
  })

  it('names every unknown member and the accepted list', () => {
    const r = param.safeParse('ward,planet,moon')
    expect(r.success).toBe(false)
    expect(r.error?.issues[0].message).toBe('unknown layers: planet, moon; accepted: ward, province, township')
  })
})
