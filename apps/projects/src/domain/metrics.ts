import type { ConfusionMatrix, DatasetMetrics } from '@bastion/contracts';

/** One labelled prompt: should the scanner block it, and did it trigger. */
export interface Prediction {
  expected: boolean;
  predicted: boolean;
}

export function confusionMatrix(predictions: Iterable<Prediction>): ConfusionMatrix {
  const m: ConfusionMatrix = { truePositive: 0, falsePositive: 0, trueNegative: 0, falseNegative: 0 };
  for (const { expected, predicted } of predictions) {
    if (predicted) expected ? m.truePositive++ : m.falsePositive++;
    else expected ? m.falseNegative++ : m.trueNegative++;
  }
  return m;
}

/**
 * Accuracy, precision, recall and F1 of "should block" as the positive class. A ratio whose
 * denominator is 0 is 0 (scikit-learn's `zero_division=0`): a scanner that never triggers has
 * precision 0, not an undefined one.
 */
export function metricsOf(m: ConfusionMatrix): DatasetMetrics {
  const total = m.truePositive + m.falsePositive + m.trueNegative + m.falseNegative;
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  const precision = ratio(m.truePositive, m.truePositive + m.falsePositive);
  const recall = ratio(m.truePositive, m.truePositive + m.falseNegative);
  return {
    accuracy: ratio(m.truePositive + m.trueNegative, total),
    precision,
    recall,
    // 2PR/(P+R), computed from counts so it is exact for the cases a hand count checks.
    f1Score: ratio(2 * m.truePositive, 2 * m.truePositive + m.falsePositive + m.falseNegative),
  };
}
