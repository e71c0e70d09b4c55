/**
 * `dataset publish` and `dataset pull` for real (docs/operations.md "Publishing and pulling
 * builds"): two builds of the fixture dataset, the second a weekly encumbrance export built with
 * --reuse, published by the CLI bundle into one target that nginx (the Debian package) serves on
 * loopback. Pulls count their requests in nginx's access log: only the changed files are
 * fetched; a pull killed mid-file resumes with Range; a flipped byte, a 404 and a full disk are
 * refused with one line and nothing installed; --activate switches a running server (2 workers)
 * under load with no failed request. Every wait is bounded.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { Nginx } from '../scripts/lb/nginx.js'
import type { Manifest } from '../src/data/manifest.js'
import { buildPath, type PublishedBuild } from '../src/ship/layout.js'
import { pointAt } from './fixtures/builds.js'
import { freePort } from './fixtures/free-port.js'
import { fresh, spawnServer, until } from './fixtures/server-process.js'
import { weeklySource } from './fixtures/weekly.js'

let work: string
let target: string
let nginx: Nginx
let base: string
let slowBase: string
let a: Manifest
let b: Manifest
let published: { a: PublishedBuild; b: PublishedBuild }
const publishOut: string[] = []

/** The dataset CLI bundle, run to its end: exit code, stdout, stderr. */
function dataset(...args: string[]) {
  const r = spawnSync(process.execPath, ['dist/dataset.js', ...args], {
    encoding: 'utf8',
    env: { ...process.env, PID_FILE: join(work, 'no-server.pid') },
    timeout: 60_000,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** The object paths nginx was asked for since `mark` (a line count of its access log), with status. */
function requests(mark = 0): { uri: string; status: number; range: string }[] {
  const log = join(work, 'nginx', 'access.log')
  if (!existsSync(log)) return []
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .slice(mark)
    .filter(Boolean)
    .map((l) => {
      const m = /^GET (\S+) (\d+) \d+ "([^"]*)"/.exec(l)!
      return { uri: m[1], status: Number(m[2]), range: m[3] === '-' ? '' : m[3] }
    })
}
const logLines = () => requests().length
const objectsAsked = (mark: number) => requests(mark).filter((r) => r.uri.includes('/objects/'))
const installed = (dir: string) => readdirSync(dir).sort()

/** The objects of `p` that `q` does not share: what a pull of `p` after `q` must fetch. */
function newObjects(p: PublishedBuild, q: PublishedBuild | null): string[] {
  const had = new Set(q ? [q.manifest.sha256, ...q.files.map((f) => f.sha256)] : [])
  return [p.manifest, ...p.files].filter((f) => !had.has(f.sha256)).map((f) => f.sha256)
}

beforeAll(async () => {
  work = mkdtempSync(join(inject('workDir'), 'publish-'))
  const datasetA = inject('datasetDir')
  const datasetB = join(work, 'build-b')
  await buildDataset({
    source: weeklySource(inject('sourceDir'), join(work, 'source-b')),
    out: datasetB,
    reuse: datasetA,
    log: () => {},
  })
  a = JSON.parse(readFileSync(join(datasetA, 'manifest.json'), 'utf8'))
  b = JSON.parse(readFileSync(join(datasetB, 'manifest.json'), 'utf8'))
  target = join(work, 'www', 'target')
  for (const [dir, name] of [
    [datasetA, 'build-a'],
    [datasetB, 'build-b'],
  ]) {
    const r = dataset('publish', dir, target, '--compress', 'gzip', '--name', name, '--quiet')
    expect(r, r.err).toMatchObject({ code: 0, err: '' })
    publishOut.push(r.out)
  }
  const read = (m: Manifest) => JSON.parse(readFileSync(join(target, buildPath(m.build_digest!)), 'utf8'))
  published = { a: read(a), b: read(b) }
  const [port, slow] = [await freePort(), await freePort()]
  nginx = new Nginx(join(work, 'nginx'), port, {
    template: 'static.conf.template',
    vars: {
      user: process.getuid?.() === 0 ? 'user root;' : '',
      root: join(work, 'www'),
      listen_slow: `127.0.0.1:${slow}`,
      limit_rate: '256k',
    },
  })
  await nginx.start([])
  base = `http://127.0.0.1:${port}/target/`
  slowBase = `http://127.0.0.1:${slow}/target/`
}, 120_000)

afterAll(async () => {
  await nginx?.stop()
})

describe('dataset publish', () => {
  it('writes the weekly encumbrance build as its changed files only: under 25 % of the full build', () => {
    const written = (out: string) => Number(/: (\d+) objects written/.exec(out)![1])
    expect(written(publishOut[0])).toBe(a.files.length + 1)
    // the encumbrance files that changed, and the manifest
    const changed = b.files.filter((f) => !a.files.some((g) => g.sha256 === f.sha256))
    expect(changed.length).toBeGreaterThan(0)
    expect(changed.every((f) => f.path.startsWith('encumbrances/'))).toBe(true)
    expect(written(publishOut[1])).toBe(changed.length + 1)
    const stored = (p: PublishedBuild, shas: Set<string>) =>
      [p.manifest, ...p.files].filter((f) => shas.has(f.sha256)).reduce((s, f) => s + f.stored_size, 0)
    const all = (p: PublishedBuild) => stored(p, new Set([p.manifest, ...p.files].map((f) => f.sha256)))
    const bytesB = stored(published.b, new Set(newObjects(published.b, published.a)))
    expect(bytesB / all(published.a)).toBeLessThan(0.25)
    expect(JSON.parse(readFileSync(join(target, 'latest.json'), 'utf8')).build_digest).toBe(b.build_digest)
  })

  it('a missing dataset or an unwritable target: one line, exit 1', () => {
    const r = dataset('publish', join(work, 'no-such-build'), join(work, 'elsewhere'))
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^dataset publish: .*no-such-build.* is missing: .* is not a built dataset/)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    writeFileSync(join(work, 'a-file'), '')
    const f = dataset('publish', inject('datasetDir'), join(work, 'a-file'), '--quiet')
    expect(f.code).toBe(1)
    expect(f.err.trim().split('\n')).toHaveLength(1)
  })
})

