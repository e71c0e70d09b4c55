/**
 * The GeoJSON form of the plot answers (docs/api.md "GeoJSON output"): a plot is a Point at its
 * longitude and latitude, which are not repeated in its properties; its `id` is the plot's.
 */
import type { Context } from 'hono'
import type { AppEnv } from '../../http/env.js'
import { feature, geoJsonReply, point, type Feature } from '../../http/geojson.js'
import type { Plot } from './schemas.js'

/** A plot as a Feature: a Point, the other fields as properties. */
export function plotFeature(p: Plot): Feature {
  const { latitude, longitude, ...properties } = p
  return feature(properties, point(longitude, latitude), p.id)
}

/** `{ plots, message }` as a FeatureCollection (the message a foreign member). */
export function plotsGeoJson(c: Context<AppEnv>, plots: Plot[], message: string): Response {
  return geoJsonReply(c, { plots, message }, 'plots', plots.map(plotFeature))
}
