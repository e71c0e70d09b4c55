import { checkLpiHashHeader } from './lpi-hash.js'
import type { FileKind } from './manifest.js'

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')
/** KDBush v4 and Flatbush v4 headers: magic byte, then (version << 4 | array type). */
export const KDBUSH_MAGIC = 0xdb
export const KDBUSH_VERSION = 1
export const FLATBUSH_MAGIC = 0xfb
export const FLATBUSH_VERSION = 3

/** Returns null when the first bytes fit the kind, else the reason they don't. */
export function checkFileHeader(kind: FileKind, head: Buffer): string | null {
  switch (kind) {
    case 'sqlite':
      return head.subarray(0, 16).equals(SQLITE_MAGIC) ? null : 'not an SQLite database'
    case 'kdbush':
      if (head[0] !== KDBUSH_MAGIC) return 'not a KDBush index'
      return head[1] >> 4 === KDBUSH_VERSION ? null : `KDBush format v${head[1] >> 4}, expected v${KDBUSH_VERSION}`
    case 'flatbush':
      if (head[0] !== FLATBUSH_MAGIC) return 'not a Flatbush index'
      return head[1] >> 4 === FLATBUSH_VERSION
        ? null
        : `Flatbush format v${head[1] >> 4}, expected v${FLATBUSH_VERSION}`
    case 'u32':
    case 'u8':
    case 'strings':
      return null
    case 'lpi-hash':
      return checkLpiHashHeader(head)
  }
}
