/**
 * The encumbrance domain's files inside a dataset, shared by build-index (writer) and the server
 * (reader), and the spec's type vocabulary.
 *
 * - `encumbrances/encumbrances.sqlite`:
 *   - `encumbrance`: one row per source record of every class and province; `id` is the row id in
 *     source order (class, then province, then file order); `uid` the source's own id, served as
 *     `encumbrance_uid`; `geom` the record's geometry (the blob of geometry-blob.ts; lines as a
 *     multipolygon of one-ring polygons, see {@link linesAsPolygons}); `area_geom` the buffered
 *     strip of a dimensioned line (null otherwise);
 *   - `parcel_overlap`: one row per (current parcel, current encumbrance) pair that meet, computed
 *     at build time: relationship, overlap in m² and m, share of the parcel, and the clipped
 *     geometry when the relationship is `crosses`;
 *   - `heat_cell`: current records per class per 0.01° cell (by the record's box centre), for the
 *     density heat map;
 *   - `coverage`: the load ledger per province and class.
 * - `encumbrances/<class>.flatbush`: boxes of every record of the class (current or not); item `i`
 *   is the record `encumbrances/<class>.ids.u32[i]`.
 * - `encumbrances/encumbrances.flags.u8`: per record id (index id - 1), {@link FLAG_NOT_CURRENT}
 *   and {@link FLAG_LINE}, so index hits are filtered without SQLite.
 * - `encumbrances/encumbrances.prefilter.u8` (optional: datasets built before it lack it, and are
 *   served the same answers from SQLite): per record id (index id - 1), PREFILTER_STRIDE bytes in
 *   the parcel prefilter's layout, read with its reader (parcels-prefilter.ts), relative to the
 *   record's box in its class's Flatbush, describing what `/at` measures: the strip
 *   (`area_geom`) of a dimensioned line, the polygons of an area (`describeParcel`), the lines of
 *   an undimensioned line (`describeLines`: never inside; a point it decides is off the line).
 *
 * Headers, checked when a dataset is opened (file-headers.ts): the `.sqlite` file SQLite's own,
 * the `.flatbush` files Flatbush v4's (magic 0xfb, then version and array type); the `.u32` and
 * `.u8` arrays have none.
 */
import type { MultiPolygon } from '../geo/polygon.js'

export const ENCUMBRANCE_FILES = {
  sqlite: 'encumbrances/encumbrances.sqlite',
  flags: 'encumbrances/encumbrances.flags.u8',
  prefilter: 'encumbrances/encumbrances.prefilter.u8',
  flatbush: (cls: EncumbranceClass) => `encumbrances/${cls}.flatbush`,
  ids: (cls: EncumbranceClass) => `encumbrances/${cls}.ids.u32`,
} as const

/**
 * The tables of `encumbrances/encumbrances.sqlite`, created empty before the bulk load. Kept byte
 * for byte as first written (SQLite stores each statement's text in `sqlite_master`): do not
 * reformat.
 */
export const ENCUMBRANCE_SCHEMA_SQL = `
    CREATE TABLE encumbrance (
      id INTEGER PRIMARY KEY, uid INTEGER NOT NULL, class TEXT NOT NULL, ease_type TEXT NOT NULL, ease_type_normalised TEXT NOT NULL,
      listed INTEGER NOT NULL, sg_number TEXT, sg_reversed TEXT, province TEXT NOT NULL, extent_sqm REAL, length_m REAL, width_m REAL,
      date_stamp TEXT, record_status TEXT, min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL,
      geom BLOB NOT NULL, area_geom BLOB);
    CREATE TABLE parcel_overlap (
      parcel_id INTEGER NOT NULL, encumbrance_id INTEGER NOT NULL, relationship INTEGER NOT NULL, overlap_sqm REAL, overlap_m REAL,
      pct REAL, geom BLOB, clip_is_line INTEGER NOT NULL, PRIMARY KEY (parcel_id, encumbrance_id)) WITHOUT ROWID;
    CREATE TABLE heat_cell (class TEXT NOT NULL, cx INTEGER NOT NULL, cy INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (class, cy, cx)) WITHOUT ROWID;
    CREATE TABLE coverage (province TEXT NOT NULL, class TEXT NOT NULL, records INTEGER NOT NULL, current INTEGER NOT NULL,
      unspecified INTEGER NOT NULL, unlisted INTEGER NOT NULL, repaired INTEGER NOT NULL, rejected INTEGER NOT NULL,
      PRIMARY KEY (province, class)) WITHOUT ROWID;
  `

/** The indexes of `encumbrances/encumbrances.sqlite`, created after the bulk load and the overlap pass. */
export const ENCUMBRANCE_INDEX_SQL = `
    CREATE INDEX encumbrance_uid ON encumbrance (uid);
    CREATE INDEX encumbrance_sg ON encumbrance (sg_number);
    CREATE INDEX encumbrance_sg_reversed ON encumbrance (sg_reversed);
    -- /search filters, each with the id so a page is an ordered range scan, not a sort
    CREATE INDEX encumbrance_normalised ON encumbrance (ease_type_normalised, id);
    CREATE INDEX encumbrance_raw ON encumbrance (upper(trim(ease_type)), id);
    CREATE INDEX encumbrance_class ON encumbrance (class, id);
    CREATE INDEX encumbrance_province ON encumbrance (province, id);
    CREATE INDEX parcel_overlap_encumbrance ON parcel_overlap (encumbrance_id, parcel_id);
  `

