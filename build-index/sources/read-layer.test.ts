import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonFeatureToRow } from './geojson-feature.js'
import { findLayerFile, LAYER_EXTENSIONS, readLayer, type DeferredRow, type SourceRow } from './read-layer.js'
import { gpkgBlob, writeGpkg, type TestGeometry } from './testing/write-gpkg.js'
import { writeShapefile, type TestField } from './testing/write-shapefile.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'read-layer-'))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function collect(file: string, opts?: { pointLayer?: boolean; required?: string[] }): Promise<SourceRow[]> {
  const rows: SourceRow[] = []
  for await (const row of readLayer(file, opts)) rows.push(row)
  return rows
}

function ok(row: SourceRow | undefined): Extract<SourceRow, { ok: true }> {
  if (!row?.ok) throw new Error(`expected a read row, got ${JSON.stringify(row)}`)
  return row
}

function reasons(rows: SourceRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => !r.ok).map((r) => [r.ref, (r as { reason: string }).reason]))
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

describe('findLayerFile', () => {
  it('lists the extensions in order of preference', () => {
    expect(LAYER_EXTENSIONS).toEqual(['geojsonl', 'geojsons', 'geojson', 'gpkg', 'shp', 'csv'])
  })

  it('picks the first extension that exists, ignoring case and directories', () => {
    const layers = join(dir, 'find', 'GP')
    mkdirSync(join(layers, 'holding.geojsonl'), { recursive: true }) // a directory, not a layer
    writeFileSync(join(layers, 'erf.shp'), '')
    writeFileSync(join(layers, 'erf.geojsonl'), '')
    writeFileSync(join(layers, 'erf.csv'), '')
    writeFileSync(join(layers, 'FARM_PORTION.SHP'), '')
    writeFileSync(join(layers, 'holding.gpkg'), '')
    expect(findLayerFile(layers, 'erf')).toBe(join(layers, 'erf.geojsonl'))
    expect(findLayerFile(layers, 'farm_portion')).toBe(join(layers, 'FARM_PORTION.SHP'))
    expect(findLayerFile(layers, 'holding')).toBe(join(layers, 'holding.gpkg'))
    expect(findLayerFile(layers, 'street')).toBeNull()
    expect(findLayerFile(join(dir, 'find', 'NOPE'), 'erf')).toBeNull()
  })
})

describe('readLayer: file-level errors', () => {
  it('throws naming the file when it is missing or of an unknown format', async () => {
    const missing = join(dir, 'missing.geojsonl')
    await expect(collect(missing)).rejects.toThrow(`${missing}: layer file not found`)
    const txt = file('layer.txt', 'x')
    await expect(collect(txt)).rejects.toThrow(`${txt}: unsupported layer format ".txt"`)
  })
})

