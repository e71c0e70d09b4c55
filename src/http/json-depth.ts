/**
 * The nesting limit of JSON request bodies (docs/api.md "Errors"): a body whose arrays and
 * objects nest deeper answers 400 before it is parsed, so no recursive step after it (the
 * schema check, a geometry reader) can run out of stack on a crafted body.
 */

/** How deep arrays and objects may nest in a request body; a GeoJSON MultiPolygon needs 5. */
export const MAX_JSON_DEPTH = 64

/**
 * Whether `text` nests arrays and objects deeper than `limit`, counting brackets outside
 * strings only. One pass over the characters; a string is skipped with `indexOf` to its closing
 * quote (one not escaped by an odd run of backslashes). Malformed text is left to JSON.parse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i)
    if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > limit) return true
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) {
      depth--
    } else if (ch === 34 /* " */) {
      for (;;) {
        const q = text.indexOf('"', i + 1)
        if (q < 0) return false
        let b = q - 1
        while (text.charCodeAt(b) === 92 /* \ */) b--
        i = q
        if ((q - 1 - b) % 2 === 0) break
      }
    }
  }
  return false
}
