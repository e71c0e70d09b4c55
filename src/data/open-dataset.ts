import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { basename, join } from 'node:path'
import Database from 'better-sqlite3'
import { checkFileHeader } from './file-headers.js'
import { fileMapper } from './file-map.js'
import {
  buildDigest,
  DATASET_FORMAT_VERSION,
  MANIFEST_FILE,
  ManifestSchema,
  type Domain,
  type DomainManifest,
  type Manifest,
  type ManifestFile,
} from './manifest.js'

/** A dataset that cannot be served; the message says which file and why. */
export class DatasetError extends Error {}

/** An immutable built dataset, opened read-only. */
export interface OpenDataset {
  readonly dir: string
  readonly manifest: Manifest
  /** How `arrayBuffer` gives the index files: memory-mapped, or read into memory (see OpenOptions.mapIndexes). */
  readonly indexes: 'mapped' | 'read'
  /** The domain's manifest entry, or null when the dataset does not hold it. */
  domain(name: Domain): DomainManifest | null
  /** True when the manifest lists the file. */
  has(path: string): boolean
  /** Opens (once) a listed SQLite file read-only with mmap. */
  sqlite(path: string): Database.Database
  /**
   * A listed binary file as an ArrayBuffer (Flatbush/KDBush `from`): memory-mapped, or read
   * into a fresh one (a file `preload` has read is handed over at once, each copy once).
   */
  arrayBuffer(path: string): ArrayBuffer
  /**
   * Reads the listed files but the SQLite ones (the indexes and arrays the services build on)
   * of one domain (its directory), or of all, concurrently in chunks on libuv's thread pool, for
   * the `arrayBuffer` calls that follow: on two cores about twice as fast as reading them one
   * after the other on the main thread (the national dataset's ~640 MB: ~1.0 s → ~0.5 s), and
   * the main thread is free meanwhile to build what is already read (see loadServices).
   * Nothing to do where the files are mapped.
   */
  preload(domain?: Domain): Promise<void>
  /**
   * One value per key for the life of this dataset: features that read the same file (the
   * parcel index serves the parcel and encumbrance services) share one copy in memory.
   */
  memo<T>(key: string, make: () => T): T
  close(): void
}

// better-sqlite3's SQLite caps mmap at about 2 GiB; larger files are only partly mapped
export const MAX_MMAP_BYTES = 2 ** 31 - 1

export interface OpenOptions {
  /**
   * How much of each SQLite file to memory-map (default and most: MAX_MMAP_BYTES). Mapped pages
   * a request touches count in the process's RSS (as shared file pages); 0 reads every page
   * through SQLite's own small page cache instead (SQLITE_MMAP_MB in the server's config).
   */
  mmapBytes?: number
  /**
   * Memory-map the index files (Flatbush, KDBush and the arrays beside them) rather than read
   * them into memory (default: true, where the native addon is built; INDEX_MMAP in the
   * server's config). Mapped, a start copies nothing and every worker shares the kernel's
   * page cache for them; a page is read in when a query first touches it.
   */
  mapIndexes?: boolean
}

export function readManifest(dir: string): Manifest {
  const file = join(dir, MANIFEST_FILE)
  if (!existsSync(file))
    throw new DatasetError(`${file} is missing: ${dir} is not a built dataset (run npm run build-index)`)
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new DatasetError(`${file} is not valid JSON: ${(err as Error).message}`)
  }
  const r = ManifestSchema.safeParse(raw)
  if (!r.success)
    throw new DatasetError(
      `${file} is not a dataset manifest: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    )
  if (r.data.format_version !== DATASET_FORMAT_VERSION) {
    throw new DatasetError(
      `${file}: dataset format v${r.data.format_version}, this server reads v${DATASET_FORMAT_VERSION}; rebuild it with ` +
        `this version's build-index`,
    )
  }
  // a manifest without one is from before the digest and is still served (verifyOnStart says so)
  if (r.data.build_digest !== undefined && r.data.build_digest !== buildDigest(r.data.files))
    throw new DatasetError(
      `${file}: build_digest does not match the files it lists: the manifest was edited or damaged (rebuild the dataset)`,
    )
  return r.data
}

