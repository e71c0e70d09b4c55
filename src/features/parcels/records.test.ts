import { describe, expect, it } from 'vitest'
import { JsonBytes } from '../../http/json-bytes.js'
import { type Row, toRecord, writeRecord } from './records.js'

const full: Row = {
  id: 7,
  parcel_type: 'ERF',
  province: 'WC',
  lpi: 'C01600010000012300000',
  source_key: 'C0160001000001230000000001',
  parcel_number: 123,
  portion: 0,
  tag_value: '123',
  major_region: 'CAPE TOWN',
  major_code: '0016',
  minor_region: 'CAPE TOWN',
  minor_code: '0001',
  lstatus: 'R',
  wstatus: 'C',
  extent_sqm: 496.456,
  label_lat: -33.924876543,
  label_lon: 18.424123456,
  date_stamp: '2024-05-01',
  hidden: 0,
}
const sparse: Row = {
  ...full,
  source_key: null,
  parcel_number: null,
  portion: null,
  tag_value: '',
  major_region: null,
  major_code: null,
  minor_region: null,
  minor_code: null,
  lstatus: 'X',
  wstatus: null,
  date_stamp: null,
}
const bytesOf = (r: Row) => {
  const w = new JsonBytes()
  w.start()
  writeRecord(w, r, JSON.stringify('v1'))
  return Buffer.from(w.take()).toString('utf8')
}

describe('the parcel record compiled from the field table', () => {
  it('has every field in the documented order, statuses labelled, numbers rounded', () => {
    const r = toRecord(full, 'v1')
    expect(Object.keys(r)).toEqual([
      'id',
      'parcel_type',
      'province',
      'source_key',
      'dataset_version',
      'lpi',
      'parcel_number',
      'portion',
      'tag_value',
      'major_region',
      'major_code',
      'minor_region',
      'minor_code',
      'legal_status',
      'work_status',
      'extent_sqm',
      'label_point',
      'date_stamp',
    ])
    expect(r.province).toBe('WESTERN CAPE')
    expect(r.portion).toBe(0)
    expect(r.legal_status).toEqual({ code: 'R', label: 'Registered' })
    expect(r.work_status).toEqual({ code: 'C', label: 'Current' })
    expect(r.extent_sqm).toBe(496.46)
    expect(r.label_point).toEqual({ latitude: -33.9248765, longitude: 18.4241235 })
  })

  it('omits absent fields (never null), keeps an unknown status code as its own label', () => {
    const r = toRecord(sparse, 'v1')
    expect(Object.keys(r)).toEqual([
      'id',
      'parcel_type',
      'province',
      'dataset_version',
      'lpi',
      'legal_status',
      'extent_sqm',
      'label_point',
    ])
    expect(r.legal_status).toEqual({ code: 'X', label: 'X' })
  })

  it('writes exactly the bytes JSON.stringify gives for the object form', () => {
    for (const row of [full, sparse]) expect(bytesOf(row)).toBe(JSON.stringify(toRecord(row, 'v1')))
  })
})
