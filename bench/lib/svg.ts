/**
 * A grouped horizontal bar chart as a hand-written SVG string (no dependencies; GitHub and
 * browsers render it inline).
 *
 * @module
 */

export interface BarGroup {
  label: string
  bars: { label: string; value: number; note?: string }[]
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const COLOURS = ['#8c8c8c', '#2b6cb0', '#d97706', '#2f855a', '#9b2c2c']

/** Horizontal bars, one colour per bar label, groups stacked vertically. */
export function barChart(o: { title: string; subtitle: string; unit: string; groups: BarGroup[] }): string {
  const width = 760
  const left = 190
  const right = 140
  const barH = 18
  const gap = 4
  const groupGap = 18
  const top = 64
  const max = Math.max(1, ...o.groups.flatMap((g) => g.bars.map((b) => b.value)))
  const scale = (width - left - right) / max
  const colourOf = new Map<string, string>()
  for (const g of o.groups)
    for (const b of g.bars) if (!colourOf.has(b.label)) colourOf.set(b.label, COLOURS[colourOf.size % COLOURS.length])
  const parts: string[] = []
  let y = top
  for (const g of o.groups) {
    parts.push(`<text x="10" y="${y + 13}" font-weight="bold">${esc(g.label)}</text>`)
    y += 20
    for (const b of g.bars) {
      const w = Math.max(1, b.value * scale)
      parts.push(
        `<text x="${left - 8}" y="${y + 13}" text-anchor="end">${esc(b.label)}</text>`,
        `<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${colourOf.get(b.label)}"/>`,
        `<text x="${(left + w + 6).toFixed(1)}" y="${y + 13}">${esc(Math.round(b.value).toLocaleString('en-US'))} ${esc(o.unit)}${b.note ? ` ${esc(b.note)}` : ''}</text>`,
      )
      y += barH + gap
    }
    y += groupGap
  }
  const height = y + 10
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="16" font-weight="bold">${esc(o.title)}</text>`,
    `<text x="10" y="42" fill="#555">${esc(o.subtitle)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n')
}