/**
 * Cheap start-up check of one file: present, the manifest's size, the right header. Hashes are
 * src/data/integrity.ts (VERIFY_ON_START) and `npm run verify`.
 */
export function checkFile(dir: string, f: ManifestFile): void {
  const p = join(dir, f.path)
  if (!existsSync(p)) throw new DatasetError(`dataset file ${f.path} is missing from ${dir}`)
  const size = statSync(p).size
  if (size !== f.size)
    throw new DatasetError(
      `dataset file ${f.path} is ${size} bytes, the manifest says ${f.size}: the dataset is damaged or incomplete ` +
        `(run npm run verify)`,
    )
  const head = Buffer.alloc(16)
  const fd = openSync(p, 'r')
  try {
    readSync(fd, head, 0, 16, 0)
  } finally {
    closeSync(fd)
  }
  const bad = checkFileHeader(f.kind, head)
  if (bad) throw new DatasetError(`dataset file ${f.path}: ${bad}, the manifest says ${f.kind}`)
}

/** Opens a built dataset read-only after checking the manifest and every file's size and header. */
export function openDataset(dir: string, opts: OpenOptions = {}): OpenDataset {
  const mmapBytes = Math.max(0, Math.min(MAX_MMAP_BYTES, Math.floor(opts.mmapBytes ?? MAX_MMAP_BYTES)))
  const manifest = readManifest(dir)
  const listed = new Map(manifest.files.map((f) => [f.path, f]))
  for (const f of manifest.files) checkFile(dir, f)
  const dbs = new Map<string, Database.Database>()
  const memos = new Map<string, unknown>()
  const preloaded = new Map<string, ArrayBuffer>()
  const mapper = opts.mapIndexes === false ? null : fileMapper()
  const need = (path: string, kind: string) => {
    const f = listed.get(path)
    if (!f) throw new DatasetError(`${path} is not listed in the manifest of ${dir}`)
    if (f.kind !== kind) throw new DatasetError(`${path} is a ${f.kind} file, not ${kind}`)
    return join(dir, path)
  }
  return {
    dir,
    manifest,
    indexes: mapper ? 'mapped' : 'read',
    domain: (name) => manifest.domains[name] ?? null,
    has: (path) => listed.has(path),
    sqlite(path) {
      let db = dbs.get(path)
      if (!db) {
        db = new Database(need(path, 'sqlite'), { readonly: true, fileMustExist: true })
        db.pragma(`mmap_size = ${mmapBytes}`)
        // the file never changes while served: an exclusive (shared-read) lock taken once
        // saves a lock round and change-counter check per statement (docs/benchmarks.md "Performance floors": ~4x)
        db.pragma('locking_mode = EXCLUSIVE')
        db.pragma('query_only = 1')
        dbs.set(path, db)
      }
      return db
    },
    arrayBuffer(path) {
      const file = need(path, listed.get(path)?.kind ?? 'u32')
      if (mapper) {
        try {
          return mapper.map(file)
        } catch (err) {
          throw new DatasetError(`${path}: ${(err as Error).message}`)
        }
      }
      const ready = preloaded.get(path)
      if (ready) {
        preloaded.delete(path)
        return ready
      }
      // read straight into a fresh ArrayBuffer at offset 0 (Flatbush.from/KDBush.from need an
      // aligned ArrayBuffer, not a Buffer), without a second copy of national-size indexes
      const fd = openSync(file, 'r')
      try {
        const size = fstatSync(fd).size
        const ab = new ArrayBuffer(size)
        const bytes = new Uint8Array(ab)
        for (let done = 0; done < size; ) {
          const n = readSync(fd, bytes, done, size - done, done)
          if (n === 0) throw new DatasetError(`${path}: unexpected end of file after ${done} of ${size} bytes`)
          done += n
        }
        return ab
      } finally {
        closeSync(fd)
      }
    },
    async preload(domain) {
      if (mapper) return
      const files = manifest.files.filter(
        (f) => f.kind !== 'sqlite' && !preloaded.has(f.path) && (!domain || f.path.startsWith(`${domain}/`)),
      )
      const read = await Promise.all(
        files.map(async (f) => [f.path, await readWhole(join(dir, f.path), f.path)] as const),
      )
      for (const [path, ab] of read) preloaded.set(path, ab)
    },
    memo<T>(key: string, make: () => T): T {
      if (!memos.has(key)) memos.set(key, make())
      return memos.get(key) as T
    },
    close() {
      for (const db of dbs.values()) db.close()
      dbs.clear()
      memos.clear()
      preloaded.clear()
    },
  }
}

