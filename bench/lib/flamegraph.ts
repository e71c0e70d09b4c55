/**
 * A flame graph as a hand-written SVG string, from collapsed stacks (folded.ts): the outermost
 * frame at the bottom, each frame as wide as its share of the samples, siblings in name order,
 * a tooltip (`<title>`) on every frame with its samples and share. No dependency and no script:
 * it renders offline, on GitHub and in a browser alike. (The npm flame graph tools either profile
 * a process themselves or draw in a browser with d3; neither renders a committed file offline.)
 *
 * @module
 */

interface Frame {
  name: string
  value: number
  children: Map<string, Frame>
}

/** The tree of `frame;frame;… count` lines; lines that are not of that form are skipped. */
export function parseFolded(lines: string[]): Frame {
  const root: Frame = { name: 'all', value: 0, children: new Map() }
  for (const line of lines) {
    const space = line.lastIndexOf(' ')
    const n = Number(line.slice(space + 1))
    if (space <= 0 || !Number.isFinite(n) || n <= 0) continue
    root.value += n
    let node = root
    for (const name of line.slice(0, space).split(';')) {
      let child = node.children.get(name)
      if (!child) node.children.set(name, (child = { name, value: 0, children: new Map() }))
      child.value += n
      node = child
    }
  }
  return root
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** A warm colour picked by the frame's name, so the same function has the same colour in every graph. */
export function frameColour(name: string): string {
  let h = 2166136261
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619)
  const u = (h >>> 0) / 2 ** 32
  return `rgb(${205 + Math.round(50 * u)},${Math.round(80 + 150 * ((u * 7) % 1))},${Math.round(40 + 30 * ((u * 13) % 1))})`
}

const FRAME_H = 16
const TOP = 48
const PAD = 10
const CHAR_W = 6.4
const MIN_W = 0.3

export interface FlameOptions {
  title: string
  subtitle: string
  width?: number
}

/** The SVG of the flame graph of `lines` (folded stacks). */
export function flameGraphSvg(lines: string[], o: FlameOptions): string {
  const root = parseFolded(lines)
  const width = o.width ?? 1200
  const scale = root.value ? (width - 2 * PAD) / root.value : 0
  const depthOf = (f: Frame): number => 1 + Math.max(0, ...[...f.children.values()].map(depthOf))
  const depth = depthOf(root)
  const height = TOP + depth * FRAME_H + PAD
  const parts: string[] = []
  const draw = (f: Frame, x: number, level: number) => {
    const w = f.value * scale
    if (w < MIN_W) return
    const y = height - PAD - (level + 1) * FRAME_H
    const share = root.value ? (100 * f.value) / root.value : 0
    const chars = Math.floor((w - 6) / CHAR_W)
    const label = chars < 3 ? '' : f.name.length <= chars ? f.name : `${f.name.slice(0, chars - 2)}..`
    parts.push(
      `<g><title>${esc(f.name)} (${f.value} samples, ${share.toFixed(2)} %)</title>` +
        `<rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${FRAME_H - 1}" fill="${level === 0 ? '#b0b0b0' : frameColour(f.name)}" rx="2"/>` +
        (label ? `<text x="${(x + 3).toFixed(2)}" y="${y + FRAME_H - 4}">${esc(label)}</text>` : '') +
        '</g>',
    )
    let cx = x
    for (const c of [...f.children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      draw(c, cx, level + 1)
      cx += c.value * scale
    }
  }
  draw(root, PAD, 0)
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fdfaf3"/>`,
    `<text x="${PAD}" y="20" font-size="15" font-family="sans-serif">${esc(o.title)}</text>`,
    `<text x="${PAD}" y="38" font-size="11" font-family="sans-serif" fill="#555">${esc(o.subtitle)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n')
}
