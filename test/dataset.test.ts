import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, inject, it } from 'vitest'
import { buildDataset } from '../build-index/build.js'
import { verifyDataset } from '../build-index/verify.js'
import { MAX_MMAP_BYTES, openDataset, DatasetError, readWhole } from '../src/data/open-dataset.js'
import { loadServices } from '../src/services.js'
import { json, makeTestApp } from './helpers.js'
import { parcelFixtureLines } from './fixtures/parcel-fixtures.js'

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}

const tmp = () => mkdtempSync(join(inject('workDir'), 'ds-'))

/** A cadastre export holding one WC erf layer of `lines`; returns the source dir and the layer folder. */
function erfSource(lines: string[], exportId: string): { source: string; wc: string } {
  const source = tmp()
  const wc = join(source, 'south_africa', 'cadastre', 'WC')
  mkdirSync(wc, { recursive: true })
  writeFileSync(join(source, 'export.json'), JSON.stringify({ cadastre: { export_id: exportId, as_of: '2026-09-30' } }))
  writeFileSync(join(wc, 'erf.geojsonl'), `${lines.join('\n')}\n`)
  return { source, wc }
}

describe('build-index', () => {
  it('gives a byte-identical directory for the same inputs', async () => {
    const a = join(tmp(), 'a')
    const b = join(tmp(), 'b')
    await buildDataset({ source: inject('sourceDir'), out: a, log: () => {} })
    await buildDataset({ source: inject('sourceDir'), out: b, log: () => {} })
    const files = listFiles(a)
    expect(files).toEqual(listFiles(b))
    expect(files).toContain('manifest.json')
    expect(files).toContain('plots/botswana.kdbush')
    for (const f of files) expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true)
  })

  it('writes a manifest with versions, row counts and every file with sha256 and size', () => {
    const m = JSON.parse(readFileSync(join(inject('datasetDir'), 'manifest.json'), 'utf8'))
    expect(m.format_version).toBe(1)
    expect(m.tool.name).toBe('build-index')
    expect(m.domains.plots.dataset_version).toMatch(/^plots-/)
    expect(m.domains.plots.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(m.domains.plots.layers.botswana.rows).toBeGreaterThan(1000)
    expect(m.domains.plots.layers.south_africa.meta.id_offset).toBe(m.domains.plots.layers.botswana.rows)
    for (const f of m.files) expect(statSync(join(inject('datasetDir'), f.path)).size).toBe(f.size)
  })

  it('fails on a bad source row naming file and line, and counts it with --allow-rejects', async () => {
    const src = join(tmp(), 'src')
    cpSync(inject('sourceDir'), src, { recursive: true })
    const plots = join(src, 'botswana', 'plots.csv')
    const line = readFileSync(plots, 'utf8').trimEnd().split('\n').length + 1
    appendFileSync(plots, 'X1,not-a-lat,25.9,Gaborone,Gaborone City\n')
    const lines: string[] = []
    await expect(buildDataset({ source: src, out: join(tmp(), 'o'), log: (l) => lines.push(l) })).rejects.toThrow(
      /1 source rows were rejected/,
    )
    expect(lines.join('\n')).toContain(`plots.csv:${line}`)
    const m = await buildDataset({ source: src, out: join(tmp(), 'o2'), allowRejects: true, log: () => {} })
    expect(m.domains.plots!.layers.botswana.rejected).toBe(1)
  })

  it('refuses a parcel layer whose FeatureCollection file was cut between two features, even with --allow-rejects', async () => {
    const source = tmp()
    const wc = join(source, 'south_africa', 'cadastre', 'WC')
    mkdirSync(wc, { recursive: true })
    const erven = parcelFixtureLines().get('erf')!.trimEnd().split('\n')
    // a whole collection of the erven, then the same cut after its third feature and comma
    const collection = (features: string[], end: string) =>
      `{"type":"FeatureCollection","features":[${features.join(',')}${end}`
    writeFileSync(
      join(source, 'export.json'),
      JSON.stringify({ cadastre: { export_id: 'csg-cut', as_of: '2026-09-30' } }),
    )
    writeFileSync(join(wc, 'erf.geojson'), collection(erven, ']}\n'))
    const m = await buildDataset({ source, out: join(tmp(), 'whole'), log: () => {} })
    expect(m.domains.parcels!.layers['WC/erf'].rows).toBe(erven.length)
    const cut = join(wc, 'erf.geojson')
    writeFileSync(cut, collection(erven.slice(0, 3), ','))
    for (const allowRejects of [false, true])
      await expect(buildDataset({ source, out: join(tmp(), 'cut'), allowRejects, log: () => {} })).rejects.toThrow(
        `${cut}: truncated: the file ends at byte`,
      )
  })

  it('counts re-oriented rows among the rows kept only, not their dropped duplicates (issue #39 item 7)', async () => {
    const good = parcelFixtureLines().get('erf')!.trimEnd().split('\n')
    // the first erf wound clockwise (as ESRI winds exteriors), then its exact duplicate
    const f = JSON.parse(good[0])
    f.geometry.coordinates = f.geometry.coordinates.map((r: number[][]) => [...r].reverse())
    const wound = JSON.stringify(f)
    const build = async (lines: string[]) => {
      const { source } = erfSource(lines, 'csg-w')
      return (await buildDataset({ source, out: join(tmp(), 'ds'), log: () => {} })).domains.parcels!.layers['WC/erf']
    }
    // the fixture holds wound rows of its own
    const before = (await build(good)).reoriented!
    expect(await build([wound, wound, ...good.slice(1)])).toMatchObject({
      rows: good.length,
      duplicates: 1,
      reoriented: before + 1,
    })
  })

  it('with --allow-rejects still fails a layer that lost more than 5 % of its rows, or all, naming it', async () => {
    const good = parcelFixtureLines().get('erf')!.trimEnd().split('\n')
    const bad = (n: number) => Array.from({ length: n }, (_, k) => `{"type":"Feature","properties":{"id":"BAD${k}"}}`)
    const build = async (lines: string[]) => {
      const { source, wc } = erfSource(lines, 'csg-loss')
      // a whole second layer, so the farm portions' rows are never the ones at fault
      writeFileSync(join(wc, 'farm_portion.geojsonl'), parcelFixtureLines().get('farm_portion')!)
      return buildDataset({ source, out: join(tmp(), 'ds'), allowRejects, log: () => {} })
    }
    let allowRejects = true
    // every row rejected: the layer is named (not "the export holds no parcel layer")
    await expect(build(bad(4))).rejects.toThrow(
      /parcels\/WC\/erf: 4 of 4 rows were rejected \(see above\), every row of the layer; first rejected row: [^;]+; even with --allow-rejects/,
    )
    // without the flag, the build does not suggest a flag that would refuse it too (issue #39 item 7)
    allowRejects = false
    const without = build(bad(4))
    await expect(without).rejects.toThrow(/every row of the layer; first rejected row: [^;:]+: fix the export/)
    await expect(without).rejects.not.toThrow('pass --allow-rejects')
    allowRejects = true
    // one bad row among the fixture's erven: more than 5 %
    await expect(build([...good, ...bad(1)])).rejects.toThrow(`parcels/WC/erf: 1 of ${good.length + 1} rows`)
    // one bad row in 21 or more: within 5 %, built and counted
    const distinct = Array.from({ length: 20 }, (_, k) => {
      const f = JSON.parse(good[2])
      const lpi = `C0130777${String(100 + k).padStart(8, '0')}00000`
      f.properties = { ...f.properties, id: lpi, prcl_key: `${lpi}00001`, parcel_no: 100 + k }
      return JSON.stringify(f)
    })
    const m = await build([...distinct, ...bad(1)])
    expect(m.domains.parcels!.layers['WC/erf']).toMatchObject({ rows: 20, rejected: 1 })
  })

  it('names every required column a layer lacks in one message (issue #39 item 7)', async () => {
    // the cadastre's erven with id and lstatus renamed, as an export with other column names
    const renamed = parcelFixtureLines()
      .get('erf')!
      .trimEnd()
      .split('\n')
      .map((line) => {
        const f = JSON.parse(line)
        const { id, lstatus, ...rest } = f.properties
        f.properties = { ...rest, lpi_code: id, l_status: lstatus }
        return JSON.stringify(f)
      })
    const { source } = erfSource(renamed, 'csg-c')
    const lines: string[] = []
    const n = renamed.length
    await expect(buildDataset({ source, out: join(tmp(), 'ds'), log: (l) => lines.push(l) })).rejects.toThrow(
      `parcels/WC/erf: ${n} of ${n} rows were rejected (see above), every row of the layer; first rejected row: ` +
        'id (LPI) and lstatus are blank',
    )
    expect(lines[0]).toMatch(/erf.geojsonl:1: id \(LPI\) and lstatus are blank$/)

    // a CSV header: every column missing, the coordinates' and the layer's own, in one message
    const src = join(tmp(), 'src')
    cpSync(inject('sourceDir'), src, { recursive: true })
    const plots = join(src, 'botswana', 'plots.csv')
    const [, ...body] = readFileSync(plots, 'utf8').split('\n')
    writeFileSync(plots, ['plot_number,lat_dd,longitude,town,district', ...body].join('\n'))
    await expect(buildDataset({ source: src, out: join(tmp(), 'o'), log: () => {} })).rejects.toThrow(
      `${plots}: no latitude and city columns in the CSV header (expected latitude or lat)`,
    )
  })

  it('rejects rows outside their country, saying when latitude and longitude look swapped', async () => {
    const src = join(tmp(), 'src')
    cpSync(inject('sourceDir'), src, { recursive: true })
    const plots = join(src, 'botswana', 'plots.csv')
    const first = readFileSync(plots, 'utf8').trimEnd().split('\n').length + 1
    // plot_number,latitude,longitude: Gaborone with its two columns crossed, then a plot in Cape Town
    appendFileSync(plots, 'X1,25.9086,-24.6545,Gaborone,Gaborone City\nX2,-33.92,18.42,Gaborone,Gaborone City\n')
    const lines: string[] = []
    await expect(buildDataset({ source: src, out: join(tmp(), 'o'), log: (l) => lines.push(l) })).rejects.toThrow(
      /2 source rows were rejected/,
    )
    expect(lines.join('\n')).toContain(
      `plots.csv:${first}: coordinates outside Botswana (-24.6545, 25.9086 as longitude, latitude): latitude and ` +
        'longitude look swapped',
    )
    expect(lines.join('\n')).toContain(`plots.csv:${first + 1}: coordinates outside Botswana (18.42, -33.92 as`)
  })

  it('without a terminal, logs one line per layer and step, then a summary with the time taken', () => {
    const out = join(tmp(), 'cli')
    const r = spawnSync(process.execPath, ['dist/build-index.js', '--source', inject('sourceDir'), '--out', out], {
      encoding: 'utf8',
    })
    expect(r.status).toBe(0)
    expect(r.stderr).not.toContain('\r')
    const lines = r.stderr.trimEnd().split('\n')
    // each step's summary once, never a line per tenth of a file
    const botswana = lines.filter((l) => l.startsWith('plots/botswana:'))
    expect(botswana).toHaveLength(1)
    expect(botswana[0]).toMatch(/^plots\/botswana: \d+ rows, \d+ rejected in \d+\.\d s$/)
    expect(r.stderr).not.toMatch(/: \d+% \(/)
    // the per-province files of a layer are summed into one line for the layer
    expect(lines.filter((l) => /^parcels\/[A-Z]+\/erf:/.test(l))).toEqual([])
    const erf = /^parcels\/erf: [\d,]+ rows from \d+ provinces?, [\d,]+ repaired, [\d,]+ rejected$/
    expect(lines.filter((l) => erf.test(l))).toHaveLength(1)
    expect(lines.at(-1)!.startsWith(`built ${out} in `)).toBe(true)
    expect(lines.at(-1)).toMatch(/ in \d+ (min \d+ )?s \(\d+ files; /)
    // tens of lines for the whole build (the fixture has a few dozen layers)
    expect(lines.length).toBeLessThan(80)
  })
})

describe('verify', () => {
  it('passes an intact dataset and names the file with one flipped byte', async () => {
    expect(await verifyDataset(inject('datasetDir'))).toEqual([])
    const copy = join(tmp(), 'ds')
    cpSync(inject('datasetDir'), copy, { recursive: true })
    const target = join(copy, 'plots', 'south_africa.kdbush')
    const bytes = readFileSync(target)
    bytes[bytes.length >> 1] ^= 0x01
    writeFileSync(target, bytes)
    expect(await verifyDataset(copy)).toEqual(['plots/south_africa.kdbush: sha256 does not match the manifest'])
    const r = spawnSync(process.execPath, ['dist/verify.js', copy], { encoding: 'utf8' })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('plots/south_africa.kdbush')
  })
})

describe('opening a dataset', () => {
  it('stops with a clear message when a file size or header does not match the manifest', () => {
    const copy = join(tmp(), 'ds')
    cpSync(inject('datasetDir'), copy, { recursive: true })
    appendFileSync(join(copy, 'plots', 'botswana.sqlite'), 'x')
    expect(() => openDataset(copy)).toThrow(DatasetError)
    expect(() => openDataset(copy)).toThrow(/plots\/botswana\.sqlite is \d+ bytes, the manifest says \d+/)

    const copy2 = join(tmp(), 'ds2')
    cpSync(inject('datasetDir'), copy2, { recursive: true })
    const f = join(copy2, 'plots', 'botswana.kdbush')
    const b = readFileSync(f)
    b[0] = 0
    writeFileSync(f, b)
    expect(() => openDataset(copy2)).toThrow(/plots\/botswana\.kdbush: not a KDBush index/)
  })

  it('the server refuses to start on a damaged dataset, naming the file', () => {
    const copy = join(tmp(), 'ds')
    cpSync(inject('datasetDir'), copy, { recursive: true })
    appendFileSync(join(copy, 'plots', 'south_africa.city-ids.u32'), 'xxxx')
    const r = spawnSync(process.execPath, ['dist/server.js'], {
      encoding: 'utf8',
      env: { ...process.env, DATASET_DIR: copy, PORT: '0', KEYS_DB: join(copy, 'k.db') },
      timeout: 20_000,
    })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('south_africa.city-ids.u32')
  })
})

describe('South African erven derived from the cadastre', () => {
  it('without erven.csv, every erf passing the default status filter becomes one plot record', async () => {
    const source = tmp()
    const wc = join(source, 'south_africa', 'cadastre', 'WC')
    mkdirSync(wc, { recursive: true })
    for (const [layer, lines] of parcelFixtureLines()) writeFileSync(join(wc, `${layer}.geojsonl`), lines)
    writeFileSync(
      join(source, 'export.json'),
      JSON.stringify({
        plots: { export_id: 'plots-derived', as_of: '2026-11-01' },
        cadastre: { export_id: 'csg-x', as_of: '2026-09-30' },
      }),
    )
    const out = join(tmp(), 'ds')
    const m = await buildDataset({ source, out, log: () => {} })
    expect(m.domains.plots!.layers.south_africa.meta!.derived_from).toBe('cadastre erf layers')
    const ds = openDataset(out)
    try {
      const rows = ds
        .sqlite('plots/south_africa.sqlite')
        .prepare(
          'SELECT p.plot_number, p.latitude, p.longitude, c.name, c.region FROM plot p JOIN city c ON c.id = ' +
            'p.city_id ORDER BY p.id',
        )
        .all()
      // erf 1 (current version only), 2, 3, 4, 7–10; erf 5 (archived) and 6 (withdrawn) are hidden
      expect(rows).toEqual(
        [1, 2, 3, 4, 7, 8, 9, 10].map((n) =>
          expect.objectContaining({ plot_number: String(n), name: 'FIXTURE TOWN', region: 'WESTERN CAPE' }),
        ),
      )
    } finally {
      ds.close()
    }
  })
})

describe('openDataset mmap', () => {
  it('maps as much of each SQLite file as SQLite allows by default, and as much as asked otherwise', () => {
    const mapped = (opts?: { mmapBytes?: number }) => {
      const ds = openDataset(inject('datasetDir'), opts)
      try {
        return ds.sqlite('parcels/parcels.sqlite').pragma('mmap_size', { simple: true })
      } finally {
        ds.close()
      }
    }
    // SQLite holds the request to its own cap (0x7fff0000, just under 2 GiB)
    const cap = mapped()
    expect(cap).toBeGreaterThanOrEqual(2047 * 2 ** 20)
    expect(cap).toBeLessThanOrEqual(MAX_MMAP_BYTES)
    expect(mapped({ mmapBytes: 0 })).toBe(0)
    expect(mapped({ mmapBytes: 64 * 2 ** 20 })).toBe(64 * 2 ** 20)
    // SQLITE_MMAP_MB=2048 (the default) asks for 2 GiB: the same cap
    expect(mapped({ mmapBytes: 2048 * 2 ** 20 })).toBe(cap)
  })
})

describe('preload and loadServices', () => {
  const copyOf = () => {
    const dir = join(tmp(), 'copy')
    cpSync(inject('datasetDir'), dir, { recursive: true })
    return dir
  }
  const bytes = (ab: ArrayBuffer) => Buffer.from(new Uint8Array(ab))

  it("preload reads one domain's index files (or all) ahead: arrayBuffer hands over those bytes once", async () => {
    const dir = copyOf()
    const ds = openDataset(dir, { mapIndexes: false })
    expect(ds.indexes).toBe('read')
    try {
      const kd = 'plots/botswana.kdbush'
      const want = readFileSync(join(dir, kd))
      await ds.preload('plots')
      // gone from disk after the preload: the plots files come from memory, the others do not
      rmSync(join(dir, kd))
      rmSync(join(dir, 'parcels/parcels.flatbush'))
      expect(bytes(ds.arrayBuffer(kd)).equals(want)).toBe(true)
      // each preloaded copy is handed over once; a second call reads the file again
      expect(() => ds.arrayBuffer(kd)).toThrow(/ENOENT/)
      expect(() => ds.arrayBuffer('parcels/parcels.flatbush')).toThrow(/ENOENT/)
      // every domain: each non-SQLite file, gone from disk, equals the original file's bytes
      const dir2 = copyOf()
      const all = openDataset(dir2, { mapIndexes: false })
      await all.preload()
      const files = all.manifest.files.filter((f) => f.kind !== 'sqlite')
      for (const f of files) rmSync(join(dir2, f.path))
      for (const f of files)
        expect(bytes(all.arrayBuffer(f.path)).equals(readFileSync(join(inject('datasetDir'), f.path))), f.path).toBe(
          true,
        )
      all.close()
    } finally {
      ds.close()
    }
  })

  it('reads a file larger than its chunk size in parallel chunks, byte for byte', async () => {
    const file = join(inject('datasetDir'), 'plots/south_africa.kdbush')
    const want = readFileSync(file)
    // an odd chunk size: the last chunk is a short one
    expect(want.length % 4099).not.toBe(0)
    expect(bytes(await readWhole(file, 'x', 4099)).equals(want)).toBe(true)
    await expect(readWhole(join(inject('datasetDir'), 'nope.u32'), 'nope.u32')).rejects.toThrow(
      /nope\.u32: cannot open/,
    )
  })

  it('a file gone before its preload fails with a DatasetError naming it', async () => {
    const dir = copyOf()
    const ds = openDataset(dir, { mapIndexes: false })
    rmSync(join(dir, 'parcels/parcels.prefilter.u8'))
    await expect(ds.preload()).rejects.toThrow(DatasetError)
    await expect(loadServices(ds)).rejects.toThrow(/parcels\/parcels\.prefilter\.u8: cannot open/)
    ds.close()
  })

  it(
    'maps the index files by default (the native addon is built): the same bytes, a preload with nothing to read, ' +
      'a missing file named',
    async () => {
      const dir = copyOf()
      const ds = openDataset(dir)
      try {
        expect(ds.indexes).toBe('mapped')
        for (const f of ds.manifest.files.filter((f) => f.kind !== 'sqlite'))
          expect(bytes(ds.arrayBuffer(f.path)).equals(readFileSync(join(dir, f.path))), f.path).toBe(true)
        await ds.preload()
        rmSync(join(dir, 'plots/botswana.kdbush'))
        expect(() => ds.arrayBuffer('plots/botswana.kdbush')).toThrow(DatasetError)
        expect(() => ds.arrayBuffer('plots/botswana.kdbush')).toThrow(
          /plots\/botswana\.kdbush: cannot open .*No such file/,
        )
      } finally {
        ds.close()
      }
    },
  )

  it('loadServices answers every service as buildServices does, the index files read or mapped', async () => {
    const dataset = openDataset(inject('datasetDir'), { mapIndexes: false })
    const loaded = makeTestApp({ loaded: { dataset, services: await loadServices(dataset) } })
    const built = makeTestApp()
    const a = loaded.issue().key
    const b = built.issue().key
    // probes at real plots and parcels of the test dataset
    const plots = dataset
      .sqlite('plots/south_africa.sqlite')
      .prepare('SELECT latitude, longitude FROM plot ORDER BY id LIMIT 6')
      .all() as { latitude: number; longitude: number }[]
    const parcels = dataset
      .sqlite('parcels/parcels.sqlite')
      .prepare('SELECT lpi, label_lat, label_lon FROM parcel ORDER BY id LIMIT 6')
      .all() as { lpi: string; label_lat: number; label_lon: number }[]
    const urls = [
      ...plots.flatMap((p) => [
        `/api/v1/plots/reverse?latitude=${p.latitude}&longitude=${p.longitude}`,
        `/api/v1/plots/search-given-coordinates?latitude=${p.latitude}&longitude=${p.longitude}&radius=500&limit=100`,
      ]),
      ...parcels.flatMap((p) => [
        `/api/v1/parcels/at?latitude=${p.label_lat}&longitude=${p.label_lon}`,
        `/api/v1/jurisdiction/at?lat=${p.label_lat}&lon=${p.label_lon}`,
        `/api/v1/encumbrances/parcel/${p.lpi}`,
      ]),
    ]
    let ok = 0
    for (const url of urls) {
      const [x, y] = [await loaded.get(url, a), await built.get(url, b)]
      expect(x.status, url).toBe(y.status)
      expect(await json(x), url).toEqual(await json(y))
      if (x.status === 200) ok++
    }
    // the comparison means something: nearly every probe found its answer
    expect(ok).toBeGreaterThanOrEqual(urls.length - 2)
  })
})
