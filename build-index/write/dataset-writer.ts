import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import {
  buildDigest,
  DATASET_FORMAT_VERSION,
  MANIFEST_FILE,
  stringifyManifest,
  type Domain,
  type DomainManifest,
  type FileKind,
  type Manifest,
  type ManifestFile,
} from '../../src/data/manifest.js'
import { sha256File } from '../../src/data/file-hash.js'

export const TOOL_VERSION = '0.1.0'

// the one file hash of the project, shared with the server's checks and src/ship/
export { sha256File }

/**
 * Collects the files of a dataset being built and writes `manifest.json` last. Nothing time-
 * or machine-dependent goes in, so the same inputs give a byte-identical directory.
 */
export class DatasetWriter {
  private readonly files: { path: string; kind: FileKind; known?: ManifestFile }[] = []
  private readonly domains: Partial<Record<Domain, DomainManifest>> = {}
  private readonly inputs: Partial<Record<Domain, string>> = {}

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true })
  }

  /** Absolute path for a dataset-relative file, creating its folder. */
  pathOf(rel: string): string {
    const p = join(this.dir, rel)
    mkdirSync(dirname(p), { recursive: true })
    return p
  }

  addFile(rel: string, kind: FileKind): void {
    this.files.push({ path: rel, kind })
  }

  /**
   * Adds a file linked or copied from a previous build, with its size and sha256 from that build's
   * manifest, so finish() does not read it again (build.ts reuseDomain checks the size).
   */
  addReused(f: ManifestFile): void {
    this.files.push({ path: f.path, kind: f.kind, known: f })
  }

  writeBinary(rel: string, kind: FileKind, bytes: ArrayBuffer | Uint8Array): void {
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)
    writeFileSync(this.pathOf(rel), u8)
    this.addFile(rel, kind)
  }

  setDomain(name: Domain, m: DomainManifest): void {
    this.domains[name] = m
  }

  /** Records a domain's inputs digest (build-index/inputs.ts) in the manifest. */
  setInputs(name: Domain, digest: string): void {
    this.inputs[name] = digest
  }

  /** The inputs digest recorded for a domain so far, or null. */
  inputsOf(name: Domain): string | null {
    return this.inputs[name] ?? null
  }

  /** The manifest entry of a domain built so far, or null. */
  domainOf(name: Domain): DomainManifest | null {
    return this.domains[name] ?? null
  }

  async finish(source?: Manifest['source']): Promise<Manifest> {
    const files: ManifestFile[] = []
    for (const f of [...this.files].sort((a, b) => a.path.localeCompare(b.path))) {
      if (f.known) {
        files.push({ path: f.path, kind: f.kind, size: f.known.size, sha256: f.known.sha256 })
        continue
      }
      const p = join(this.dir, f.path)
      files.push({ path: f.path, kind: f.kind, size: statSync(p).size, sha256: await sha256File(p) })
    }
    const manifest: Manifest = {
      format: 'landdata-dataset',
      format_version: DATASET_FORMAT_VERSION,
      tool: { name: 'build-index', version: TOOL_VERSION },
      ...(source ? { source } : {}),
      domains: this.domains,
      files,
      build_digest: buildDigest(files),
      ...(Object.keys(this.inputs).length > 0 ? { inputs: this.inputs } : {}),
    }
    writeFileSync(join(this.dir, MANIFEST_FILE), stringifyManifest(manifest))
    return manifest
  }
}
