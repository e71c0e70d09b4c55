/**
 * The command-line tools as people run them: the real bundles in dist/ (built by the global
 * setup) spawned with --help, --version and typos, their output and exit codes checked.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import pkg from '../package.json' with { type: 'json' }

function cli(bundle: string, ...args: string[]) {
  const keysDb = join(mkdtempSync(join(inject('workDir'), 'cli-')), 'keys.db')
  const r = spawnSync(process.execPath, [`dist/${bundle}.js`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, KEYS_DB: keysDb, REDIS_URL: '' },
  })
  return { code: r.status, out: r.stdout, err: r.stderr, keysDb }
}

describe('every tool', () => {
  it.each(['keys', 'build-index', 'synth', 'verify', 'bench', 'lb', 'fuzz', 'reload', 'start', 'server', 'dataset'])(
    '%s --version prints the package name and version, and --help its usage',
    (bundle) => {
      for (const flag of ['--version', '-V'])
        expect(cli(bundle, flag)).toMatchObject({ code: 0, out: `${pkg.name} ${pkg.version}\n`, err: '' })
      const help = cli(bundle, '--help')
      expect(help).toMatchObject({ code: 0, err: '' })
      expect(help.out).toMatch(/^Usage: \S+ /)
      expect(help.out).toContain('-h, --help')
    },
  )
})

describe('docs/cli.md', () => {
  const BUNDLES = [
    'start',
    'server',
    'keys',
    'build-index',
    'synth',
    'verify',
    'bench',
    'lb',
    'fuzz',
    'reload',
    'dataset',
  ]
  const DATASET = ['publish', 'pull']
  const KEYS = ['init', 'issue', 'list', 'suspend', 'unsuspend', 'revoke', 'redate', 'set-rate', 'update', 'rotate']
  const KEYS_MORE = ['delete', 'backup', 'restore', 'migrate']
  it('holds the help of every tool and keys command, as printed', () => {
    const doc = readFileSync('docs/cli.md', 'utf8')
    const helps = [
      ...BUNDLES.map((b) => cli(b, '--help').out),
      ...[...KEYS, ...KEYS_MORE].map((c) => cli('keys', c, '--help').out),
      ...DATASET.map((c) => cli('dataset', c, '--help').out),
    ]
    // every keys command is documented: the list in its help is the one tested here
    const listed = [...cli('keys', '--help').out.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1])
    expect(listed).toEqual([...KEYS, ...KEYS_MORE])
    for (const help of helps) expect(doc, `docs/cli.md lacks:\n${help}`).toContain(`\`\`\`\n${help}\`\`\``)
  })
})

describe('keys', () => {
  it('keys issue --help prints the issue command: its flags, not the command list', () => {
    const r = cli('keys', 'issue', '--help')
    expect(r).toMatchObject({ code: 0, err: '' })
    expect(r.out).toMatch(/^Usage: keys issue --products LIST --countries LIST \[options\]\n/)
    expect(r.out).toMatch(/--expires YYYY-MM-DD\s+last day the key works/)
    expect(r.out).not.toContain('set-rate')
    expect(existsSync(r.keysDb)).toBe(false)
  })

  it('a mistyped flag or command exits 2 with a suggestion, and writes nothing', () => {
    const flag = cli('keys', 'issue', '--prodcts', 'plots', '--countries', 'BOTSWANA')
    expect(flag).toEqual({
      code: 2,
      out: '',
      err: "keys issue: unknown option '--prodcts'. Did you mean '--products'?\n",
      keysDb: flag.keysDb,
    })
    expect(existsSync(flag.keysDb)).toBe(false)
    const command = cli('keys', 'lsit')
    expect(command).toMatchObject({ code: 2, out: '', err: "keys: unknown command 'lsit'. Did you mean 'list'?\n" })
  })
})

describe('build-index', () => {
  it('--help lists every flag; a typo or a missing value exits 2 in one line, no stack', () => {
    const help = cli('build-index', '--help')
    expect(help.code).toBe(0)
    for (const flag of ['--source DIR', '--out DIR', '--reuse PREVIOUS_BUILD', '--allow-rejects', '--force'])
      expect(help.out).toContain(flag)
    expect(cli('build-index', '--sorce', 'x', '--out', 'y')).toMatchObject({
      code: 2,
      out: '',
      err: "build-index: unknown option '--sorce'. Did you mean '--source'?\n",
    })
    expect(cli('build-index', '--source', 'x', '--out')).toMatchObject({
      code: 2,
      err: "build-index: flag '--out' needs a value\n",
    })
    expect(cli('build-index', '--source', 'x')).toMatchObject({
      code: 2,
      err: "build-index: missing required flag '--out'\n",
    })
  })

  it('a failed build is one line and exit 1', () => {
    const r = cli(
      'build-index',
      '--source',
      join(inject('workDir'), 'no-such-export'),
      '--out',
      join(inject('workDir'), 'x'),
    )
    expect(r.code).toBe(1)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    expect(r.err).toMatch(/^build-index: /)
    expect(r.err).not.toMatch(/\n\s+at /)
  })
})

describe('dataset', () => {
  it('a missing argument, a bad header or a bad --retries exits 2 in one line, nothing done', () => {
    const dir = mkdtempSync(join(inject('workDir'), 'cli-dataset-'))
    expect(cli('dataset', 'pull', 'http://127.0.0.1:9/')).toMatchObject({
      code: 2,
      out: '',
      err: 'dataset pull: missing DATASETS_DIR\n',
    })
    expect(cli('dataset', 'pull', 'http://127.0.0.1:9/', dir, '--header', 'Authorization Bearer x')).toMatchObject({
      code: 2,
      err: "dataset pull: --header 'Authorization Bearer x' is not 'Name: value'\n",
    })
    expect(cli('dataset', 'pull', 'http://127.0.0.1:9/', dir, '--retries', 'many')).toMatchObject({
      code: 2,
      err: "dataset pull: --retries 'many' is not a whole number from 0 to 100\n",
    })
    expect(cli('dataset', 'pull', 'http://127.0.0.1:9/', dir, '--name', '../etc')).toMatchObject({
      code: 2,
      err: "dataset pull: --name '../etc' is not a build name (letters, digits, '.', '_', '-'; not starting with '.' or '-')\n",
    })
    expect(cli('dataset', 'publsh')).toMatchObject({
      code: 2,
      err: "dataset: unknown command 'publsh'. Did you mean 'publish'?\n",
    })
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('synth', () => {
  it('a value outside the choices exits 2 and names the closest', () => {
    expect(cli('synth', '--scale', 'nationl', '--out', 'x')).toMatchObject({
      code: 2,
      err: "synth: invalid --scale 'nationl' (expected one of tiny, sample, national). Did you mean 'national'?\n",
    })
  })
})
