/**
 * Seeded probe sets. The stream comes from the generator's `Random` (sfc32 seeded through
 * splitmix32), so the same `--seed` gives the same queries on every run, which is what makes
 * before/after comparisons meaningful (flatbush's bench.js does the same).
 *
 * @module
 */
export { Random } from '../../build-index/synth/random.js'
