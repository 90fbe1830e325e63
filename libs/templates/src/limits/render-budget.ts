import { TemplateError } from '../errors/template-error';
import type { TemplateLimits } from './template-limits';

/**
 * What one render may spend in total, across all of its placeholders: evaluation steps and
 * characters of strings built (intermediate ones included: `a + b` builds a string even when only
 * its comparison reaches the output). The per-expression limits alone let a template of many
 * placeholders, each building megabyte strings, take seconds of CPU per render.
 */
export class RenderBudget {
  private steps = 0;
  private chars = 0;

  constructor(private readonly limits: Pick<TemplateLimits, 'maxRenderSteps' | 'maxRenderChars'>) {}

  step(count: number): void {
    this.steps += count;
    if (this.steps > this.limits.maxRenderSteps) {
      throw new TemplateError(
        'limit',
        `the template needs more than ${this.limits.maxRenderSteps} evaluation steps in total`,
      );
    }
  }

  build(length: number): void {
    this.chars += length;
    if (this.chars > this.limits.maxRenderChars) {
      throw new TemplateError(
        'limit',
        `the template builds more than ${this.limits.maxRenderChars} characters of strings in total`,
      );
    }
  }

  get stepsUsed(): number {
    return this.steps;
  }

  get charsBuilt(): number {
    return this.chars;
  }
}

/**
 * The budget of the render in progress. Rendering is synchronous, so the one render running on
 * this thread is the one charged; outside a render nothing is charged.
 */
let current: RenderBudget | undefined;

/** Runs `fn` (a whole render or evaluation) charging `budget`. */
export function withRenderBudget<T>(budget: RenderBudget, fn: () => T): T {
  const previous = current;
  current = budget;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

export function chargeSteps(count: number): void {
  current?.step(count);
}

export function chargeChars(length: number): void {
  current?.build(length);
}
