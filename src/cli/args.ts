/**
 * The one command-line parser of every tool in the project (`keys`, `build-index`, `synth`,
 * `verify`, `bench`, `lb`, `fuzz`, `start`, `serve`, `reload`), over Node's `util.parseArgs`.
 *
 * Why `util.parseArgs` and not a library (commander, yargs): it ships with Node, so the tools
 * add no dependency and the production image none either, and its strict mode already refuses
 * unknown options, missing values and stray arguments. What it lacks is said here: its errors
 * are Node's sentences without the command or a suggestion. So the arguments are read twice:
 * first as parseArgs' tokens (`tokens: true`, not strict), checked one by one to name the
 * exact mistake ("unknown option '--scael'. Did you mean '--scale'?"); then, once they pass,
 * parsed again in strict mode, which gives the values with their defaults and stays the
 * authority (anything the first pass missed is still refused there).
 *
 * @module
 */
import { parseArgs } from 'node:util'
import { renderHelp } from './help.js'
import { BUILTIN_OPTIONS, type CommandSpec, type OptionSpec, UsageError } from './spec.js'
import { closest } from './suggest.js'

/** Option values by long name: a string, `true` for a boolean given, undefined when absent. */
export type Values = Record<string, string | boolean | undefined>

/** What the command line asks for. */
export type ParseOutcome =
  | { kind: 'help'; text: string }
  | { kind: 'version' }
  | { kind: 'run'; path: string[]; command: CommandSpec; values: Values; positionals: string[] }

/** A UsageError that knows the command it concerns (`keys issue`), for the `keys issue:` prefix. */
export class CommandLineError extends UsageError {
  constructor(
    readonly path: readonly string[],
    message: string,
  ) {
    super(message)
  }
}

const didYouMean = (word: string, candidates: readonly string[], show = (c: string) => `'${c}'`) => {
  const c = closest(word, candidates)
  return c === null ? '' : `. Did you mean ${show(c)}?`
}

/**
 * Reads `argv` (without node and the script) against the command table `root`: walks down the
 * subcommands, then checks the options of the command reached. `--help`/`-h` anywhere before
 * `--` asks for that command's help, `--version`/`-V` for the version. Throws a
 * {@link CommandLineError} for any mistake.
 */
export function parseCommandLine(root: CommandSpec, argv: readonly string[]): ParseOutcome {
  let spec = root
  const path = [root.name]
  let rest = [...argv]
  while (spec.commands?.length) {
    const [word, ...after] = rest
    const here = (message: string) => new CommandLineError(path, message)
    if (word === undefined) throw here(`no command given (run '${path.join(' ')} --help' for the list)`)
    if (word === 'help') {
      // `keys help issue` is `keys issue --help`; `keys help` the list
      return after.length ? parseCommandLine(root, [...path.slice(1), ...after, '--help']) : help(path, spec)
    }
    if (word.startsWith('-')) {
      const name = longName(word)
      if (name === 'help') return help(path, spec)
      if (name === 'version') return { kind: 'version' }
      throw here(`unknown option '${word}'${didYouMean(name, Object.keys(BUILTIN_OPTIONS), (c) => `'--${c}'`)}`)
    }
    const next = spec.commands.find((c) => c.name === word)
    if (!next) {
      const names = spec.commands.map((c) => c.name)
      const hint = didYouMean(word, names) || ` (run '${path.join(' ')} --help' for the list)`
      throw here(`unknown command '${word}'${hint}`)
    }
    spec = next
    path.push(word)
    rest = after
  }
  return parseOptions(path, spec, rest)
}

function help(path: string[], spec: CommandSpec): ParseOutcome {
  return { kind: 'help', text: renderHelp(path, spec) }
}

/** `--scale=x` -> `scale`, `-h` -> `help`, `-V` -> `version`. */
function longName(word: string): string {
  if (word.startsWith('--')) return word.slice(2).split('=')[0]
  const short = Object.entries(BUILTIN_OPTIONS).find(([, o]) => `-${o.short}` === word)
  return short ? short[0] : word.slice(1)
}

function toParseArgs(options: Record<string, OptionSpec>, withDefaults: boolean) {
  return Object.fromEntries(
    Object.entries(options).map(([name, o]) => [
      name,
      {
        type: o.type,
        ...(o.short ? { short: o.short } : {}),
        ...(withDefaults && o.default !== undefined ? { default: o.default } : {}),
      },
    ]),
  )
}

function parseOptions(path: string[], spec: CommandSpec, args: string[]): ParseOutcome {
  const fail = (message: string): never => {
    throw new CommandLineError(path, message)
  }
  const options: Record<string, OptionSpec> = { ...spec.options, ...BUILTIN_OPTIONS }
  const { tokens } = parseArgs({
    args,
    options: toParseArgs(options, false),
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  // --help and --version win over any mistake next to them
  for (const t of tokens) {
    if (t.kind === 'option-terminator') break
    if (t.kind === 'option' && t.name === 'help') return help(path, spec)
    if (t.kind === 'option' && t.name === 'version') return { kind: 'version' }
  }
  const seen = new Set<string>()
  const positionals: string[] = []
  for (const t of tokens) {
    if (t.kind === 'positional') positionals.push(t.value)
    if (t.kind !== 'option') continue
    const o = Object.hasOwn(options, t.name) ? options[t.name] : undefined
    if (!o) {
      const known = Object.keys(options)
      fail(
        `unknown option '${t.rawName}'${t.rawName.startsWith('--') ? didYouMean(t.name, known, (c) => `'--${c}'`) : ''}`,
      )
    }
    const flag = `--${t.name}`
    if (seen.has(t.name)) fail(`flag '${flag}' given more than once`)
    seen.add(t.name)
    if (o!.type === 'boolean') {
      if (t.value !== undefined) fail(`flag '${flag}' takes no value`)
      continue
    }
    const v = t.value
    if (v === undefined || v.trim() === '') fail(`flag '${flag}' needs a value`)
    // `--out --force`: the next option is not a value (a value starting with '-' goes after '=')
    if (!t.inlineValue && v!.startsWith('-'))
      fail(
        `flag '${flag}' needs a value${v!.startsWith('--') ? '' : ` (write ${flag}=${v} for a value starting with '-')`}`,
      )
    if (o!.choices && !o!.choices.includes(v!)) {
      fail(`invalid ${flag} '${v}' (expected one of ${o!.choices.join(', ')})${didYouMean(v!, o!.choices)}`)
    }
  }
  const accepted = spec.positionals ?? []
  if (positionals.length > accepted.length) fail(`unexpected argument '${positionals[accepted.length]}'`)
  for (const [name, o] of Object.entries(options))
    if (o.required && !seen.has(name)) fail(`missing required flag '--${name}'`)
  for (const [i, p] of accepted.entries()) if (p.required && positionals[i] === undefined) fail(`missing ${p.name}`)

  // the checks above passed: strict mode gives the values (with defaults) and has the last word
  try {
    const parsed = parseArgs({
      args,
      options: toParseArgs(options, true),
      strict: true,
      allowPositionals: accepted.length > 0,
    })
    return { kind: 'run', path, command: spec, values: parsed.values as Values, positionals: parsed.positionals }
  } catch (err) {
    return fail((err as Error).message)
  }
}