describe('readLayer: GeoJSONSeq', () => {
  it('reads one feature per line, with line refs, skipping blank lines and rejecting bad lines', async () => {
    const lines = [
      '{"type":"Feature","properties":{"Plot_Number":"  12 ","CITY":"Gaborone   ' +
        '","Empty":"","n":5,"flag":true,"nested":{"a":1},"gone":null},"geometry":{"type":"Point","coordinates":[25.9,-24.65,1010.5]}}',
      '',
      '\x1e{"type":"Feature","properties":null,"geometry":{"type":"Polygon","coordinates":[[[25,-24],[26,-24],[26,-25],[25,-24]]]}}\r',
      '{"type":"Feature", bad',
      '{"type":"Point","coordinates":[1,2]}',
      '{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[25,-24],[181,-24]]}}',
      '   ',
      '{"type":"Feature","properties":{"id":"x"},"geometry":null}',
      '{"type":"Feature","properties":{},"geometry":{"type":"GeometryCollection","geometries":[]}}',
      '{"type":"Feature","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[[[[1,2]]],"x"]}}',
      '{"type":"Feature","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[]}}',
      '{"type":"Feature","properties":[1],"geometry":null}',
      '{"type":"Feature","properties":{},"geometry":{"type":"MultiLineString","coordinates":[[[18.1,-33.9],[18.2,-33.8]]]}}',
    ]
    const path = file('seq.geojsonl', lines.join('\n'))
    const rows = await collect(path)
    expect(rows.map((r) => r.ref)).toEqual([1, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13].map((n) => `${path}:${n}`))

    const first = ok(rows[0])
    expect(first.properties).toEqual({
      plot_number: '  12',
      city: 'Gaborone',
      empty: null,
      n: 5,
      flag: true,
      nested: '{"a":1}',
      gone: null,
    })
    expect(first.geometry).toEqual({ type: 'Point', coordinates: [25.9, -24.65] })

    const polygon = ok(rows[1])
    expect(polygon.properties).toEqual({})
    expect(polygon.geometry).toEqual({
      type: 'Polygon',
      coordinates: [
        [
          [25, -24],
          [26, -24],
          [26, -25],
          [25, -24],
        ],
      ],
    })
    expect(ok(rows[5]).geometry).toBeNull()
    expect(ok(rows[5]).properties).toEqual({ id: 'x' })
    expect(ok(rows[8]).geometry).toBeNull()
    expect(ok(rows[10]).geometry).toEqual({
      type: 'MultiLineString',
      coordinates: [
        [
          [18.1, -33.9],
          [18.2, -33.8],
        ],
      ],
    })

    const rejected = reasons(rows)
    expect(Object.keys(rejected)).toEqual([4, 5, 6, 9, 10, 12].map((n) => `${path}:${n}`))
    expect(rejected[`${path}:4`]).toMatch(/^invalid JSON: /)
    expect(rejected[`${path}:5`]).toBe('not a GeoJSON Feature')
    expect(rejected[`${path}:6`]).toBe('coordinate out of range: [181, -24]')
    expect(rejected[`${path}:9`]).toBe('unsupported geometry type GeometryCollection')
    expect(rejected[`${path}:10`]).toBe('invalid geometry: MultiPolygon coordinates are malformed')
    expect(rejected[`${path}:12`]).toBe('properties is not an object')
  })

  it('reads RFC 8142 records, also pretty-printed over several lines (.geojsons)', async () => {
    const text =
      '\x1e{\n  "type": "Feature",\n  "properties": {"Code": "WC"},\n  "geometry": {"type": "Point", ' +
      '"coordinates": [18.4, -33.9]}\n}\n' + // 1-5
      '\x1e{"type":"Feature","properties":{"code":"GP"},"geometry":null}\n' + // 6
      '\x1e{"type":"Feature", bad}\n' + // 7
      '{"type":"Feature","properties":{"code":"NC"},"geometry":null}\n' + // 8
      '\x1e\n' + // 9, a bare separator
      '{"type":"Feature","properties":{"code":"EC"},"geometry":null}\n' + // 10
      '\x1e{"type":"Feature",\n"oops"\n' // 11-12, never closes
    const path = file('pretty.geojsons', text)
    const rows = await collect(path)
    expect(rows.map((r) => r.ref)).toEqual([1, 6, 7, 8, 10, 11].map((n) => `${path}:${n}`))
    expect(ok(rows[0]).properties).toEqual({ code: 'WC' })
    expect(ok(rows[0]).geometry).toEqual({ type: 'Point', coordinates: [18.4, -33.9] })
    expect(ok(rows[1]).properties).toEqual({ code: 'GP' })
    expect(rows[2]).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid JSON: /) })
    expect(ok(rows[3]).properties).toEqual({ code: 'NC' })
    expect(ok(rows[4]).properties).toEqual({ code: 'EC' })
    expect(rows[5]).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid JSON: /) })
  })

  it('with deferJson, hands one-line features over as text that parses to the row it would have read', async () => {
    const text =
      '{"type":"Feature","properties":{"Code":" WC "},"geometry":{"type":"Point","coordinates":[18.4,-33.9]}}\n' + // 1
      '\n' + // 2
      '{"type":"Feature", bad\n' + // 3
      '\x1e{"type":"Feature","properties":{"code":"GP"},"geometry":null}\n' + // 4: a separator-started record is parsed
      '{"type":"Feature","properties":{"code":"EC"},"geometry":{"type":"Point","coordinates":[181,0]}}\n' // 5
    const path = file('deferred.geojsonl', text)
    const plain = await collect(path)
    const deferred: (SourceRow | DeferredRow)[] = []
    for await (const row of readLayer(path, { deferJson: true })) deferred.push(row)
    expect(deferred.map((r) => r.ref)).toEqual(plain.map((r) => r.ref))
    expect(deferred.map((r) => r.ok)).toEqual(['json', 'json', true, 'json'])
    const parsed = deferred.map((r) => (r.ok === 'json' ? jsonFeatureToRow(r.text, r.ref) : r))
    expect(parsed).toEqual(plain)
    expect(parsed[1]).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid JSON: /) })
    expect(parsed[3]).toMatchObject({ ok: false, reason: 'coordinate out of range: [181, 0]' })
    // other formats read as usual
    const csv = file('deferred.csv', 'lat,lon,name\n-24.6,25.9,a\n')
    for await (const row of readLayer(csv, { deferJson: true })) expect(row.ok).toBe(true)
  })

  it('numbers lines correctly across read chunks and stops cleanly when the consumer breaks', async () => {
    const n = 40_000 // about 4 MB, several 1 MB chunks
    const lines: string[] = []
    for (let i = 1; i <= n; i++) {
      lines.push(
        `{"type":"Feature","properties":{"i":${i},"name":"Kgalagadi – Tsabong ${'x'.repeat(i % 50)}"},"geometry":{"type":"Point","coordinates":[22.4,-26.05]}}`,
      )
    }
    const path = file('big.geojsonl', lines.join('\r\n') + '\r\n')
    const rows = await collect(path)
    expect(rows.map((r) => [r.ref, ok(r).properties.i, ok(r).properties.name])).toEqual(
      Array.from({ length: n }, (_, k) => [
        `${path}:${k + 1}`,
        k + 1,
        `Kgalagadi – Tsabong ${'x'.repeat((k + 1) % 50)}`.trimEnd(),
      ]),
    )
    let seen = 0
    for await (const row of readLayer(path)) {
      expect(row.ok).toBe(true)
      if (++seen === 3) break
    }
    expect(seen).toBe(3)
  })
})

