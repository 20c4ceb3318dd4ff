/** Statistics helpers for benchmarks: the same as the reports use. */
export { quantile, median } from '../ops/stats.js';
