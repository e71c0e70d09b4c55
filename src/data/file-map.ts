/**
 * Memory-mapping of dataset files as ArrayBuffers, by the small native addon in native/mmap.c
 * (built by scripts/build.mjs with node-gyp, about a second). Where it is not built (no C
 * compiler on the machine), `fileMapper()` is null and the dataset's index files are read into
 * memory instead, as before: slower to start and private to each worker, the same answers.
 *
 * @module
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface FileMapper {
  /** The whole file, mapped copy-on-write (reads come from the page cache; a write stays private). */
  map(path: string): ArrayBuffer
}

export const ADDON_PATH = 'native/build/Release/mmap.node'

let mapper: FileMapper | null | undefined

/** The addon, loaded once; null where it is not built or does not load. */
export function fileMapper(): FileMapper | null {
  if (mapper !== undefined) return mapper
  mapper = null
  // the bundle (dist/) and the sources (src/data/) sit one and two levels below the project
  let dir = dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 4 && mapper === null; up++, dir = dirname(dir)) {
    const file = join(dir, ADDON_PATH)
    if (!existsSync(file)) continue
    try {
      mapper = createRequire(import.meta.url)(file) as FileMapper
    } catch {
      // built for another Node ABI or platform: read the files instead
      mapper = null
      break
    }
  }
  return mapper
}
