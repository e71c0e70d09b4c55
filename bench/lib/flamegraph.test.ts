import { describe, expect, it } from 'vitest'
import { flameGraphSvg, frameColour, parseFolded } from './flamegraph.js'

describe('parseFolded', () => {
  it('sums the counts of each frame over the stacks through it, skipping malformed lines', () => {
    const root = parseFolded(['a;b 3', 'a;c 1', 'a 1', 'd 5', 'broken', 'x;y zero', 'e -2'])
    expect(root.value).toBe(10)
    expect(root.children.get('a')?.value).toBe(5)
    expect(root.children.get('a')?.children.get('b')?.value).toBe(3)
    expect(root.children.get('d')?.value).toBe(5)
    expect([...root.children.keys()]).toEqual(['a', 'd'])
  })
})

describe('flameGraphSvg', () => {
  const svg = flameGraphSvg(['main;work 3', 'main;<gc> & co 1'], { title: 'T "1"', subtitle: 's', width: 420 })
  const rects = [...svg.matchAll(/<title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"/g)].map((m) => ({
    title: m[1],
    x: Number(m[2]),
    y: Number(m[3]),
    w: Number(m[4]),
  }))

  it('draws each frame as wide as its share, children above their parent in name order', () => {
    expect(rects.map((r) => r.title)).toEqual([
      'all (4 samples, 100.00 %)',
      'main (4 samples, 100.00 %)',
      '&lt;gc&gt; &amp; co (1 samples, 25.00 %)',
      'work (3 samples, 75.00 %)',
    ])
    expect(rects[0].w).toBe(400)
    expect(rects[1].w).toBe(400)
    expect(rects[2].w).toBe(100)
    expect(rects[3].w).toBe(300)
    expect(rects[3].x).toBe(110)
    expect(rects[2].y).toBe(rects[1].y - 16)
    expect(rects[1].y).toBe(rects[0].y - 16)
  })

  it('escapes text and is one svg element', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svg.trim().endsWith('</svg>')).toBe(true)
    expect(svg).toContain('T &quot;1&quot;')
    expect(svg).not.toContain('<gc>')
  })

  it('colours a frame by its name', () => {
    expect(frameColour('json')).toBe(frameColour('json'))
    expect(frameColour('json')).not.toBe(frameColour('lookup'))
  })
})