describe('readLayer: GeoJSON FeatureCollection', () => {
  it('numbers features with #, reads tricky strings and rejects bad elements alone', async () => {
    const text = `\uFEFF{
  "type": "FeatureCollection",
  "name": "x [a], {b}",
  "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:OGC:1.3:CRS84" }, "features": [1] },
  "features": [
    { "type": "Feature", "properties": { "Note": "has ] and } and \\" and , inside\\\\", "ID": 7 },
      "geometry": { "type": "Point", "coordinates": [28.2, -25.7] } },
    { "type": "Feature", },
    42,
    { "type": "Feature", "properties": {}, "geometry": { "type": "Polygon", "coordinates": [[[28, -25], [29, -25], [29, -26], [28, -25]]] } }
  ],
  "bbox": [28, -26, 29, -25]
}`
    const path = file('collection.geojson', text)
    const rows = await collect(path)
    expect(rows.map((r) => r.ref)).toEqual([1, 2, 3, 4].map((n) => `${path}#${n}`))
    expect(ok(rows[0]).properties).toEqual({ note: 'has ] and } and " and , inside\\', id: 7 })
    expect(ok(rows[0]).geometry).toEqual({ type: 'Point', coordinates: [28.2, -25.7] })
    expect(rows[1]).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid JSON: /) })
    expect(rows[2]).toEqual({ ok: false, ref: `${path}#3`, reason: 'not a GeoJSON Feature' })
    expect(ok(rows[3]).geometry?.type).toBe('Polygon')
  })

  it('streams a collection larger than a read chunk, multi-byte text intact', async () => {
    const n = 30_000
    const features: string[] = []
    for (let i = 1; i <= n; i++) {
      features.push(
        `{"type":"Feature","properties":{"i":${i},"name":"Ga-Rankuwa Zoné ${i}"},"geometry":{"type":"Point","coordinates":[27.99,-25.61]}}`,
      )
    }
    const path = file('big.geojson', `{"type":"FeatureCollection","features":[\n${features.join(',\n')}\n]}`)
    const rows = await collect(path)
    expect(rows.map((r) => [r.ref, ok(r).properties])).toEqual(
      Array.from({ length: n }, (_, k) => [`${path}#${k + 1}`, { i: k + 1, name: `Ga-Rankuwa Zoné ${k + 1}` }]),
    )
  })

  it('refuses a collection whose crs is not WGS84 longitude/latitude, naming it and the fix', async () => {
    const named = (name: string) => `{"type":"name","properties":{"name":"${name}"}}`
    const collection = (crs: string, pad = '') =>
      `{"type":"FeatureCollection",${pad}"crs":${crs},"features":[{"type":"Feature","properties":{},"geometry":null}]}`
    for (const [crs, shown] of [
      [named('urn:ogc:def:crs:EPSG::2048'), 'urn:ogc:def:crs:EPSG::2048'],
      [named('EPSG:3857'), 'EPSG:3857'],
      ['{"type":"EPSG","properties":{"code":32735}}', 'EPSG:32735'],
      ['{"type":"link","properties":{"href":"http://x/lo29.prj"}}', '{"type":"link"'],
    ]) {
      const path = file('projected.geojson', collection(crs))
      await expect(collect(path)).rejects.toThrow(`${path}: the file's crs is ${shown}`)
      await expect(collect(path)).rejects.toThrow('ogr2ogr -t_srs EPSG:4326')
    }
    for (const crs of [
      named('urn:ogc:def:crs:OGC:1.3:CRS84'),
      named('urn:ogc:def:crs:OGC::CRS84'),
      named('EPSG:4326'),
      named('urn:ogc:def:crs:EPSG::4326'),
      named('http://www.opengis.net/def/crs/OGC/1.3/CRS84'),
      '{"type":"EPSG","properties":{"code":4326}}',
      'null',
    ])
      expect((await collect(file('wgs84.geojson', collection(crs)))).map((r) => r.ok)).toEqual([true])
    // a crs object across the boundary of two read chunks (1 MiB) is read whole
    const lead = '{"type":"FeatureCollection","pad":"'
    const pad = `"pad":"${'x'.repeat(2 ** 20 - lead.length - 10)}",`
    const split = file('split.geojson', collection(named('EPSG:22235'), pad))
    await expect(collect(split)).rejects.toThrow(`${split}: the file's crs is EPSG:22235`)
  })

  it('throws for a truncated collection, wherever the cut, naming the file, the byte and the features before', async () => {
    const head = '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null}'
    const cuts: [string, string, string][] = [
      ['mid-feature.geojson', `${head},{"type":"Fea`, 'inside the "features" array, 1 complete features'],
      // exactly between two features: every feature read is whole, the rest of the layer is gone
      ['between.geojson', `${head},`, 'inside the "features" array, 1 complete features'],
      ['after-feature.geojson', head, 'inside the "features" array, 0 complete features'],
      ['no-close.geojson', `${head}]`, 'after it, 1 complete features'],
    ]
    for (const [name, text, where] of cuts) {
      const path = file(name, text)
      await expect(collect(path)).rejects.toThrow(
        `${path}: truncated: the file ends at byte ${Buffer.byteLength(text)} before the FeatureCollection closes (${where}`,
      )
    }
    const trailing = file('trailing.geojson', `${head}]}\n{"type":"FeatureCollection","features":[]}`)
    await expect(collect(trailing)).rejects.toThrow(
      `${trailing}: unexpected content at byte ${Buffer.byteLength(`${head}]}\n`)}, after the end of the FeatureCollection`,
    )
    const whole = file('whole.geojson', `\ufeff${head}]}\r\n\n  `)
    expect((await collect(whole)).map((r) => r.ok)).toEqual([true])

    const array = file('array.geojson', '[{"type":"Feature"}]')
    await expect(collect(array)).rejects.toThrow(`${array}: not a GeoJSON FeatureCollection`)
    const single = file('single.geojson', '{"type":"Feature","properties":{},"geometry":null}')
    await expect(collect(single)).rejects.toThrow(`${single}: not a GeoJSON FeatureCollection (no "features" array)`)
    const empty = file('empty.geojson', '{"type":"FeatureCollection","features":[]}')
    expect(await collect(empty)).toEqual([])
  })
})

