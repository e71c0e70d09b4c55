/**
 * The coordinate system a layer file declares: GeoPackage `srs_id` and a shapefile's `.prj` must
 * be WGS84 longitude/latitude, or the file is refused naming the system and the fix (the GeoJSON
 * `crs` member is tested with the FeatureCollection reader in read-layer.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { gpkgSrsProblem, prjProblem } from './crs.js'
import { readLayer } from './read-layer.js'
import { gpkgBlob, writeGpkg } from './testing/write-gpkg.js'
import { writeShapefile } from './testing/write-shapefile.js'

const dir = mkdtempSync(join(tmpdir(), 'crs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const count = async (file: string) => {
  let n = 0
  for await (const _ of readLayer(file)) n++
  return n
}

const WGS84_PRJ =
  'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'
const LO29_PRJ =
  'PROJCS["Hartebeesthoek94_Lo29",GEOGCS["GCS_Hartebeesthoek_1994",DATUM["D_Hartebeesthoek_1994",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["Central_Meridian",29.0],UNIT["Meter",1.0]]'
const HART94_GEOG =
  'GEOGCS["GCS_Hartebeesthoek_1994",DATUM["D_Hartebeesthoek_1994",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'

describe('prjProblem', () => {
  it('accepts WGS84 longitude/latitude as ESRI and OGC write it', () => {
    expect(prjProblem(WGS84_PRJ)).toBeNull()
    expect(prjProblem('GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]]]')).toBeNull()
  })

  it('refuses a projection, or another datum, naming it and the fix', () => {
    expect(prjProblem(LO29_PRJ)).toMatch(/names PROJCS "Hartebeesthoek94_Lo29", not WGS84.*ogr2ogr -t_srs EPSG:4326/)
    // a Hartebeesthoek94 GEOGCS is on the WGS84 spheroid but not named the WGS84 datum
    expect(prjProblem(HART94_GEOG)).toMatch(/GEOGCS "GCS_Hartebeesthoek_1994"/)
    expect(prjProblem('nonsense')).toMatch(/names "nonsense"/)
  })
})

describe('gpkgSrsProblem', () => {
  const srs = (srs_id: number, organization: string | null, id: number | null, srs_name: string | null) => ({
    srs_id,
    organization,
    organization_coordsys_id: id,
    srs_name,
  })
  it('accepts EPSG 4326, OGC CRS84 and undefined geographic', () => {
    expect(gpkgSrsProblem(srs(4326, 'EPSG', 4326, 'WGS 84'))).toBeNull()
    expect(gpkgSrsProblem(srs(100, 'epsg', 4326, 'WGS 84 (copy)'))).toBeNull()
    expect(gpkgSrsProblem(srs(84, 'OGC', 84, 'CRS84'))).toBeNull()
    expect(gpkgSrsProblem(srs(0, 'NONE', 0, 'Undefined geographic SRS'))).toBeNull()
  })
  it('refuses anything else, naming it', () => {
    expect(gpkgSrsProblem(srs(3857, 'EPSG', 3857, 'WGS 84 / Pseudo-Mercator'))).toMatch(
      /spatial reference is WGS 84 \/ Pseudo-Mercator, EPSG:3857 \(srs_id 3857\), not WGS84.*ogr2ogr/,
    )
    expect(gpkgSrsProblem(srs(-1, 'NONE', -1, 'Undefined cartesian SRS'))).toMatch(/srs_id -1/)
  })
})

describe('a layer file in another coordinate system is refused whole', () => {
  it('GeoPackage: the feature table in Web Mercator', async () => {
    const path = join(dir, 'erf.gpkg')
    writeGpkg(path, [
      {
        name: 'erf',
        columns: { ID: 'TEXT' },
        rows: [{ geom: gpkgBlob({ type: 'Point', coordinates: [1, 2] }), ID: 'a' }],
      },
    ])
    expect(await count(path)).toBe(1)
    const db = new Database(path)
    db.exec(`INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'PROJCS[]', NULL);
      UPDATE gpkg_geometry_columns SET srs_id = 3857`)
    db.close()
    await expect(count(path)).rejects.toThrow(`${path}: the layer's spatial reference is WGS 84 / Pseudo-Mercator`)
  })

  it('Shapefile: a .prj in Lo29; none at all is taken as WGS84', async () => {
    const base = join(dir, 'erf')
    writeShapefile(
      base,
      'Point',
      [{ type: 'Point', x: 18.5, y: -33.9 }],
      [{ name: 'ID', type: 'C', length: 4 }],
      [['a']],
    )
    expect(await count(`${base}.shp`)).toBe(1)
    writeFileSync(`${base}.prj`, WGS84_PRJ)
    expect(await count(`${base}.shp`)).toBe(1)
    writeFileSync(`${base}.prj`, LO29_PRJ)
    await expect(count(`${base}.shp`)).rejects.toThrow(`${base}.shp: the .prj beside the shapefile names PROJCS`)
  })
})
