import { describe, expect, it } from 'vitest'
import { parseCommandLine } from './args.js'
import { renderHelp } from './help.js'
import { type CliHandler, runCli, VERSION_TEXT } from './run.js'
import { type CommandSpec, UsageError } from './spec.js'

const TOOL: CommandSpec = {
  name: 'tool',
  summary: 'A tool with subcommands.',
  commands: [
    {
      name: 'make',
      summary: 'Make a thing.',
      options: {
        scale: { type: 'string', choices: ['tiny', 'sample', 'national'], default: 'sample', description: 'size' },
        out: { type: 'string', value: 'DIR', required: true, description: 'where' },
        rate: { type: 'string', value: 'N', description: 'how fast' },
        force: { type: 'boolean', description: 'replace' },
      },
      examples: ['tool make --out /tmp/x'],
    },
    {
      name: 'copy',
      summary: 'Copy a file.',
      positionals: [{ name: 'FILE', required: true, description: 'the file' }],
    },
  ],
}

const LEAF: CommandSpec = {
  name: 'leaf',
  summary: 'A tool without subcommands.',
  options: { source: { type: 'string', value: 'DIR', description: 'in' } },
}

/** The message a command line is refused with. */
function refusal(spec: CommandSpec, argv: string[]): string {
  try {
    parseCommandLine(spec, argv)
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError)
    return (err as Error).message
  }
  throw new Error(`accepted: ${argv.join(' ')}`)
}

async function run(spec: CommandSpec, argv: string[], handler: CliHandler = () => 0) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(spec, argv, { out: (s) => out.push(s), err: (s) => err.push(s) }, handler)
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('parseCommandLine', () => {
  it('gives the command reached, its values with defaults, and its positionals', () => {
    expect(parseCommandLine(TOOL, ['make', '--out', '/tmp/x', '--force', '--rate=-5'])).toMatchObject({
      kind: 'run',
      path: ['tool', 'make'],
      values: { out: '/tmp/x', scale: 'sample', force: true, rate: '-5' },
      positionals: [],
    })
    expect(parseCommandLine(TOOL, ['copy', 'a.db'])).toMatchObject({ path: ['tool', 'copy'], positionals: ['a.db'] })
    expect(parseCommandLine(LEAF, [])).toMatchObject({ kind: 'run', path: ['leaf'], values: {} })
  })

  it('prints the help of the level asked: the tool, or one command', () => {
    const top = renderHelp(['tool'], TOOL)
    const make = renderHelp(['tool', 'make'], TOOL.commands![0])
    for (const argv of [['--help'], ['-h'], ['help']])
      expect(parseCommandLine(TOOL, argv)).toEqual({ kind: 'help', text: top })
    for (const argv of [
      ['make', '--help'],
      ['make', '-h'],
      ['help', 'make'],
      ['make', '--scael', 'x', '--help'],
    ])
      expect(parseCommandLine(TOOL, argv)).toEqual({ kind: 'help', text: make })
    expect(top).toMatch(/^Usage: tool <command> \[options\]/)
    expect(top).toContain('  make            Make a thing.')
    expect(make).toMatch(/^Usage: tool make --out DIR \[options\]\n\nMake a thing\./)
    expect(make).toContain('--scale tiny|sample|national  size (default sample)')
    expect(make).toContain('--out DIR                     where (required)')
    expect(make).toContain('  tool make --out /tmp/x')
    expect(make).not.toContain('Copy a file')
  })

  it('answers --version and -V at every level', () => {
    for (const argv of [['--version'], ['-V'], ['make', '--version'], ['copy', '-V']])
      expect(parseCommandLine(TOOL, argv)).toEqual({ kind: 'version' })
    expect(parseCommandLine(LEAF, ['-V'])).toEqual({ kind: 'version' })
  })

  it.each([
    [['make', '--out', 'x', '--scael', 'tiny'], "unknown option '--scael'. Did you mean '--scale'?"],
    [['make', '--out', 'x', '--frobnicate'], "unknown option '--frobnicate'"],
    [['make', '--out', 'x', '-q'], "unknown option '-q'"],
    [['--verison'], "unknown option '--verison'. Did you mean '--version'?"],
    [['mkae'], "unknown command 'mkae'. Did you mean 'make'?"],
    [['zap'], "unknown command 'zap' (run 'tool --help' for the list)"],
    [[], "no command given (run 'tool --help' for the list)"],
    [['make'], "missing required flag '--out'"],
    [['make', '--out'], "flag '--out' needs a value"],
    [['make', '--out', ''], "flag '--out' needs a value"],
    [['make', '--out', '--force'], "flag '--out' needs a value"],
    [
      ['make', '--out', 'x', '--rate', '-5'],
      "flag '--rate' needs a value (write --rate=-5 for a value starting with '-')",
    ],
    [['make', '--out', 'x', '--force=yes'], "flag '--force' takes no value"],
    [['make', '--out', 'x', '--out', 'y'], "flag '--out' given more than once"],
    [['make', '--out', 'x', 'extra'], "unexpected argument 'extra'"],
    [
      ['make', '--out', 'x', '--scale', 'nationl'],
      "invalid --scale 'nationl' (expected one of tiny, sample, national). Did you mean 'national'?",
    ],
    [['copy'], 'missing FILE'],
    [['copy', 'a', 'b'], "unexpected argument 'b'"],
  ])('%j is refused: %s', (argv, message) => {
    expect(refusal(TOOL, argv)).toBe(message)
  })
})

describe('runCli', () => {
  it('help and version go to stdout with exit 0, and the handler does not run', async () => {
    let ran = false
    const handler = () => {
      ran = true
      return 0
    }
    expect(await run(TOOL, ['make', '-h'], handler)).toMatchObject({
      code: 0,
      err: '',
      out: expect.stringMatching(/^Usage: tool make/),
    })
    expect(await run(TOOL, ['--version'], handler)).toEqual({ code: 0, err: '', out: VERSION_TEXT })
    expect(VERSION_TEXT).toMatch(/^landdata-api \d+\.\d+\.\d+/)
    expect(ran).toBe(false)
  })

  it('a mistake is one line on stderr, prefixed with the command, and exit 2', async () => {
    const r = await run(TOOL, ['make', '--out', 'x', '--scael', 'tiny'])
    expect(r).toEqual({ code: 2, out: '', err: "tool make: unknown option '--scael'. Did you mean '--scale'?" })
    expect(await run(TOOL, ['mkae'])).toEqual({
      code: 2,
      out: '',
      err: "tool: unknown command 'mkae'. Did you mean 'make'?",
    })
  })

  it("the handler's exit code is returned; its UsageError exits 2, other errors 1, without a stack", async () => {
    expect((await run(LEAF, [], () => 7)).code).toBe(7)
    const bad = await run(LEAF, [], () => {
      throw new UsageError('--source must name a folder')
    })
    expect(bad).toEqual({ code: 2, out: '', err: 'leaf: --source must name a folder' })
    const failed = await run(LEAF, [], async () => {
      throw new Error('disk full')
    })
    expect(failed).toEqual({ code: 1, out: '', err: 'leaf: disk full' })
  })
})