describe('readLayer: CSV', () => {
  it('reads quoted fields, a BOM and CRLF, and rejects bad rows with their line numbers', async () => {
    const text =
      '\uFEFFPlot_Number,Latitude,Longitude,City,District\r\n' + // 1
      '1001,-24.6282,25.9231,Gaborone,South-East\r\n' + // 2
      '"1002","-24.65","25.91","Gaborone, Block 8","He said ""hi"""\r\n' + // 3
      '1003,-24.7,25.8,"Multi\r\nline, town",Kweneng\r\n' + // 4-5
      '\r\n' + // 6
      '1004,abc,25.8,Molepolole,Kweneng\r\n' + // 7
      '1005,-24.7,,Molepolole,Kweneng\r\n' + // 8
      '1006,-95,25.8,Molepolole,Kweneng\r\n' + // 9
      '1007,-24.7,25.8,Molepolole\r\n' + // 10
      '1008, -24.5 ,25.5,Mahalapye   ,' // 11, no final line break
    const path = file('plots.csv', text)
    const rows = await collect(path, { pointLayer: true })
    expect(rows.map((r) => r.ref)).toEqual([2, 3, 4, 7, 8, 9, 10, 11].map((n) => `${path}:${n}`))

    expect(ok(rows[0]).properties).toEqual({
      plot_number: '1001',
      latitude: -24.6282,
      longitude: 25.9231,
      city: 'Gaborone',
      district: 'South-East',
    })
    expect(ok(rows[0]).geometry).toEqual({ type: 'Point', coordinates: [25.9231, -24.6282] })
    expect(ok(rows[1]).properties).toMatchObject({
      plot_number: '1002',
      city: 'Gaborone, Block 8',
      district: 'He said "hi"',
    })
    expect(ok(rows[1]).geometry).toEqual({ type: 'Point', coordinates: [25.91, -24.65] })
    expect(ok(rows[2]).properties).toMatchObject({
      plot_number: '1003',
      city: 'Multi\nline, town',
      district: 'Kweneng',
    })
    expect(ok(rows[7]).properties).toEqual({
      plot_number: '1008',
      latitude: -24.5,
      longitude: 25.5,
      city: 'Mahalapye',
      district: null,
    })

    expect(reasons(rows)).toEqual({
      [`${path}:7`]: 'latitude is not a number ("abc")',
      [`${path}:8`]: 'longitude is not a number (blank)',
      [`${path}:9`]: 'coordinate out of range: [25.8, -95]',
      [`${path}:10`]: 'expected 5 fields, found 4',
    })
  })

  it('accepts lat/lon/lng column names in any case and reports an unterminated quote', async () => {
    const path = file(
      'aliases.csv',
      'erf_number,LAT,Lng,township\n12/3,-26.2,28.04,"Braamfontein\n13,-26.3,28.05,Parktown\n',
    )
    const rows = await collect(path)
    expect(rows).toEqual([{ ok: false, ref: `${path}:2`, reason: 'unterminated quoted field' }])

    const good = file('aliases-good.csv', 'erf_number,LAT,Lng,township\n12/3,-26.2,28.04,Braamfontein\n')
    const [row] = await collect(good)
    expect(ok(row).geometry).toEqual({ type: 'Point', coordinates: [28.04, -26.2] })
    expect(ok(row).properties).toEqual({ erf_number: '12/3', lat: -26.2, lng: 28.04, township: 'Braamfontein' })

    const lon = file('lon.csv', 'id,lat,lon\n1,-20,30\n')
    expect(ok((await collect(lon))[0]).geometry).toEqual({ type: 'Point', coordinates: [30, -20] })
  })

  it('throws for a header without coordinates, an empty file, or a layer that is not a point layer', async () => {
    const noLat = file('no-lat.csv', 'plot_number,x,longitude\n1,2,3\n')
    await expect(collect(noLat)).rejects.toThrow(`${noLat}: no latitude column in the CSV header`)
    const noLon = file('no-lon.csv', 'plot_number,latitude,y\n1,2,3\n')
    await expect(collect(noLon)).rejects.toThrow(`${noLon}: no longitude column in the CSV header`)
    // every missing column in one message: coordinates and the layer's required ones
    const several = file('several.csv', 'plot_number,x,y\n1,2,3\n')
    await expect(collect(several, { required: ['plot_number', 'city'] })).rejects.toThrow(
      `${several}: no latitude, longitude and city columns in the CSV header (expected latitude or lat; ` +
        'longitude or lon or lng or long)',
    )
    const noCity = file('no-city.csv', 'plot_number,lat,lon\n1,2,3\n')
    await expect(collect(noCity, { required: ['plot_number', 'city'] })).rejects.toThrow(
      `${noCity}: no city column in the CSV header`,
    )
    const empty = file('empty.csv', '')
    await expect(collect(empty)).rejects.toThrow(`${empty}: empty file, expected a CSV header`)
    const erf = file('erf.csv', 'latitude,longitude\n-26,28\n')
    await expect(collect(erf, { pointLayer: false })).rejects.toThrow(`${erf}: CSV holds point layers only`)
  })

  it('keeps line numbers right across read chunks with multi-line records', async () => {
    const parts = ['plot_number,latitude,longitude,city']
    const expected: { line: number; plot: string; city: string }[] = []
    let line = 2
    for (let i = 1; i <= 60_000; i++) {
      const multi = i % 997 === 0
      const city = multi ? `Old\nTown ${i}` : `Town ${i}`
      parts.push(`${i},-24.${i % 1000},25.${i % 1000},${multi ? `"${city}"` : city}`)
      expected.push({ line, plot: String(i), city })
      line += multi ? 2 : 1
    }
    const path = file('big.csv', parts.join('\n') + '\n')
    const rows = await collect(path)
    expect(rows.map((r) => [r.ref, ok(r).properties.plot_number, ok(r).properties.city])).toEqual(
      expected.map((e) => [`${path}:${e.line}`, e.plot, e.city]),
    )
  })
})

