/**
 * A V8 CPU profile as collapsed stacks ("folded" text, the input of every flame graph tool): one
 * line per distinct stack, `frame;frame;frame count`, outermost frame first, the count in
 * samples. Small enough to commit where the `.cpuprofile` itself (megabytes) is not. Samples
 * under start-up (profile.ts isStartupFrame) and idle samples are left out, as in the
 * component table; only the `top` heaviest stacks are kept, and the file says nothing of the rest
 * (the lines' counts sum to what was kept, see {@link FoldedStacks}).
 *
 * @module
 */
import { type CallFrame, type CpuProfile, isStartupFrame, profileTree } from './profile.js'

export interface FoldedStacks {
  /** `frame;frame;… count` lines, heaviest first (ties by stack) */
  lines: string[]
  /** samples of request work in the profile (start-up and idle left out) */
  samples: number
  /** of which in the kept lines */
  kept: number
}

/**
 * How a frame is named: its function (or `(anonymous)`) and its file, the path cut to the
 * package (`hono/dist/context.js`) or to the repository folder (`src/…`, `bench/…`); Node
 * internals keep their `node:` name. No line: a frame pointed at its source by the server
 * bundle's map keeps the bundle's line. No `;` or line break survives.
 */
export function frameName(f: CallFrame): string {
  const fn = f.functionName || '(anonymous)'
  if (!f.url) return clean(fn)
  let path = f.url.replace(/^file:\/\//, '')
  const nm = path.lastIndexOf('node_modules/')
  if (nm >= 0) path = path.slice(nm + 'node_modules/'.length)
  else {
    const m = /(?:^|\/)((?:src|bench|scripts|dist)\/.*)$/.exec(path)
    if (m) path = m[1]
  }
  return clean(`${fn} ${path}`)
}

const clean = (s: string) => s.replace(/[;\r\n]/g, ':')

/** Folds `p` (frames already pointed at their sources) into at most `top` stacks. */
export function foldCpuProfile(p: CpuProfile, top = 300): FoldedStacks {
  const { byId, parent } = profileTree(p)
  // the stack of each sampled node, memoised: null for start-up, idle and the root itself
  const stackOf = new Map<number, string | null>()
  const stack = (id: number): string | null => {
    const known = stackOf.get(id)
    if (known !== undefined) return known
    const frames: CallFrame[] = []
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      frames.push(byId.get(cur)!.callFrame)
    // innermost first; the outermost is V8's (root)
    if (frames.at(-1)?.functionName === '(root)') frames.pop()
    const skip = !frames.length || frames[0].functionName === '(idle)' || frames.some(isStartupFrame)
    const s = skip ? null : frames.reverse().map(frameName).join(';')
    stackOf.set(id, s)
    return s
  }
  const counts = new Map<string, number>()
  let samples = 0
  for (const id of p.samples) {
    const s = stack(id)
    if (s === null) continue
    samples++
    counts.set(s, (counts.get(s) ?? 0) + 1)
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, top)
  return {
    lines: sorted.map(([s, n]) => `${s} ${n}`),
    samples,
    kept: sorted.reduce((sum, [, n]) => sum + n, 0),
  }
}
