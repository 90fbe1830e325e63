import { DEFAULT_TEMPLATE_LIMITS, resolveLimits } from './template-limits';

describe('resolveLimits', () => {
  it('fills in the defaults', () => {
    expect(resolveLimits()).toEqual(DEFAULT_TEMPLATE_LIMITS);
    expect(resolveLimits({ maxSteps: 5 })).toEqual({ ...DEFAULT_TEMPLATE_LIMITS, maxSteps: 5 });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses %p', (value) => {
    expect(() => resolveLimits({ maxOutputSize: value })).toThrow('limit maxOutputSize must be a positive integer');
  });
});