describe('readLayer: GeoPackage', () => {
  const square = (x: number, y: number, z = 0) => [
    [x, y, z],
    [x + 1, y, z],
    [x + 1, y + 1, z],
    [x, y + 1, z],
    [x, y, z],
  ]
  const polygonWithHole: TestGeometry = {
    type: 'Polygon',
    coordinates: [
      [
        [18, -34],
        [19, -34],
        [19, -33],
        [18, -33],
        [18, -34],
      ],
      [
        [18.2, -33.8],
        [18.2, -33.2],
        [18.8, -33.2],
        [18.8, -33.8],
        [18.2, -33.8],
      ],
    ],
  }
  const strip = (coordinates: unknown): unknown =>
    Array.isArray(coordinates) && typeof coordinates[0] === 'number'
      ? coordinates.slice(0, 2)
      : (coordinates as unknown[]).map(strip)

  function erfTable() {
    const polygonBlob = gpkgBlob(polygonWithHole, { bigEndian: true, headerBigEndian: true, envelope: 1 })
    const blobs: (Buffer | null | string)[] = [
      gpkgBlob({ type: 'Point', coordinates: [25.9, -24.65] }),
      polygonBlob,
      gpkgBlob(
        { type: 'MultiPolygon', coordinates: [[square(28, -26, 1500)], [square(30, -26, 1600)]] },
        { dims: 'xyz', envelope: 2 },
      ),
      gpkgBlob(
        {
          type: 'LineString',
          coordinates: [
            [27, -25, 1, 9],
            [27.5, -25.5, 2, 8],
          ],
        },
        { dims: 'xyzm', extraStyle: 'ewkb' },
      ),
      gpkgBlob(
        {
          type: 'MultiPoint',
          coordinates: [
            [31, -29, 5],
            [31.1, -29.1, 6],
          ],
        },
        { dims: 'xym', bigEndian: true },
      ),
      gpkgBlob({
        type: 'MultiLineString',
        coordinates: [
          [
            [20, -30],
            [21, -31],
          ],
          [
            [22, -32],
            [23, -33],
          ],
        ],
      }),
      gpkgBlob(null),
      null,
      gpkgBlob({ type: 'Point', coordinates: [200, 0] }),
      gpkgBlob({ type: 'GeometryCollection', coordinates: [] }),
      polygonBlob.subarray(0, polygonBlob.length - 20),
      Buffer.from('XX not a geometry'),
      gpkgBlob({ type: 'Point', coordinates: [NaN, NaN] }),
      gpkgBlob({ type: 'Point', coordinates: [24.1, -17.8, 950] }, { dims: 'xyz', extraStyle: 'ewkb' }),
      'POINT(1 2)',
    ]
    return {
      name: 'erf',
      columns: { ID: 'TEXT', Parcel_No: 'INTEGER', Name: 'TEXT', Area: 'REAL', Empty: 'TEXT' },
      rows: blobs.map((geom, i) =>
        i === 0
          ? { geom, ID: 'A', Parcel_No: 12, Name: 'Erf 12    ', Area: 100.5, Empty: '' }
          : { geom, ID: `R${i + 1}` },
      ),
    }
  }

  it('decodes every geometry encoding, keeps all columns as properties and rejects bad blobs', async () => {
    const path = join(dir, 'erf.gpkg')
    writeGpkg(path, [
      { name: 'notes', dataType: 'attributes', columns: { text: 'TEXT' }, rows: [{ text: 'hello' }] },
      {
        name: 'other',
        columns: { x: 'TEXT' },
        rows: [{ geom: gpkgBlob({ type: 'Point', coordinates: [1, 1] }), x: 'wrong table' }],
      },
      erfTable(),
    ])
    const rows = await collect(path)
    expect(rows.map((r) => r.ref)).toEqual(Array.from({ length: 15 }, (_, i) => `${path}#${i + 1}`))

    expect(ok(rows[0]).properties).toEqual({ fid: 1, id: 'A', parcel_no: 12, name: 'Erf 12', area: 100.5, empty: null })
    expect(ok(rows[0]).geometry).toEqual({ type: 'Point', coordinates: [25.9, -24.65] })
    expect(ok(rows[1]).geometry).toEqual(polygonWithHole)
    expect(ok(rows[1]).properties).toEqual({ fid: 2, id: 'R2', parcel_no: null, name: null, area: null, empty: null })
    expect(ok(rows[2]).geometry).toEqual({
      type: 'MultiPolygon',
      coordinates: strip([[square(28, -26)], [square(30, -26)]]),
    })
    expect(ok(rows[3]).geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [27, -25],
        [27.5, -25.5],
      ],
    })
    expect(ok(rows[4]).geometry).toEqual({
      type: 'MultiPoint',
      coordinates: [
        [31, -29],
        [31.1, -29.1],
      ],
    })
    expect(ok(rows[5]).geometry).toEqual({
      type: 'MultiLineString',
      coordinates: [
        [
          [20, -30],
          [21, -31],
        ],
        [
          [22, -32],
          [23, -33],
        ],
      ],
    })
    expect(ok(rows[6]).geometry).toBeNull() // empty flag
    expect(ok(rows[7]).geometry).toBeNull() // sql null
    expect(ok(rows[12]).geometry).toBeNull() // empty point (NaN)
    expect(ok(rows[13]).geometry).toEqual({ type: 'Point', coordinates: [24.1, -17.8] })

    expect(reasons(rows)).toEqual({
      [`${path}#9`]: 'coordinate out of range: [200, 0]',
      [`${path}#10`]: 'unsupported geometry type GeometryCollection',
      [`${path}#11`]: 'invalid WKB: truncated',
      [`${path}#12`]: 'invalid GeoPackage geometry: no GP header',
      [`${path}#15`]: 'geometry column does not hold a blob',
    })
  })

  it('reads the only feature table whatever its name, and can stop early', async () => {
    const path = join(dir, 'layer.gpkg')
    writeGpkg(path, [
      {
        name: 'Parcels',
        geometryColumn: 'SHAPE',
        columns: { CODE: 'TEXT' },
        rows: [
          { SHAPE: gpkgBlob({ type: 'Point', coordinates: [1, 2] }), CODE: 'a' },
          { SHAPE: gpkgBlob({ type: 'Point', coordinates: [3, 4] }), CODE: 'b' },
        ],
      },
    ])
    for await (const row of readLayer(path)) {
      expect(ok(row).properties).toEqual({ fid: 1, code: 'a' })
      expect(ok(row).geometry).toEqual({ type: 'Point', coordinates: [1, 2] })
      break
    }
    const rows = await collect(path)
    expect(rows.map((r) => ok(r).properties.code)).toEqual(['a', 'b'])
  })

  it('throws for a file that is not a GeoPackage or has no feature table', async () => {
    const text = file('fake.gpkg', 'this is not sqlite at all, just some text that is long enough '.repeat(20))
    await expect(collect(text)).rejects.toThrow(`${text}: not a GeoPackage`)
    const noFeatures = join(dir, 'attributes-only.gpkg')
    writeGpkg(noFeatures, [{ name: 'notes', dataType: 'attributes', columns: { text: 'TEXT' }, rows: [] }])
    await expect(collect(noFeatures)).rejects.toThrow(`${noFeatures}: no feature table in gpkg_contents`)
  })
})

