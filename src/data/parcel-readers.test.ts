import { describe, expect, it } from 'vitest'
import { publishedVersion } from './parcel-readers.js'

describe('publishedVersion', () => {
  const v = (id: number, wstatus: string | null) => ({ id, wstatus })
  it('takes the current version (C or blank) first, then the lowest id; null for none', () => {
    expect(publishedVersion([v(5, 'P'), v(9, 'C'), v(7, null)])).toEqual(v(7, null))
    expect(publishedVersion([v(9, 'H'), v(4, 'P'), v(6, 'H')])).toEqual(v(4, 'P'))
    expect(publishedVersion([v(3, null), v(2, 'C')])).toEqual(v(2, 'C'))
    expect(publishedVersion([v(8, 'P')])).toEqual(v(8, 'P'))
    expect(publishedVersion([])).toBeNull()
  })
})
