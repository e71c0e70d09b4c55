/**
 * The benchmark suites, in run and report order. A new service adds its module here; what is
 * not built yet is listed in PENDING so RESULTS.md keeps a place for it.
 *
 * @module
 */
import type { Suite } from '../lib/suite.js'
import { boundaryStrategiesSuite } from './boundary-strategies.js'
import { compressionSuite } from './compression/index.js'
import { encumbrancesSuite } from './encumbrances/index.js'
import { fuzzSuite } from './fuzz.js'
import { httpSuite } from './http/index.js'
import { jobsSuite } from './jobs/index.js'
import { jurisdictionSuite } from './jurisdiction.js'
import { operationsSuite } from './operations/index.js'
import { parcelStrategiesSuite } from './parcel-strategies.js'
import { parcelsSuite } from './parcels.js'
import { plotsSuite } from './plots.js'
import { postgisSuite } from './postgis/index.js'
import { scaleOutSuite } from './scale-out.js'
import { soakSuite } from './soak/index.js'
import { startupSuite } from './startup.js'
import { strategiesSuite } from './strategies.js'
import { tilesSuite } from './tiles.js'
import { worstCaseSuite } from './worst-case.js'

export const SUITES: Suite<any>[] = [
  plotsSuite,
  strategiesSuite,
  httpSuite,
  parcelsSuite,
  parcelStrategiesSuite,
  jurisdictionSuite,
  boundaryStrategiesSuite,
  encumbrancesSuite,
  tilesSuite,
  worstCaseSuite,
  startupSuite,
  operationsSuite,
  compressionSuite,
  scaleOutSuite,
  postgisSuite,
  fuzzSuite,
  soakSuite,
  jobsSuite,
]

/** Rows of issue 7 whose service has not landed yet. */
export const PENDING: { area: string; what: string }[] = []
