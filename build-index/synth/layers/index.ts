/**
 * Every layer the generator knows, in the order they run. Add a layer by adding its module to
 * this folder and one line here.
 *
 * @module
 */
import type { LayerGenerator } from '../context.js'
import { botswanaPlots } from './botswana-plots.js'
import { southAfricaBoundaries } from './south-africa-boundaries.js'
import { southAfricaCadastre } from './south-africa-cadastre.js'
import { southAfricaEncumbrances } from './south-africa-encumbrances.js'
import { southAfricaErven } from './south-africa-erven.js'

/** The registered layers. */
export const LAYERS: readonly LayerGenerator[] = [
  botswanaPlots, // botswana/plots.csv
  southAfricaErven, // south_africa/erven.csv
  southAfricaCadastre, // south_africa/cadastre/<PROV>/*.geojsonl (+ boundaries/register/township.geojsonl)
  southAfricaEncumbrances, // south_africa/encumbrances/<PROV>/<class>.geojsonl, over the cadastre's layout
  southAfricaBoundaries, // south_africa/boundaries/<set>/*: MDB sets and the cadastral register
]