describe('readLayer: Shapefile', () => {
  const plotFields: TestField[] = [
    { name: 'PLOT_NO', type: 'C', length: 10 },
    { name: 'CITY', type: 'C', length: 20 },
    { name: 'AREA', type: 'N', length: 10, decimals: 2 },
    { name: 'ISSUED', type: 'D', length: 8 },
  ]

  it('reads points with C, N and D fields and null shapes', async () => {
    const base = join(dir, 'plots')
    writeShapefile(
      base,
      'Point',
      [{ type: 'Point', x: 25.9, y: -24.65 }, null, { type: 'Point', x: 26.1, y: -24.1 }],
      plotFields,
      [
        ['101', 'Gaborone', 12.5, '20260131'],
        ['102', 'Francistown', null, null],
        ['103', 'Maun', 7, '20251231'],
      ],
    )
    const path = `${base}.shp`
    const rows = await collect(path)
    expect(rows).toEqual([
      {
        ok: true,
        ref: `${path}#1`,
        properties: { plot_no: '101', city: 'Gaborone', area: 12.5, issued: '2026-01-31' },
        geometry: { type: 'Point', coordinates: [25.9, -24.65] },
      },
      {
        ok: true,
        ref: `${path}#2`,
        properties: { plot_no: '102', city: 'Francistown', area: null, issued: null },
        geometry: null,
      },
      {
        ok: true,
        ref: `${path}#3`,
        properties: { plot_no: '103', city: 'Maun', area: 7, issued: '2025-12-31' },
        geometry: { type: 'Point', coordinates: [26.1, -24.1] },
      },
    ])
    for await (const row of readLayer(path)) {
      expect(row.ref).toBe(`${path}#1`)
      break
    }
  })

  it('reads a polygon with a hole, a multi-part polygon, and rejects projected coordinates', async () => {
    // esri rings: exterior clockwise, hole counter-clockwise
    const outer = [
      [18, -34],
      [18, -33],
      [19, -33],
      [19, -34],
      [18, -34],
    ]
    const hole = [
      [18.2, -33.8],
      [18.8, -33.8],
      [18.8, -33.2],
      [18.2, -33.2],
      [18.2, -33.8],
    ]
    const second = [
      [20, -34],
      [20, -33],
      [21, -33],
      [20, -34],
    ]
    const projected = [
      [50000, 3700000],
      [50000, 3710000],
      [60000, 3710000],
      [50000, 3700000],
    ]
    const base = join(dir, 'parcels')
    writeShapefile(
      base,
      'Polygon',
      [
        { type: 'Polygon', rings: [outer, hole] },
        { type: 'Polygon', rings: [outer, second] },
        { type: 'Polygon', rings: [projected] },
      ],
      [
        { name: 'ID', type: 'C', length: 21 },
        { name: 'GEOM_AREA', type: 'N', length: 12, decimals: 1 },
      ],
      [
        ['C01300000000001200000', 1234.5],
        ['C01300000000001300000', 99],
        ['C01300000000001400000', 1],
      ],
    )
    const path = `${base}.shp`
    const rows = await collect(path)
    expect(ok(rows[0]).properties).toEqual({ id: 'C01300000000001200000', geom_area: 1234.5 })
    expect(ok(rows[0]).geometry).toEqual({ type: 'Polygon', coordinates: [outer, hole] })
    expect(ok(rows[1]).geometry).toEqual({ type: 'MultiPolygon', coordinates: [[outer], [second]] })
    expect(rows[2]).toEqual({ ok: false, ref: `${path}#3`, reason: 'coordinate out of range: [50000, 3700000]' })
  })

  it('decodes the .dbf as UTF-8 or windows-1252, by .cpg or by sniffing', async () => {
    const fields: TestField[] = [{ name: 'NAME', type: 'C', length: 30 }]
    const shapes = [{ type: 'Point' as const, x: 28, y: -25.6 }]
    const cases = [
      { name: 'utf8-sniffed', encoding: 'utf-8' as const, cpg: undefined },
      { name: 'latin1-sniffed', encoding: 'latin1' as const, cpg: undefined },
      { name: 'latin1-cpg', encoding: 'latin1' as const, cpg: 'ANSI 1252\r\n' },
      { name: 'utf8-cpg', encoding: 'utf-8' as const, cpg: 'UTF-8' },
    ]
    for (const c of cases) {
      const base = join(dir, c.name)
      writeShapefile(base, 'Point', shapes, fields, [['Ga-Rankuwa Zoné']], { encoding: c.encoding, cpg: c.cpg })
      const [row] = await collect(`${base}.shp`)
      expect(ok(row).properties, c.name).toEqual({ name: 'Ga-Rankuwa Zoné' })
    }
    const bad = join(dir, 'bad-cpg')
    writeShapefile(bad, 'Point', shapes, fields, [['x']], { cpg: 'KLINGON' })
    await expect(collect(`${bad}.shp`)).rejects.toThrow(`${bad}.cpg: unknown encoding "KLINGON"`)
  })

  it('finds upper-case companion files and throws without a .dbf', async () => {
    const layers = join(dir, 'shp-upper')
    mkdirSync(layers)
    writeShapefile(
      join(layers, 'ERF'),
      'Point',
      [{ type: 'Point', x: 28.1, y: -26.1 }],
      plotFields,
      [['9', 'Soweto', 1, '20200101']],
      {
        upperCase: true,
        cpg: 'UTF-8',
      },
    )
    const path = findLayerFile(layers, 'erf')
    expect(path).toBe(join(layers, 'ERF.SHP'))
    const rows = await collect(path as string)
    expect(rows).toEqual([
      {
        ok: true,
        ref: `${path}#1`,
        properties: { plot_no: '9', city: 'Soweto', area: 1, issued: '2020-01-01' },
        geometry: { type: 'Point', coordinates: [28.1, -26.1] },
      },
    ])
    rmSync(join(layers, 'ERF.DBF'))
    await expect(collect(path as string)).rejects.toThrow(`${path}: no .dbf beside the shapefile`)
  })
})
