/**
 * The parcel domain's files inside a dataset, shared by build-index (writer) and the server
 * (reader; the services' shared readers of these files are in parcel-readers.ts). Constants and
 * table definitions only, so the writer and the request validators (`LPI_PATTERN`) import it
 * without the reader's dependencies.
 *
 * - `parcels/parcels.sqlite`: table `parcel` (one row per source record; `id` = Flatbush item + 1),
 *   `neighbour` (touching pairs, both directions), `beacon` / `parcel_beacon`, `general_plan` /
 *   `parcel_general_plan`, and `coverage` (the load ledger).
 * - `parcels/parcels.flatbush`: boxes of every parcel, item i is parcel id i + 1.
 * - `parcels/parcels.flags.u8`: per parcel, its layer (low 3 bits) and whether the default status
 *   filter hides it (bit 3), so index hits are filtered without touching SQLite.
 * - `parcels/parcels.prefilter.u8` (optional: datasets built before it lack it, and are served
 *   the same answers, only reading more geometry): per parcel 10 bytes, an oriented box and one
 *   inner box that settle most point-in-parcel tests without reading the geometry; layout and
 *   guarantees in parcels-prefilter.ts.
 * - `parcels/parcels.lpi-hash` (optional likewise: without it lookups by LPI use the SQLite
 *   index `parcel_lpi`): LPI -> parcel ids, layout in lpi-hash.ts.
 *
 * Headers, checked when a dataset is opened (file-headers.ts): the `.sqlite` file SQLite's own,
 * the `.flatbush` Flatbush v4's (magic 0xfb, then version and array type), the `.lpi-hash` its
 * magic 'LPIH' and version (lpi-hash.ts); the `.u8` arrays have none.
 */
export const PARCEL_FILES = {
  sqlite: 'parcels/parcels.sqlite',
  flatbush: 'parcels/parcels.flatbush',
  flags: 'parcels/parcels.flags.u8',
  prefilter: 'parcels/parcels.prefilter.u8',
  lpiHash: 'parcels/parcels.lpi-hash',
} as const

/**
 * The tables of `parcels/parcels.sqlite`, created empty before the bulk load. The text is kept
 * byte for byte as it was first written inline (SQLite stores each statement's text in
 * `sqlite_master`, so re-indenting it changes every dataset's schema): do not reformat.
 */
export const PARCEL_SCHEMA_SQL = `
    CREATE TABLE parcel (
      id INTEGER PRIMARY KEY, parcel_type TEXT NOT NULL, province TEXT NOT NULL, lpi TEXT NOT NULL, source_key TEXT,
      parcel_number INTEGER, portion INTEGER, tag_value TEXT, major_region TEXT, major_code TEXT, minor_region TEXT, minor_code TEXT,
      lstatus TEXT NOT NULL, wstatus TEXT, extent_sqm REAL NOT NULL, label_lat REAL NOT NULL, label_lon REAL NOT NULL, date_stamp TEXT,
      hidden INTEGER NOT NULL, geom BLOB NOT NULL);
    CREATE TABLE neighbour (parcel_id INTEGER NOT NULL, neighbour_id INTEGER NOT NULL, shared_m REAL NOT NULL, PRIMARY KEY (parcel_id, neighbour_id)) WITHOUT ROWID;
    CREATE TABLE beacon (id INTEGER PRIMARY KEY, beacon_id TEXT NOT NULL, name TEXT, description TEXT, date_stamp TEXT, latitude REAL NOT NULL, longitude REAL NOT NULL);
    CREATE TABLE parcel_beacon (parcel_id INTEGER NOT NULL, beacon_row INTEGER NOT NULL, ring_position REAL NOT NULL, PRIMARY KEY (parcel_id, ring_position, beacon_row)) WITHOUT ROWID;
    CREATE TABLE general_plan (id INTEGER PRIMARY KEY, sg_number TEXT NOT NULL, description TEXT, date_stamp TEXT, province TEXT NOT NULL, geom BLOB NOT NULL);
    CREATE TABLE parcel_general_plan (parcel_id INTEGER NOT NULL, plan_id INTEGER NOT NULL, PRIMARY KEY (parcel_id, plan_id)) WITHOUT ROWID;
    CREATE TABLE coverage (province TEXT NOT NULL, layer TEXT NOT NULL, records INTEGER NOT NULL, repaired INTEGER NOT NULL, rejected INTEGER NOT NULL, PRIMARY KEY (province, layer)) WITHOUT ROWID;
  `

/** The indexes of `parcels/parcels.sqlite`, created after the bulk load (build-index/write/sqlite-writer.ts). */
export const PARCEL_INDEX_SQL = `
    CREATE INDEX parcel_lpi ON parcel (lpi);
    CREATE INDEX parcel_source_key ON parcel (source_key);
  `

/** The six parcel layers: source file name and the `parcel_type` served, in source order. */
export const PARCEL_LAYERS = [
  { file: 'erf', type: 'ERF' },
  { file: 'farm_portion', type: 'FARM_PORTION' },
  { file: 'holding', type: 'HOLDING' },
  { file: 'parent_farm', type: 'PARENT_FARM' },
  { file: 'public_place', type: 'PUBLIC_PLACE' },
  { file: 'street', type: 'STREET' },
] as const
export type ParcelType = (typeof PARCEL_LAYERS)[number]['type']
export const PARCEL_TYPES = PARCEL_LAYERS.map((l) => l.type) as ParcelType[]
export const layerCode = (t: ParcelType): number => PARCEL_TYPES.indexOf(t)

/** docs/decisions.md "most specific first": erf, public place and street, then holding, farm portion, parent farm. */
export const SPECIFICITY: Record<ParcelType, number> = {
  ERF: 0,
  PUBLIC_PLACE: 0,
  STREET: 0,
  HOLDING: 1,
  FARM_PORTION: 2,
  PARENT_FARM: 3,
}

export const FLAG_LAYER_MASK = 0b0111
export const FLAG_HIDDEN = 0b1000

export const LEGAL_STATUS: Record<string, string> = {
  R: 'Registered',
  S: 'Surveyed',
  P: 'Proposed',
  A: 'Archived',
  W: 'Cancelled/Withdrawn',
}
export const WORK_STATUS: Record<string, string> = { C: 'Current', P: 'Proposed', H: 'Historic' }

/** The default filter hides legal status A or W and work status H; a blank work status is current. */
export function isHidden(lstatus: string, wstatus: string | null): boolean {
  return lstatus === 'A' || lstatus === 'W' || wstatus === 'H'
}

/** 21-character SG key (docs/domain.md 1.3). */
export const LPI_PATTERN = /^[OBCFNT][A-Z0-9]{4}[0-9]{16}$/
/** 26-character Surveyor-General parcel key. */
export const SOURCE_KEY_PATTERN = /^[A-Z0-9]{26}$/
