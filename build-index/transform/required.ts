/**
 * Required fields said all at once: a row, or a CSV header, that lacks several of them names
 * every one in one message, so an export that lost or renamed columns is fixed in one pass rather
 * than one column per rebuild (issue #39 item 7).
 *
 * @module
 */

/** The names as prose: `a`, `a and b`, `a, b and c`. */
export function listOf(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

/**
 * The reason a row is rejected for its blank required fields (each `[name, value]`, the value
 * already trimmed, blank as null or ''), naming every blank one; called when one at least is.
 */
export function blankReason(fields: readonly (readonly [string, string | null])[]): string {
  const blank = fields.filter(([, v]) => v === null || v === '').map(([name]) => name)
  return blank.length === 1 ? `${blank[0]} is blank` : `${listOf(blank)} are blank`
}
