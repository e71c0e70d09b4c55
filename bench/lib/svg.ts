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

/** The SVG document: white background, the title and subtitle, then `parts`. */
function page(width: number, height: number, title: string, subtitle: string, parts: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      `font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="16" font-weight="bold">${esc(title)}</text>`,
    `<text x="10" y="42" fill="#555">${esc(subtitle)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n')
}

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
  return page(width, height, o.title, o.subtitle, parts)
}

export interface LinePanel {
  title: string
  unit: string
  series: { label: string; values: (number | null)[] }[]
}

/**
 * Panels of lines over the same x labels (e.g. one point per minute), stacked vertically, each
 * with its own y scale from 0 and a legend; a null value leaves a gap.
 */
export function lineChart(o: { title: string; subtitle: string; xLabels: string[]; panels: LinePanel[] }): string {
  const width = 760
  const left = 70
  const right = 170
  const panelH = 180
  const gap = 56
  const top = 64
  const plotW = width - left - right
  const n = Math.max(1, o.xLabels.length)
  const x = (i: number) => left + (n === 1 ? plotW / 2 : (plotW * i) / (n - 1))
  const parts: string[] = []
  o.panels.forEach((panel, p) => {
    const y0 = top + p * (panelH + gap)
    const max = Math.max(1e-9, ...panel.series.flatMap((s) => s.values.filter((v): v is number => v !== null)))
    const y = (v: number) => y0 + panelH - (v / max) * panelH
    parts.push(
      `<text x="10" y="${y0 - 10}" font-weight="bold">${esc(panel.title)}</text>`,
      `<line x1="${left}" y1="${y0 + panelH}" x2="${left + plotW}" y2="${y0 + panelH}" stroke="#999"/>`,
      `<line x1="${left}" y1="${y0}" x2="${left}" y2="${y0 + panelH}" stroke="#999"/>`,
    )
    for (const f of [0, 0.5, 1]) {
      const v = max * f
      parts.push(
        `<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#555">${esc(fmtTick(v))} ${esc(panel.unit)}</text>`,
      )
    }
    o.xLabels.forEach((label, i) => {
      if (n > 12 && i % Math.ceil(n / 12)) return
      parts.push(
        `<text x="${x(i).toFixed(1)}" y="${y0 + panelH + 16}" text-anchor="middle" fill="#555">${esc(label)}</text>`,
      )
    })
    panel.series.forEach((s, k) => {
      const colour = COLOURS[(k + 1) % COLOURS.length]
      let d = ''
      s.values.forEach((v, i) => {
        if (v === null) return
        d += `${d && s.values[i - 1] !== null ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`
        parts.push(`<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5" fill="${colour}"/>`)
      })
      if (d) parts.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>`)
      const ly = y0 + 14 + k * 18
      parts.push(
        `<rect x="${left + plotW + 14}" y="${ly - 9}" width="12" height="4" fill="${colour}"/>`,
        `<text x="${left + plotW + 32}" y="${ly - 3}">${esc(s.label)}</text>`,
      )
    })
  })
  const height = top + o.panels.length * (panelH + gap)
  return page(width, height, o.title, o.subtitle, parts)
}

const fmtTick = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v >= 1 ? v.toFixed(1) : v.toFixed(2))
