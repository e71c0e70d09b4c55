/**
 * The province folders of an export's per-province trees (`south_africa/cadastre/<PROV>/`,
 * `south_africa/encumbrances/<PROV>/`), resolved to province codes; shared by the parcel and
 * encumbrance builds and the PostGIS bench's loader.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { provinceCode, type ProvinceCode } from '../../src/data/provinces.js'

/**
 * Province folders of the export, resolved to codes, in code order (ids follow source order; the PostGIS bench loads in
 * the same order).
 */
export function provinceDirs(cadastre: string): { code: ProvinceCode; dir: string }[] {
  let names: string[]
  try {
    names = readdirSync(cadastre)
  } catch {
    return []
  }
  const out: { code: ProvinceCode; dir: string }[] = []
  for (const name of names.sort()) {
    const dir = join(cadastre, name)
    if (!statSync(dir).isDirectory()) continue
    const code = provinceCode(name)
    if (code) out.push({ code, dir })
  }
  return out.sort((a, b) => a.code.localeCompare(b.code))
}
