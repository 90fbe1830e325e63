import { TemplateError } from '../errors/template-error';
import type { TemplateValue } from '../values/template-value';

/** Refuses a call with the wrong number of arguments, so `f(a, b)` never silently drops `b`. */
export function expectArgumentCount(name: string, args: readonly TemplateValue[], min: number, max = min): void {
  if (args.length < min || args.length > max) {
    const wanted = min === max ? `${min}` : `${min} to ${max}`;
    throw new TemplateError('type', `${name}() takes ${wanted} argument${max === 1 ? '' : 's'}, got ${args.length}`);
  }
}
