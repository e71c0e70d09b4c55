import { describe, expect, it } from 'vitest'
import { foldCpuProfile, frameName } from './folded.js'
import type { CpuProfile } from './profile.js'

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 })

/**
 * (root) → runServer (start-up) → listen; (root) → handle → lookup, handle → json; (root) → (idle);
 * (root) → the main module's run (start-up)
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4, 7, 8] },
    { id: 2, callFrame: frame('runServer', 'file:///w/src/server.ts', 9), children: [3] },
    { id: 3, callFrame: frame('listen', 'node:net', 1) },
    { id: 4, callFrame: frame('handle', 'file:///w/node_modules/hono/dist/hono.js', 41), children: [5, 6] },
    { id: 5, callFrame: frame('lookup', 'file:///w/src/features/plots/queries.ts', 99) },
    { id: 6, callFrame: frame('', 'file:///w/src/http/reply.ts', 4) },
    { id: 7, callFrame: frame('(idle)') },
    { id: 8, callFrame: frame('', 'node:internal/main/run_main_module', 0) },
  ],
  samples: [3, 5, 5, 5, 6, 7, 7, 4, 8, 8],
  timeDeltas: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
}

describe('frameName', () => {
  it('names the function and its file, cut to the package or the repository folder', () => {
    expect(frameName(frame('json', 'file:///a/b/node_modules/hono/dist/context.js', 10))).toBe(
      'json hono/dist/context.js',
    )
    expect(frameName(frame('at', 'file:///work/x/src/features/parcels/queries.ts', 0))).toBe(
      'at src/features/parcels/queries.ts',
    )
    expect(frameName(frame('', 'node:internal/streams', 4))).toBe('(anonymous) node:internal/streams')
    expect(frameName(frame('(garbage collector)'))).toBe('(garbage collector)')
    expect(frameName(frame('a;b\nc'))).toBe('a:b:c')
  })
})

describe('foldCpuProfile', () => {
  it('counts samples per stack, outermost first, without start-up, idle or the root', () => {
    const f = foldCpuProfile(profile)
    expect(f.lines).toEqual([
      'handle hono/dist/hono.js;lookup src/features/plots/queries.ts 3',
      'handle hono/dist/hono.js 1',
      'handle hono/dist/hono.js;(anonymous) src/http/reply.ts 1',
    ])
    expect(f.samples).toBe(5)
    expect(f.kept).toBe(5)
  })

  it('keeps only the heaviest stacks', () => {
    const f = foldCpuProfile(profile, 1)
    expect(f.lines).toEqual(['handle hono/dist/hono.js;lookup src/features/plots/queries.ts 3'])
    expect(f.samples).toBe(5)
    expect(f.kept).toBe(3)
  })
})
