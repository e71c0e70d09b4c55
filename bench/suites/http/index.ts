/**
 * `--only http` (issue #37 item 6, "the benchmark says it"): in one run, every endpoint the
 * issue sets an HTTP target for, with 2 workers at 50 connections and every feature on, next to
 * the floors of the same run: a Hono hello-world, and for the bytes-bound answers (radius, box)
 * a Hono server sending the same bytes. Rounds interleave the floors and the server; medians.
 * Reports each load's req/s, p50/p99 and errors, the ratios the targets are set in, where the
 * CPU of a point lookup goes, and its flame graph (bench/profiles/). Any error or wrong answer
 * fails the run. See run.ts for the order of a run, urls.ts for the URL sets, report.ts for the
 * section.
 *
 * @module
 */
import type { Suite } from '../../lib/suite.js'
import { httpChart, renderHttp } from './report.js'
import { type HttpData, runHttpSuite } from './run.js'

export type { HttpData }

export const httpSuite: Suite<HttpData> = {
  name: 'http',
  title: 'Endpoints over HTTP against the hello-world and same-bytes floors',
  summary:
    'reverse, /parcels/at, /jurisdiction/at, /encumbrances/at, radius, box, z15 tiles with 2 workers vs a Hono ' +
    'hello-world and a same-bytes server: req/s, p50/p99, errors, CPU profiles and flame graphs',
  run: runHttpSuite,
  render: renderHttp,
  chart: httpChart,
}
