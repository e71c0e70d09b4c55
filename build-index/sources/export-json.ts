// export.json names each source export; every api response reports it, so it is checked up front.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

/** The exports a source may name. */
export const EXPORT_KEYS = ['plots', 'cadastre', 'encumbrances', 'boundaries'] as const

/** Which export a dataset came from and the date it describes. */
export interface ExportInfo {
  export_id: string
  /** `YYYY-MM-DD` */
  as_of: string
}

/** The validated content of `export.json`; an export that is not named is absent. */
export type ExportJson = Partial<Record<(typeof EXPORT_KEYS)[number], ExportInfo>>

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a `YYYY-MM-DD` string that names a real calendar date. */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

const exportInfo = z.object(
  {
    export_id: z
      .string({ error: 'expected a non-empty string' })
      .refine((id) => id.trim() !== '', { error: 'expected a non-empty string' }),
    as_of: z
      .string({ error: 'expected YYYY-MM-DD' })
      .refine(isIsoDate, { error: (issue) => `expected YYYY-MM-DD (a real date), got ${JSON.stringify(issue.input)}` }),
  },
  { error: 'expected an object with export_id and as_of' },
)

// null is taken as "not named", like a missing key; unknown keys are dropped
const exportJson = z.object(
  Object.fromEntries(EXPORT_KEYS.map((key) => [key, exportInfo.nullish()])) as Record<
    (typeof EXPORT_KEYS)[number],
    z.ZodOptional<z.ZodNullable<typeof exportInfo>>
  >,
  { error: 'expected a JSON object' },
)

/**
 * Reads and validates `<sourceDir>/export.json`.
 * @throws an Error naming the file and every bad field, one per line
 *   (e.g. `/src/export.json: plots.as_of: expected YYYY-MM-DD ...`), or saying the file is missing
 */
export function readExportJson(sourceDir: string): ExportJson {
  const file = join(sourceDir, 'export.json')
  const parsed = exportJson.safeParse(parseJsonFile(file))
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `${file}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
    )
    throw new Error(lines.join('\n'))
  }
  const result: ExportJson = {}
  for (const key of EXPORT_KEYS) {
    const info = parsed.data[key]
    if (info) result[key] = { export_id: info.export_id, as_of: info.as_of }
  }
  return result
}

function parseJsonFile(file: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new Error(`${file}: missing; a source export must name its exports in export.json`)
    throw new Error(`${file}: cannot read: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new Error(`${file}: invalid JSON: ${(error as Error).message}`)
  }
}