/** The source classes (docs/source-formats.md layout), in the build's source order. */
export const ENCUMBRANCE_CLASSES = [
  'servitude_area',
  'servitude_line',
  'mineral_right',
  'lease',
  'state_land',
  'river_bed',
  'proclamation_area',
  'proclamation_line',
  'established_boundary',
] as const
export type EncumbranceClass = (typeof ENCUMBRANCE_CLASSES)[number]

/** Classes whose records are lines; the rest are areas. */
export const LINE_CLASSES: ReadonlySet<EncumbranceClass> = new Set([
  'servitude_line',
  'proclamation_line',
  'established_boundary',
])

export const FLAG_NOT_CURRENT = 0b01
export const FLAG_LINE = 0b10

/** `record_status` values of non-current records (docs/source-formats.md `status`). */
export const RECORD_STATUSES = ['CANCELLED', 'WITHDRAWN', 'HISTORIC', 'PENDING'] as const
export type RecordStatus = (typeof RECORD_STATUSES)[number]

/** The spec's controlled vocabulary, in its table's order. */
export const EASE_TYPES = [
  'right_of_way',
  'road',
  'railway',
  'access',
  'pipeline',
  'powerline',
  'water',
  'sewer',
  'drainage',
  'telecom',
  'support',
  'municipal_services',
  'habitatio',
  'usufruct',
  'mineral',
  'lease',
  'state_land',
  'river_bed',
  'proclamation',
  'established_boundary',
  'unspecified',
  'other',
] as const
export type EaseType = (typeof EASE_TYPES)[number]

/** The raw values of the spec's table, upper-cased, and the word each maps to. */
const RAW_TO_WORD: ReadonlyMap<string, EaseType> = new Map(
  (
    [
      ['right_of_way', ['RIGHT OF WAY', 'ROW']],
      ['road', ['ROAD']],
      ['railway', ['RAILWAY']],
      ['access', ['ACCESS', 'COMM_PASS']],
      ['pipeline', ['PIPE', 'PIPELINE']],
      ['powerline', ['ELECTRIC']],
      ['water', ['BOREHOLE', 'DAM', 'FURROW', 'WATER']],
      ['sewer', ['SEWER']],
      ['drainage', ['DRAINAGE', 'STORM', 'STORMWATER']],
      ['support', ['COMM_WALL']],
      ['municipal_services', ['MUNICIPAL', 'SERVICES']],
      ['mineral', ['MINERAL']],
      ['lease', ['LEASE']],
      ['proclamation', ['PROC_AREA', 'PROC_LINE']],
      ['established_boundary', ['EST_BND']],
      [
        'unspecified',
        ['AREA', 'CANCELLED', 'GENERAL', 'HIST', 'LINE', 'PRE_APP', 'RURAL', 'SERVITUDE AREA', 'URBAN', 'WITHDRAWN'],
      ],
      ['other', ['DWS_COAST', 'HWM', 'INT_BND', 'OUTSPAN', 'PROV', 'RESERVE']],
    ] as const
  ).flatMap(([word, raws]) => raws.map((r) => [r, word] as [string, EaseType])),
)

/** Classes that are their own type whatever the raw value says (the spec: "the layer itself"). */
const CLASS_WORD: Partial<Record<EncumbranceClass, EaseType>> = { state_land: 'state_land', river_bed: 'river_bed' }

/**
 * The spec's mapping of a raw `ease_type` (trimmed, case-insensitive; docs/decisions.md "Ingest"): a
 * listed value maps to its word, blank to `unspecified`, the state_land and river_bed layers to
 * themselves, and any other non-blank value to `other` with `listed` false (counted as unlisted
 * in coverage). Nothing is guessed.
 */
export function normaliseEaseType(raw: string | null, cls: EncumbranceClass): { word: EaseType; listed: boolean } {
  const own = CLASS_WORD[cls]
  if (own) return { word: own, listed: true }
  const key = (raw ?? '').trim().toUpperCase()
  if (key === '') return { word: 'unspecified', listed: true }
  const word = RAW_TO_WORD.get(key)
  return word ? { word, listed: true } : { word: 'other', listed: false }
}

/** `relationship` codes stored in `parcel_overlap.relationship`. */
export const RELATIONSHIPS = ['crosses', 'within', 'contains', 'touches'] as const
export type Relationship = (typeof RELATIONSHIPS)[number]

/** Side of a `heat_cell`, degrees (the spec's density cells are whole multiples of it). */
export const HEAT_CELL_DEG = 0.01

/** Lines stored with the polygon blob encoding: each line is a polygon of one (open) ring. */
export function linesAsPolygons(lines: [number, number][][]): MultiPolygon {
  return lines.map((l) => [l])
}

/** The inverse of {@link linesAsPolygons}. */
export function polygonsAsLines(mp: MultiPolygon): [number, number][][] {
  return mp.map((p) => p[0])
}
