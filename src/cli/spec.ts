/**
 * How a command-line tool describes itself: its commands, each with its own options,
 * positional arguments, description and examples. One table drives both the parsing
 * (`args.ts`) and the help text (`help.ts`), so the help never lists a flag the parser refuses
 * or misses one it accepts.
 *
 * @module
 */

/** One `--name` option of a command. */
export interface OptionSpec {
  /** `string` takes a value (`--out DIR` or `--out=DIR`); `boolean` takes none. */
  type: 'string' | 'boolean'
  /** One-letter alias, as `h` for `-h`. */
  short?: string
  /** The value's placeholder in the help (`DIR`, `LIST`); default `VALUE`, or the choices. */
  value?: string
  /** One line or a few (`\n`) for the help. */
  description: string
  /** Refused when missing, with exit code 2. */
  required?: boolean
  /** Applied when the option is absent, and shown in the help. */
  default?: string
  /** The only values accepted; anything else is refused with the closest one suggested. */
  choices?: readonly string[]
}

/** A positional argument: a plain word after the command, as `FILE` in `keys backup FILE`. */
export interface PositionalSpec {
  name: string
  description: string
  required?: boolean
}

/** A command, or the tool itself (the root of the table). */
export interface CommandSpec {
  /** The word that selects it; the root's name is the tool's (`keys`, `build-index`). */
  name: string
  /** One line: the command's entry in its parent's list, and the first line of its help. */
  summary: string
  /** Paragraphs after the summary in the command's own help. */
  description?: string
  options?: Record<string, OptionSpec>
  positionals?: readonly PositionalSpec[]
  /** Subcommands; a command with them takes no options of its own but `--help`/`--version`. */
  commands?: readonly CommandSpec[]
  /** Whole command lines, shown under "Examples:". */
  examples?: readonly string[]
  /** Text at the end of the help (environment, exit codes). */
  notes?: string
}

/**
 * A command-line mistake (unknown option or command, missing or bad value): one line on stderr
 * and exit code 2, before anything is read or written.
 */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** The options every command has: `--help` and `--version`. */
export const BUILTIN_OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', description: 'show this help' },
  version: { type: 'boolean', short: 'V', description: 'print the package name and version' },
}
