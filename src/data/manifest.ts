import { createHash } from 'node:crypto'
import { z } from 'zod'

/** Bumped whenever the layout or meaning of a dataset file changes; the server refuses others. */
export const DATASET_FORMAT_VERSION = 1
export const MANIFEST_FILE = 'manifest.json'

/** Dataset domains, and the export.json key each one is named by. */
export const DOMAINS = ['plots', 'parcels', 'encumbrances', 'jurisdiction'] as const
export type Domain = (typeof DOMAINS)[number]
export const EXPORT_KEY: Record<Domain, string> = {
  plots: 'plots',
  parcels: 'cadastre',
  encumbrances: 'encumbrances',
  jurisdiction: 'boundaries',
}

/** What kind of bytes a file holds; the server checks the header of each kind at start. */
export const FILE_KINDS = ['sqlite', 'kdbush', 'flatbush', 'u32', 'u8', 'strings', 'lpi-hash'] as const
export type FileKind = (typeof FILE_KINDS)[number]

const LayerStatsSchema = z.object({
  rows: z.number().int().nonnegative(),
  rejected: z.number().int().nonnegative(),
  repaired: z.number().int().nonnegative(),
  /** rows with a ring wound against RFC 7946 and turned (absent from datasets built before the count) */
  reoriented: z.number().int().nonnegative().optional(),
  /** exact duplicates of an earlier row, dropped (absent from datasets built before the count) */
  duplicates: z.number().int().nonnegative().optional(),
  /** source label points that lay outside their parcel, replaced by a computed one (parcels; absent before) */
  labels_replaced: z.number().int().nonnegative().optional(),
  /** free-form per-layer facts the service needs (e.g. id offsets) */
  meta: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
})
export type LayerStats = z.infer<typeof LayerStatsSchema>

const DomainSchema = z.object({
  dataset_version: z.string().min(1),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  layers: z.record(z.string(), LayerStatsSchema),
})
export type DomainManifest = z.infer<typeof DomainSchema>

const FileSchema = z.object({
  path: z
    .string()
    .regex(/^[a-z0-9_\-./]+$/)
    .refine((p) => !p.includes('..') && !p.startsWith('/'), 'path must stay inside the dataset'),
  kind: z.enum(FILE_KINDS),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})
export type ManifestFile = z.infer<typeof FileSchema>

export const ManifestSchema = z.object({
  format: z.literal('landdata-dataset'),
  format_version: z.number().int(),
  tool: z.object({ name: z.string(), version: z.string() }),
  source: z.object({ scale: z.string().optional(), seed: z.number().optional() }).optional(),
  domains: z.object({
    plots: DomainSchema.optional(),
    parcels: DomainSchema.optional(),
    encumbrances: DomainSchema.optional(),
    jurisdiction: DomainSchema.optional(),
  }),
  files: z.array(FileSchema),
  /**
   * One digest of the whole build: `buildDigest(files)`. Absent from datasets built before it; the
   * server still opens those, and says so when it starts (docs/operations.md "Dataset integrity").
   */
  build_digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /**
   * Per domain built, the SHA-256 of its inputs (build-index/inputs.ts): what `build-index --reuse`
   * compares to link a domain of a previous build instead of rebuilding it (docs/operations.md
   * "Building and verifying"). Absent from datasets built before it.
   */
  inputs: z
    .object({
      plots: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
      parcels: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
      encumbrances: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
      jurisdiction: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
    })
    .optional(),
})
export type Manifest = z.infer<typeof ManifestSchema>

/** Serialises a manifest with sorted keys, so equal content gives equal bytes. */
export function stringifyManifest(m: Manifest): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort)
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      )
    return v
  }
  return JSON.stringify(sort(m), null, 2) + '\n'
}

/**
 * The digest of a whole build: the SHA-256 of one line `path\tsha256\tsize\n` per file, the
 * lines sorted by code unit (paths hold only `[a-z0-9_\-./]`, all above the tab, so that is path
 * order), so the order the files are listed in does not matter and any file's change does. Written
 * by build-index into the manifest, and checked against the file list by the server.
 */
export function buildDigest(files: readonly Pick<ManifestFile, 'path' | 'sha256' | 'size'>[]): string {
  const lines = files.map((f) => `${f.path}\t${f.sha256}\t${f.size}\n`).sort()
  const h = createHash('sha256')
  for (const line of lines) h.update(line)
  return h.digest('hex')
}
