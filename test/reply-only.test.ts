import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return sources(p)
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : []
  })
}

describe('answers are built only by src/http/reply.ts', () => {
  it('no server code answers or sets a header through Hono context helpers (they would drop the gathered headers)', () => {
    const offenders: string[] = []
    for (const file of sources('src')) {
      if (file.endsWith(join('http', 'reply.ts'))) continue
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\bc\.(json|header|body|html|text|newResponse|redirect)\(/.test(line))
            offenders.push(`${file}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(offenders).toEqual([])
  })
})
