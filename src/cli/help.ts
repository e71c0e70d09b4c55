/**
 * The help text of one command, from its entry in the command table: usage line, description,
 * subcommands or options, positional arguments, examples, notes.
 *
 * @module
 */
import { BUILTIN_OPTIONS, type CommandSpec, type OptionSpec } from './spec.js'

/** The option as written on the command line, with its value placeholder: `--scale tiny|sample`. */
export function optionSyntax(name: string, o: OptionSpec): string {
  if (o.type === 'boolean') return `--${name}`
  return `--${name} ${o.value ?? (o.choices ? o.choices.join('|') : 'VALUE')}`
}

/** Two columns: the left padded to its widest entry, continuation lines of the right indented. */
function columns(rows: [string, string][], indent = '  '): string[] {
  const width = Math.max(...rows.map(([l]) => l.length))
  return rows.flatMap(([left, right]) => {
    const [first, ...more] = right.split('\n')
    return [
      `${indent}${left.padEnd(width)}  ${first}`.trimEnd(),
      ...more.map((m) => `${indent}${' '.repeat(width)}  ${m}`.trimEnd()),
    ]
  })
}

function optionRows(options: Record<string, OptionSpec>): [string, string][] {
  return Object.entries(options).map(([name, o]) => {
    const left = `${o.short ? `-${o.short}, ` : '    '}${optionSyntax(name, o)}`
    const extra = [o.required ? 'required' : '', o.default !== undefined ? `default ${o.default}` : '']
      .filter(Boolean)
      .join('; ')
    return [left, extra ? `${o.description} (${extra})` : o.description]
  })
}

/** The usage line's arguments: required options, positionals, then `[options]` for the rest. */
function synopsis(spec: CommandSpec): string {
  if (spec.commands?.length) return '<command> [options]'
  const options = Object.entries(spec.options ?? {})
  const parts = options.filter(([, o]) => o.required).map(([n, o]) => optionSyntax(n, o))
  for (const p of spec.positionals ?? []) parts.push(p.required ? p.name : `[${p.name}]`)
  parts.push('[options]')
  return parts.join(' ')
}

/**
 * The help of `spec`, reached by `path` (the words typed to get there, the tool's name first:
 * `['keys', 'issue']`).
 */
export function renderHelp(path: readonly string[], spec: CommandSpec): string {
  const prog = path.join(' ')
  const out = [`Usage: ${prog} ${synopsis(spec)}`, '', spec.summary]
  if (spec.description) out.push('', spec.description)
  if (spec.commands?.length) {
    out.push(
      '',
      'Commands:',
      ...columns([
        ...spec.commands.map((c): [string, string] => [c.name, c.summary]),
        ['help [COMMAND]', 'show this help, or the help of COMMAND'],
      ]),
    )
  }
  if (spec.positionals?.length) {
    out.push('', 'Arguments:', ...columns(spec.positionals.map((p): [string, string] => [p.name, p.description])))
  }
  out.push('', 'Options:', ...columns(optionRows({ ...spec.options, ...BUILTIN_OPTIONS })))
  if (spec.examples?.length) out.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`))
  if (spec.commands?.length) out.push('', `Run '${prog} <command> --help' for a command's options.`)
  if (spec.notes) out.push('', spec.notes)
  return out.join('\n')
}
