/**
 * publish then pull between directories (the HTTP path, nginx and a running server are
 * test/dataset-publish.test.ts): only new objects written, the build linked from the builds held,
 * every refusal leaving nothing installed.
 */
import { randomBytes } from 'node:crypto'
import {
  existsSync,
  rmSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { activate } from './activate.js'
import { writeFakeDataset } from './fake-dataset.js'
import { buildPath, type Compression, objectPath } from './layout.js'
import { publishDataset } from './publish.js'
import { pullBuild } from './pull.js'
import { dirSource } from './source.js'

const FAST = { retries: 1, baseMs: 1, maxMs: 2 }
const FILES = {
  'plots/a.u32': Buffer.alloc(20_000, 1),
  'parcels/b.sqlite': 'parcels '.repeat(3000),
  'encumbrances/c.sqlite': 'encumbrances week 1 '.repeat(500),
}

function setup(compression: Compression = 'none') {
  const root = mkdtempSync(join(tmpdir(), 'ship-pull-'))
  const one = join(root, 'one')
  const two = join(root, 'two')
  const m1 = writeFakeDataset(one, FILES)
  const m2 = writeFakeDataset(two, { ...FILES, 'encumbrances/c.sqlite': 'encumbrances week 2 '.repeat(500) })
  const target = join(root, 'target')
  const datasets = join(root, 'datasets')
  mkdirSync(datasets)
  return { root, one, two, m1, m2, target, datasets, compression }
}

const installed = (datasets: string) =>
  readdirSync(datasets)
    .filter((n) => !n.startsWith('.'))
    .sort()
const leftovers = (datasets: string) => readdirSync(datasets).filter((n) => n.startsWith('.'))

describe('publish', () => {
  it('a second build writes only its changed files; objects are never rewritten', async () => {
    const s = setup()
    const r1 = await publishDataset(s.one, s.target, { name: 'week-1' })
    expect(r1).toMatchObject({ written: 4, reused: 0 })
    const plots = join(s.target, objectPath({ sha256: s.m1.files[2].sha256, compression: 'none' }))
    const mtime = statSync(plots).mtimeMs
    const r2 = await publishDataset(s.two, s.target)
    // the encumbrance file and the manifest
    expect(r2).toMatchObject({ written: 2, reused: 2 })
    expect(r2.bytesWritten).toBeLessThan(r2.bytesTotal / 4)
    expect(statSync(plots).mtimeMs).toBe(mtime)
    expect(JSON.parse(readFileSync(join(s.target, 'latest.json'), 'utf8'))).toEqual({ build_digest: s.m2.build_digest })
    expect(existsSync(join(s.target, buildPath(s.m1.build_digest!)))).toBe(true)
    expect(readdirSync(join(s.target, 'objects')).filter((n) => n.includes('tmp'))).toEqual([])
  })

  it('stores compressed objects under .gz or .zst, a file that would not shrink as it is', async () => {
    const s = setup()
    // random bytes do not compress
    const random = randomBytes(4096)
    writeFakeDataset(s.one, { 'a/text.u8': 'x'.repeat(10_000), 'a/random.u8': random })
    const r = await publishDataset(s.one, s.target, { compression: 'zstd' })
    const stored = Object.fromEntries(r.build.files.map((f) => [f.path, f.compression]))
    expect(stored).toEqual({ 'a/random.u8': 'none', 'a/text.u8': 'zstd' })
  })

  it('refuses a dataset file whose bytes are not its manifest’s, and writes no object for it', async () => {
    const s = setup()
    writeFileSync(join(s.one, 'parcels/b.sqlite'), 'parcels '.repeat(2999) + 'parcelz ')
    await expect(publishDataset(s.one, s.target)).rejects.toThrow(/parcels\/b.sqlite: sha256 differs from the manifest/)
    expect(existsSync(join(s.target, 'latest.json'))).toBe(false)
    expect(readdirSync(join(s.target, 'objects')).some((n) => n.startsWith('.tmp'))).toBe(false)
  })
})

describe('pull from a directory', () => {
  for (const compression of ['none', 'gzip', 'zstd'] as const)
    it(`installs the build whole, then the next one linking what it shares (${compression})`, async () => {
      const s = setup()
      await publishDataset(s.one, s.target, { compression, name: 'week-1' })
      const first = await pullBuild(dirSource(s.target), s.datasets, { retry: FAST })
      expect(first).toMatchObject({ filesFetched: 4, filesLinked: 0, dir: join(s.datasets, 'week-1') })
      for (const f of [...Object.keys(FILES), 'manifest.json'])
        expect(readFileSync(join(s.datasets, 'week-1', f)).equals(readFileSync(join(s.one, f))), f).toBe(true)
      await publishDataset(s.two, s.target, { compression, name: 'week-2' })
      const second = await pullBuild(dirSource(s.target), s.datasets, { retry: FAST })
      expect(second).toMatchObject({ filesFetched: 2, filesLinked: 2 })
      expect(statSync(join(s.datasets, 'week-2/plots/a.u32')).ino).toBe(
        statSync(join(s.datasets, 'week-1/plots/a.u32')).ino,
      )
      expect(installed(s.datasets)).toEqual(['week-1', 'week-2'])
      expect(leftovers(s.datasets)).toEqual([])
      // pulled again: there already, nothing fetched
      expect(await pullBuild(dirSource(s.target), s.datasets, { retry: FAST })).toMatchObject({
        present: true,
        filesFetched: 0,
      })
      // an older build by digest
      const old = await pullBuild(dirSource(s.target), s.datasets, {
        build: s.m1.build_digest!,
        name: 'again',
        retry: FAST,
      })
      expect(old).toMatchObject({ filesFetched: 0, filesLinked: 4 })
    })

  it('a flipped byte in an object: refused, nothing installed, no temporary directory left', async () => {
    const s = setup()
    await publishDataset(s.one, s.target)
    const obj = join(s.target, objectPath({ sha256: s.m1.files[0].sha256, compression: 'none' }))
    const bytes = readFileSync(obj)
    bytes[100] ^= 1
    writeFileSync(obj, bytes)
    await expect(pullBuild(dirSource(s.target), s.datasets, { retry: FAST })).rejects.toThrow(
      `${s.m1.files[0].path}: sha256 differs from the published digest (the object is damaged): nothing installed`,
    )
    expect(readdirSync(s.datasets)).toEqual([])
  })

  it('a missing object, an unknown build, a missing target: one line each, nothing installed', async () => {
    const s = setup()
    await publishDataset(s.one, s.target)
    const missing = s.m1.files[1]
    rmSync(join(s.target, objectPath({ sha256: missing.sha256, compression: 'none' })))
    await expect(pullBuild(dirSource(s.target), s.datasets, { retry: FAST })).rejects.toThrow(
      `the published build lacks ${missing.path}`,
    )
    await expect(pullBuild(dirSource(s.target), s.datasets, { build: 'f'.repeat(64), retry: FAST })).rejects.toThrow(
      `build ${'f'.repeat(64)} is not published there`,
    )
    await expect(pullBuild(dirSource(s.root), s.datasets, { retry: FAST })).rejects.toThrow(/holds no published build/)
    await expect(pullBuild(dirSource(s.target), join(s.root, 'nope'), { retry: FAST })).rejects.toThrow(
      /nope: no such directory/,
    )
    expect(readdirSync(s.datasets)).toEqual([])
  })

  it('a damaged copy under DATASETS_DIR is not linked: the file is fetched instead', async () => {
    const s = setup()
    await publishDataset(s.one, s.target, { name: 'week-1' })
    await pullBuild(dirSource(s.target), s.datasets, { retry: FAST })
    const held = join(s.datasets, 'week-1', 'plots/a.u32')
    const bytes = readFileSync(held)
    bytes[0] ^= 1
    writeFileSync(held, bytes)
    await publishDataset(s.two, s.target, { name: 'week-2' })
    const r = await pullBuild(dirSource(s.target), s.datasets, { retry: FAST })
    expect(r).toMatchObject({ filesFetched: 3, filesLinked: 1 })
    expect(readFileSync(join(s.datasets, 'week-2', 'plots/a.u32')).equals(FILES['plots/a.u32'])).toBe(true)
  })
})

describe('--activate', () => {
  it('with no server running, moves the link alone, relative beside the builds', async () => {
    const s = setup()
    await publishDataset(s.one, s.target, { name: 'week-1' })
    const link = join(s.datasets, 'current')
    const r = await pullBuild(dirSource(s.target), s.datasets, {
      activate: link,
      pidFile: join(s.root, 'no.pid'),
      retry: FAST,
    })
    expect(r.signalled).toBeNull()
    expect(readlinkSync(link)).toBe('week-1')
  })

  it('refuses a link that is a real directory, and a pid file without a pid, leaving the link', () => {
    const s = setup()
    mkdirSync(join(s.datasets, 'real'))
    expect(() => activate(join(s.datasets, 'real'), s.one, join(s.root, 'no.pid'))).toThrow(/is not a symlink/)
    const link = join(s.datasets, 'current')
    symlinkSync('elsewhere', link)
    writeFileSync(join(s.root, 'bad.pid'), 'not a pid\n')
    expect(() => activate(link, s.one, join(s.root, 'bad.pid'))).toThrow(/holds no pid/)
    expect(lstatSync(link).isSymbolicLink() && readlinkSync(link)).toBe('elsewhere')
  })
})
