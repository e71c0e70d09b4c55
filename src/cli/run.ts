/**
 * Runs a command-line tool from its command table: help, version and usage errors are handled
 * here the same way for every tool, and the tool's own code sees only a valid invocation.
 *
 * Exit codes, for every tool: 0 success (and `--help`, `--version`), 1 the work failed, 2 a
 * usage error (one line on stderr, nothing done). No error prints a stack trace unless
 * `DEBUG` is set.
 *
 * @module
 */
import pkg from '../../package.json' with { type: 'json' }
import { CommandLineError, parseCommandLine, type ParseOutcome } from './args.js'
import { type CommandSpec, UsageError } from './spec.js'

/** What `--version` prints: the package name and version, from package.json. */
export const VERSION_TEXT = `${pkg.name} ${pkg.version}`

export const EXIT_OK = 0
export const EXIT_FAIL = 1
export const EXIT_USAGE = 2

/** Where a tool writes, one line (or block) per call; injectable so tests run tools in process. */
export interface CliIo {
  out(s: string): void
  err(s: string): void
}

/** A valid command line: the command reached, its option values and positional arguments. */
export type Invocation = Extract<ParseOutcome, { kind: 'run' }>

/** The tool's work: returns its exit code; throws UsageError for a mistake it finds itself. */
export type CliHandler = (inv: Invocation) => number | Promise<number>

export const stdio: CliIo = {
  out: (s) => void process.stdout.write(`${s}\n`),
  err: (s) => void process.stderr.write(`${s}\n`),
}

function errorLine(path: readonly string[], err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  const stack = process.env.DEBUG && err instanceof Error && !(err instanceof UsageError) ? `\n${err.stack}` : ''
  return `${path.join(' ')}: ${message}${stack}`
}

/**
 * Parses `argv` against `root` and runs `handler` on a valid command line. Returns the exit
 * code; prints help and version to `io.out`, mistakes and failures to `io.err`.
 */
export async function runCli(
  root: CommandSpec,
  argv: readonly string[],
  io: CliIo,
  handler: CliHandler,
): Promise<number> {
  let outcome: ParseOutcome
  try {
    outcome = parseCommandLine(root, argv)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.err(errorLine(err instanceof CommandLineError ? err.path : [root.name], err))
    return EXIT_USAGE
  }
  if (outcome.kind === 'help') {
    io.out(outcome.text)
    return EXIT_OK
  }
  if (outcome.kind === 'version') {
    io.out(VERSION_TEXT)
    return EXIT_OK
  }
  try {
    return await handler(outcome)
  } catch (err) {
    io.err(errorLine(outcome.path, err))
    return err instanceof UsageError ? EXIT_USAGE : EXIT_FAIL
  }
}

/**
 * The process entry of a tool: {@link runCli} on `process.argv`, then the exit code. `exit`
 * ends the process at once (tools whose worker threads or sockets would keep it alive); without
 * it the code is set and the process ends when its work does, so piped output drains first.
 */
export function runMain(root: CommandSpec, handler: CliHandler, opts: { exit?: boolean } = {}): void {
  runCli(root, process.argv.slice(2), stdio, handler).then(
    (code) => {
      if (opts.exit) process.exit(code)
      process.exitCode = code
    },
    (err: unknown) => {
      process.stderr.write(`${errorLine([root.name], err)}\n`)
      process.exit(EXIT_FAIL)
    },
  )
}
