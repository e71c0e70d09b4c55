import { existsSync, renameSync, rmSync } from 'node:fs'
import { dirname, basename, join, resolve } from 'node:path'
import type { Manifest } from '../src/data/manifest.js'
import { buildBoundaries } from './domains/build-boundaries.js'
import { buildEncumbrances } from './domains/build-encumbrances.js'
import { buildParcels } from './domains/build-parcels.js'
import { buildPlots } from './domains/build-plots.js'
import { RejectLog } from './reject-log.js'
import { readExportJson } from './sources/export-json.js'
import { DatasetWriter } from './write/dataset-writer.js'

export interface BuildOptions {
  source: string
  out: string
  allowRejects?: boolean
  force?: boolean
  log?: (line: string) => void
}

export class BuildError extends Error {}

/**
 * Builds a dataset directory from a source export. Writes into a sibling temp directory and
 * renames it into place at the end, so a failed or interrupted build never leaves a directory
 * that looks complete.
 */
export async function buildDataset(opts: BuildOptions): Promise<Manifest> {
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'))
  const source = resolve(opts.source)
  const out = resolve(opts.out)
  if (!existsSync(source)) throw new BuildError(`source directory ${source} does not exist`)
  if (existsSync(out) && !opts.force) throw new BuildError(`${out} already exists; pass --force to replace it`)
  const exports = readExportJson(source)
  const tmp = join(dirname(out), `.${basename(out)}.building-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  const ds = new DatasetWriter(tmp)
  const rejects = new RejectLog(log)
  try {
    if (exports.plots) {
      const plots = await buildPlots(source, ds, rejects, exports.plots)
      if (plots) ds.setDomain('plots', plots)
      else
        log(
          'plots: export.json names a plots export but no botswana/plots or south_africa/erven layer exists; ' +
            'domain skipped',
        )
    }
    if (exports.cadastre) {
      const parcels = await buildParcels(source, ds, rejects, exports.cadastre, log)
      if (parcels) ds.setDomain('parcels', parcels)
      else
        log(
          'parcels: export.json names a cadastre export but south_africa/cadastre holds no parcel layer; domain ' +
            'skipped',
        )
    }
    if (exports.encumbrances) {
      // after the parcels: the overlaps are computed against the parcel files just written
      const encumbrances = await buildEncumbrances(source, ds, rejects, exports.encumbrances, log)
      if (encumbrances) ds.setDomain('encumbrances', encumbrances)
      else
        log(
          'encumbrances: export.json names an encumbrance export but south_africa/encumbrances holds no layer; ' +
            'domain skipped',
        )
    }
    if (exports.boundaries) {
      const boundaries = await buildBoundaries(source, ds, rejects, exports.boundaries, log)
      if (boundaries) ds.setDomain('jurisdiction', boundaries)
      else
        log(
          'jurisdiction: export.json names a boundaries export but south_africa/boundaries holds no set; domain ' +
            'skipped',
        )
    }
    if (rejects.total > 0 && !opts.allowRejects) {
      throw new BuildError(
        `${rejects.total} source rows were rejected (see above); fix the export or pass --allow-rejects to build ` +
          `without them`,
      )
    }
    const manifest = await ds.finish()
    rmSync(out, { recursive: true, force: true })
    renameSync(tmp, out)
    return manifest
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true })
    throw err
  }
}
