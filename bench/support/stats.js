// Figures of samples, shared by the benchmarks (no side effects: worker threads load it too).
'use strict';

/** The q-quantile (0..1) of samples sorted ascending: the sample at floor(q * n), the last for q = 1. */
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

module.exports = { quantile };