// 16 MiB reads: a national index (the cadastre's Flatbush is ~300 MB) is read by every thread of
// the pool at once rather than by one
const PRELOAD_CHUNK = 16 * 2 ** 20

/** Reads a file into a fresh ArrayBuffer at offset 0 with concurrent reads of `chunk` bytes. */
export async function readWhole(file: string, path: string, chunk = PRELOAD_CHUNK): Promise<ArrayBuffer> {
  const fh = await open(file, 'r').catch((err: Error) => {
    throw new DatasetError(`${path}: cannot open: ${err.message}`)
  })
  try {
    const size = (await fh.stat()).size
    const ab = new ArrayBuffer(size)
    const bytes = new Uint8Array(ab)
    const readRange = async (from: number, to: number) => {
      for (let done = from; done < to; ) {
        const { bytesRead } = await fh.read(bytes, done, to - done, done)
        if (bytesRead === 0) throw new DatasetError(`${path}: unexpected end of file after ${done} of ${size} bytes`)
        done += bytesRead
      }
    }
    const chunks: Promise<void>[] = []
    for (let from = 0; from < size; from += chunk) chunks.push(readRange(from, Math.min(size, from + chunk)))
    await Promise.all(chunks)
    return ab
  } finally {
    await fh.close()
  }
}

/**
 * One served build: its open dataset, the services built on it, its name (the directory's, for
 * the access log and `/readyz`) and the requests that hold it.
 */
export class DatasetSnapshot<S> {
  /** Requests that started on this snapshot and have not answered yet. */
  refs = 0
  /** Set once another snapshot serves: the dataset closes when `refs` drops to 0. */
  retired = false

  constructor(
    readonly dataset: OpenDataset,
    readonly services: S,
    readonly build: string,
  ) {}
}

/**
 * The one place the server keeps its open dataset and everything built on it, so a new build
 * can be swapped in atomically: a request pins the snapshot it started with (`acquire`, then
 * `release` once answered, see createApp) and reads its services and build from it only, so it
 * never mixes two builds; the previous dataset is closed (its files unmapped) once the last
 * request holding it has answered (docs/operations.md "Swapping datasets").
 */
export class DatasetHandle<S> {
  private snapshot: DatasetSnapshot<S>

  /**
   * `services`: already built from `dataset` (the server loads them asynchronously), else built
   * here; `build`: the served build's name (default: the directory's name).
   */
  constructor(
    dataset: OpenDataset,
    private readonly build: (ds: OpenDataset) => S,
    services: S = build(dataset),
    name: string = basename(dataset.dir),
  ) {
    this.snapshot = new DatasetSnapshot(dataset, services, name)
  }

  get dataset(): OpenDataset {
    return this.snapshot.dataset
  }

  get services(): S {
    return this.snapshot.services
  }

  /** The snapshot serving now (not pinned: `acquire` for a request). */
  current(): DatasetSnapshot<S> {
    return this.snapshot
  }

  /** The snapshot serving now, held until `release`. */
  acquire(): DatasetSnapshot<S> {
    const s = this.snapshot
    s.refs++
    return s
  }

  /** Lets go of an acquired snapshot; the last request of a retired one closes its dataset. */
  release(s: DatasetSnapshot<S>): void {
    if (--s.refs === 0 && s.retired) s.dataset.close()
  }

  /**
   * Serves `next` from now on (its services built here unless given); the previous snapshot is
   * returned, and its dataset is closed at once when no request holds it, else by the last
   * `release`.
   */
  swap(next: OpenDataset, services: S = this.build(next), name: string = basename(next.dir)): DatasetSnapshot<S> {
    const prev = this.snapshot
    this.snapshot = new DatasetSnapshot(next, services, name)
    prev.retired = true
    if (prev.refs === 0) prev.dataset.close()
    return prev
  }
}