describe('dataset pull over nginx', () => {
  it('pulls the first build whole, then fetches only the changed files of the second', () => {
    const datasets = mkdtempSync(join(work, 'datasets-'))
    let mark = logLines()
    const first = dataset('pull', base, datasets, '--build', a.build_digest!)
    expect(first, first.err).toMatchObject({ code: 0 })
    expect(first.out).toMatch(
      new RegExp(`pulled build ${a.build_digest} into .*build-a: ${a.files.length + 1} files fetched`),
    )
    // one line per file without a terminal
    expect(first.err).toMatch(/^pull: \d+ files to fetch/m)
    expect(first.err).toMatch(/^fetched parcels\/parcels.sqlite \(/m)
    expect(objectsAsked(mark).map((r) => r.status)).toEqual(Array(a.files.length + 1).fill(200))

    mark = logLines()
    const second = dataset('pull', base, datasets)
    expect(second, second.err).toMatchObject({ code: 0 })
    const asked = objectsAsked(mark)
    expect(asked.map((r) => r.uri.replace(/^.*\/objects\/([0-9a-f]+).*$/, '$1')).sort()).toEqual(
      newObjects(published.b, published.a).sort(),
    )
    expect(second.err).toMatch(/^linked plots\//m)
    expect(installed(datasets)).toEqual(['build-a', 'build-b'])
    // byte-identical to the published build, unchanged files shared with the first
    const v = spawnSync(process.execPath, ['dist/verify.js', join(datasets, 'build-b')], { encoding: 'utf8' })
    expect(v.status, v.stderr).toBe(0)
    const shared = b.files.find((f) => f.path.startsWith('parcels/'))!
    expect(statSync(join(datasets, 'build-b', shared.path)).ino).toBe(
      statSync(join(datasets, 'build-a', shared.path)).ino,
    )
  })

  it('a pull killed mid-file resumes it with Range and completes', async () => {
    const datasets = mkdtempSync(join(work, 'datasets-'))
    const biggest = [...published.a.files].sort((x, y) => y.stored_size - x.stored_size)[0]!
    expect(biggest.stored_size).toBeGreaterThan(512 * 1024)
    const part = join(datasets, `.pull-${a.build_digest}.tmp`, '.parts', `objects-${biggest.sha256}.gz`)
    // the first test fetched the same object: only lines after this one count
    const before = logLines()
    const child: ChildProcess = spawn(
      process.execPath,
      ['dist/dataset.js', 'pull', slowBase, datasets, '--build', a.build_digest!],
      { stdio: 'ignore' },
    )
    try {
      // killed once the biggest file is partly there (256 KiB/s: seconds into it)
      await until(
        'the slow pull to be inside the biggest file',
        () => existsSync(part) && statSync(part).size > 64 * 1024,
        () => '',
        60_000,
      )
    } finally {
      child.kill('SIGKILL')
    }
    await new Promise((r) => child.once('exit', r))
    const have = statSync(part).size
    expect(have).toBeLessThan(biggest.stored_size)
    expect(installed(datasets)).toEqual([`.pull-${a.build_digest}.tmp`])

    // nginx logs the cut request when it sees the connection close
    const object = (r: { uri: string }) => r.uri.endsWith(`${biggest.sha256}.gz`)
    await until(
      'nginx to log the killed request',
      () => requests(before).some(object),
      () => '',
      10_000,
    )
    const mark = logLines()
    const again = dataset('pull', base, datasets, '--build', a.build_digest!)
    expect(again, again.err).toMatchObject({ code: 0 })
    expect(again.err).toContain(`fetched, resumed at ${have} bytes, ${biggest.path}`)
    expect(requests(mark).filter(object)).toEqual([{ uri: expect.any(String), status: 206, range: `bytes=${have}-` }])
    expect(installed(datasets)).toEqual(['build-a'])
    const v = spawnSync(process.execPath, ['dist/verify.js', join(datasets, 'build-a')], { encoding: 'utf8' })
    expect(v.status, v.stderr).toBe(0)
  }, 90_000)

  it('a flipped byte on the server, a missing object, an unknown build: refused in one line, nothing installed', async () => {
    const copy = (name: string) => {
      const dir = join(work, 'www', name)
      cpSync(target, dir, { recursive: true })
      return { dir, url: `${base.replace(/target\/$/, '')}${name}/` }
    }
    const enc = published.b.files.find((f) => f.path === 'encumbrances/encumbrances.sqlite')!
    const flipped = copy('flipped')
    const obj = join(flipped.dir, 'objects', `${enc.sha256}${enc.compression === 'gzip' ? '.gz' : ''}`)
    const bytes = readFileSync(obj)
    bytes[Math.floor(bytes.length / 2)] ^= 0x20
    writeFileSync(obj, bytes)
    const missing = copy('missing')
    rmSync(join(missing.dir, 'objects', `${enc.sha256}${enc.compression === 'gzip' ? '.gz' : ''}`))

    const datasets = mkdtempSync(join(work, 'datasets-'))
    expect(dataset('pull', base, datasets, '--build', a.build_digest!).code).toBe(0)
    pointAt(join(datasets, 'current'), join(datasets, 'build-a'))
    for (const [url, why] of [
      [
        flipped.url,
        /^dataset pull: encumbrances\/encumbrances.sqlite: (sha256 differs from the published digest|does not uncompress)/,
      ],
      [
        missing.url,
        /^dataset pull: http:\/\/.*: HTTP 404 Not Found: the published build lacks encumbrances\/encumbrances.sqlite$/,
      ],
    ] as const) {
      const r = dataset('pull', url, datasets, '--activate', join(datasets, 'current'))
      expect(r.code).toBe(1)
      expect(r.err.trim().split('\n').at(-1)).toMatch(why)
      expect(r.err.split('\n').filter((l) => l.startsWith('dataset pull:'))).toHaveLength(1)
      expect(installed(datasets)).toEqual(['build-a', 'current'])
      expect(readlinkSync(join(datasets, 'current'))).toBe('build-a')
    }
    const unknown = dataset('pull', base, datasets, '--build', 'e'.repeat(64))
    expect(unknown.code).toBe(1)
    expect(unknown.err).toBe(
      `dataset pull: ${base}${buildPath('e'.repeat(64))}: HTTP 404 Not Found: build ${'e'.repeat(64)} is not published there\n`,
    )
    // nothing listens there: retried once, then one line
    const closed = `http://127.0.0.1:${await freePort()}/`
    const nowhere = dataset('pull', closed, datasets, '--retries', '1')
    expect(nowhere.code).toBe(1)
    expect(nowhere.err).toMatch(/^retrying latest.json in 0.5 s: .*ECONNREFUSED/m)
    expect(nowhere.err.trim().split('\n').at(-1)).toBe(
      `dataset pull: ${closed}latest.json: ECONNREFUSED (gave up after 1 retries)`,
    )
    expect(installed(datasets)).toEqual(['build-a', 'current'])
  }, 60_000)

  it.skipIf(process.getuid?.() !== 0)('a full disk (a 3 MiB tmpfs): one line, nothing left behind', () => {
    const small = mkdtempSync(join(work, 'tmpfs-'))
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', small], { encoding: 'utf8' })
    if (m.status !== 0) throw new Error(`mount: ${m.stderr}`)
    try {
      const r = dataset('pull', base, small)
      expect(r.code).toBe(1)
      expect(r.err.trim().split('\n').at(-1)).toMatch(
        new RegExp(`^dataset pull: no space left in ${small} \\(.*ENOSPC.*\\): free some and pull again$`),
      )
      expect(readdirSync(small)).toEqual([])
    } finally {
      spawnSync('umount', [small])
    }
  })
})

describe('dataset pull --activate', () => {
  it('switches a running server (2 workers) under load with no failed request', async () => {
    const datasets = mkdtempSync(join(work, 'datasets-'))
    expect(dataset('pull', base, datasets, '--build', a.build_digest!).code).toBe(0)
    const current = join(datasets, 'current')
    pointAt(current, join(datasets, 'build-a'))
    const pidFile = join(work, 'server.pid')
    const readyBuild = async (p: Awaited<ReturnType<typeof spawnServer>>) =>
      (await fresh(p, '/readyz'))?.body?.build?.name ?? null
    const p = await spawnServer(
      { DATASET_DIR: current, PID_FILE: pidFile, LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_S: '5' },
      2,
      ['jurisdiction'],
      'activate',
      { started: async (s) => (await readyBuild(s)) === 'build-a' },
    )
    try {
      let stop = false
      let answers = 0
      const failures: string[] = []
      const connection = async () => {
        while (!stop) {
          try {
            const r = await fetch(`${p.url}/api/v1/jurisdiction/coverage`, { headers: { 'X-API-KEY': p.key } })
            await r.arrayBuffer()
            if (r.status !== 200) failures.push(String(r.status))
            answers++
          } catch (err) {
            failures.push(String(err))
          }
        }
      }
      const load = Array.from({ length: 20 }, connection)
      await until('answers under load', () => answers > 50, p.output)
      const pull = spawnSync(process.execPath, ['dist/dataset.js', 'pull', base, datasets, '--activate', current], {
        encoding: 'utf8',
        env: { ...process.env, PID_FILE: pidFile },
        timeout: 60_000,
      })
      expect(pull.status, pull.stderr).toBe(0)
      expect(pull.stdout).toMatch(/current points at it, server \(pid \d+\) signalled/)
      expect(readlinkSync(current)).toBe('build-b')
      // every worker serves build-b: ten answers in a row over new connections say so
      let seen = 0
      await until(
        'both workers to serve build-b',
        async () => {
          seen = (await readyBuild(p)) === 'build-b' ? seen + 1 : 0
          return seen >= 10
        },
        p.output,
      )
      const before = answers
      await until('answers after the switch', () => answers > before + 50, p.output)
      stop = true
      await Promise.all(load)
      expect(failures).toEqual([])
      expect(p.output()).not.toMatch(/dataset switch refused/)
    } finally {
      p.child.kill('SIGKILL')
    }
  }, 120_000)
})
