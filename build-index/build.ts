import { existsSync, renameSync, rmSync } from 'node:fs'
import { dirname, basename, join, resolve } from 'node:path'
import type { Domain, DomainManifest, Manifest } from '../src/data/manifest.js'
import { buildBoundaries } from './domains/build-boundaries.js'
import { buildEncumbrances } from './domains/build-encumbrances.js'
import { buildParcels } from './domains/build-parcels.js'
import { buildPlots } from './domains/build-plots.js'
import { buildParcelTiles } from './tiles/parcel-tiles.js'
import { buildPlotTiles } from './tiles/plot-tiles.js'
import { domainInputsDigest } from './inputs.js'
import { RejectLog } from './reject-log.js'
import { readPreviousBuild, reuseDomain } from './reuse.js'
import { readExportJson } from './sources/export-json.js'
import { DatasetWriter } from './write/dataset-writer.js'

export interface BuildOptions {
  source: string
  out: string
  allowRejects?: boolean
  force?: boolean
  /** a previous build whose domains with unchanged inputs are hard-linked, not rebuilt (reuse.ts) */
  reuse?: string
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
    const prev = opts.reuse ? readPreviousBuild(resolve(opts.reuse)) : null
    let hashMs = 0
    // One domain: its inputs digest, then reused from the previous build or built; `skipped` is
    // logged when the builder finds nothing to build.
    const step = async (
      domain: Domain,
      build: () => Promise<DomainManifest | null>,
      skipped: string,
      extra = '',
    ): Promise<void> => {
      const t0 = performance.now()
      const digest = await domainInputsDigest(source, exports, domain, extra)
      hashMs += performance.now() - t0
      if (prev && reuseDomain(prev, domain, digest, ds, !!opts.allowRejects, log)) {
        ds.setInputs(domain, digest)
        return
      }
      const m = await build()
      if (!m) return log(skipped)
      ds.setDomain(domain, m)
      ds.setInputs(domain, digest)
    }
    if (exports.plots)
      await step(
        'plots',
        async () => {
          const m = await buildPlots(source, ds, rejects, exports.plots!)
          // the point tiles, from the plot files just written (build-index/tiles/)
          if (m) await buildPlotTiles(ds, m.layers, log)
          return m
        },
        'plots: export.json names a plots export but no botswana/plots or south_africa/erven layer exists; ' +
          'domain skipped',
      )
    if (exports.cadastre)
      await step(
        'parcels',
        async () => {
          const m = await buildParcels(source, ds, rejects, exports.cadastre!, log)
          // the parcel tiles, from the parcel files just written (build-index/tiles/)
          if (m) await buildParcelTiles(ds, log)
          return m
        },
        'parcels: export.json names a cadastre export but south_africa/cadastre holds no parcel layer with a ' +
          'usable row; domain skipped',
      )
    if (exports.encumbrances)
      // after the parcels: the overlaps are computed against the parcel files just written (or
      // reused), so the parcel inputs are part of the encumbrance inputs
      await step(
        'encumbrances',
        () => buildEncumbrances(source, ds, rejects, exports.encumbrances!, log),
        'encumbrances: export.json names an encumbrance export but south_africa/encumbrances holds no layer ' +
          'with a usable row; domain skipped',
        `parcels ${ds.inputsOf('parcels') ?? 'none'}`,
      )
    if (exports.boundaries)
      await step(
        'jurisdiction',
        () => buildBoundaries(source, ds, rejects, exports.boundaries!, log),
        'jurisdiction: export.json names a boundaries export but south_africa/boundaries holds no set; domain ' +
          'skipped',
      )
    log(`inputs: hashed the source files of each domain in ${(hashMs / 1000).toFixed(2)} s`)
    const losses = layerLosses(rejects, {
      plots: ds.domainOf('plots'),
      parcels: ds.domainOf('parcels'),
      encumbrances: ds.domainOf('encumbrances'),
      boundaries: ds.domainOf('jurisdiction'),
    })
    if (losses.length)
      throw new BuildError(
        opts.allowRejects
          ? `${losses[0]}; even with --allow-rejects a layer may lose at most ${MAX_LAYER_LOSS * 100} % of its rows: ` +
              'fix the export'
          : // --allow-rejects would refuse these too: it is not offered
            `${rejects.total} source rows were rejected; ${losses.join('; ')}: fix the export ` +
              `(a layer may lose at most ${MAX_LAYER_LOSS * 100} % of its rows, even with --allow-rejects)`,
      )
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

/** The share of its rows a layer may lose to rejects under --allow-rejects (docs/decisions.md "Ingest integrity"). */
export const MAX_LAYER_LOSS = 0.05

/**
 * The layers that lost more than MAX_LAYER_LOSS of their rows, or all of them, each as
 * "<layer>: N of M rows were rejected …; first rejected row: <reason>": a layer reduced to a remnant is a broken export, not a
 * few bad rows, so --allow-rejects does not build it. Reject layer names are
 * `<domain prefix>/<manifest layer key>`.
 */
function layerLosses(rejects: RejectLog, domains: Record<string, DomainManifest | null>): string[] {
  const out: string[] = []
  for (const [name, rejected] of rejects.byLayer) {
    const [prefix, ...rest] = name.split('/')
    // the erven derived from the cadastre are rejected as `plots/south_africa (from WC erf)`
    const key = rest.join('/').replace(/ \(from .*\)$/, '')
    const kept = domains[prefix]?.layers[key]?.rows ?? 0
    const total = kept + rejected
    if (kept > 0 && rejected <= MAX_LAYER_LOSS * total) continue
    // the first reason, which only the first rows of the whole build have printed: a layer
    // that lost every row usually says why in it (several missing columns named at once)
    out.push(
      `${name}: ${rejected} of ${total} rows were rejected (see above)${kept === 0 ? ', every row of the layer' : ''}` +
        `; first rejected row: ${rejects.first(name)}`,
    )
  }
  return out
}
