// companion files of a layer (.dbf, .cpg next to a .shp) and layer lookup, matching names
// case-insensitively because published shapefiles are often upper-case (ERF.SHP, ERF.DBF).
import { readdirSync, statSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'

/** True when `path` exists and is a regular file. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** Lists a directory's entries by lower-cased name; empty when the directory cannot be read. */
export function entriesByLowerName(dir: string): Map<string, string> {
  const entries = new Map<string, string>()
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return entries
  }
  for (const name of names) {
    const lower = name.toLowerCase()
    if (!entries.has(lower)) entries.set(lower, name)
  }
  return entries
}

/**
 * Finds `<dir>/<name>`, trying the exact name first, then any file whose name differs only in
 * case. `listing` is a lazily built directory listing shared between calls.
 */
export function findFileIgnoringCase(
  dir: string,
  name: string,
  listing?: { entries?: Map<string, string> },
): string | null {
  const exact = join(dir, name)
  if (isFile(exact)) return exact
  const cache = listing ?? {}
  cache.entries ??= entriesByLowerName(dir)
  const found = cache.entries.get(name.toLowerCase())
  return found !== undefined && isFile(join(dir, found)) ? join(dir, found) : null
}

/** Finds the file with the same base name as `file` and extension `ext` (no dot), or null. */
export function findSibling(file: string, ext: string): string | null {
  return findFileIgnoringCase(dirname(file), `${basename(file, extname(file))}.${ext}`)
}
