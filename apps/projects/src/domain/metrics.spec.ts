import { confusionMatrix, metricsOf } from './metrics';

const p = (expected: boolean, predicted: boolean) => ({ expected, predicted });

describe('confusionMatrix', () => {
  it('counts each prediction in its cell', () => {
    expect(
      confusionMatrix([
        p(true, true),
        p(true, true),
        p(true, false),
        p(false, true),
        p(false, false),
        p(false, false),
        p(false, false),
      ]),
    ).toEqual({
      truePositive: 2,
      falseNegative: 1,
      falsePositive: 1,
      trueNegative: 3,
    });
  });
});

describe('metricsOf', () => {
  it('matches a hand count', () => {
    // TP 2, FN 1, FP 1, TN 3: precision 2/3, recall 2/3, F1 2/3, accuracy 5/7.
    const m = metricsOf({ truePositive: 2, falseNegative: 1, falsePositive: 1, trueNegative: 3 });
    expect(m.precision).toBeCloseTo(2 / 3, 12);
    expect(m.recall).toBeCloseTo(2 / 3, 12);
    expect(m.f1Score).toBeCloseTo(2 / 3, 12);
    expect(m.accuracy).toBeCloseTo(5 / 7, 12);
  });

  it('agrees with 2PR/(P+R) when precision and recall differ', () => {
    // TP 3, FP 1, FN 3: P = 3/4, R = 1/2, F1 = 2 * 3/8 / (5/4) = 3/5.
    const m = metricsOf({ truePositive: 3, falsePositive: 1, falseNegative: 3, trueNegative: 0 });
    expect(m.f1Score).toBeCloseTo((2 * m.precision * m.recall) / (m.precision + m.recall), 12);
    expect(m.f1Score).toBeCloseTo(0.6, 12);
  });

  it('is 0, not NaN, where a denominator is 0', () => {
    expect(metricsOf({ truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 4 })).toEqual({
      accuracy: 1,
      precision: 0,
      recall: 0,
      f1Score: 0,
    });
    expect(metricsOf({ truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 }).accuracy).toBe(0);
  });

  it('is 1 for a perfect scanner', () => {
    expect(metricsOf({ truePositive: 5, falsePositive: 0, falseNegative: 0, trueNegative: 5 })).toEqual({
      accuracy: 1,
      precision: 1,
      recall: 1,
      f1Score: 1,
    });
  });
});
