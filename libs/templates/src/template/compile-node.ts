import { TemplateError, type TemplateErrorLocation, type TemplatePathSegment } from '../errors/template-error';
import { parseExpression } from '../expression/parse-expression';
import type { TemplateLimits } from '../limits/template-limits';
import { scanPlaceholders, type StringSegment } from './scan-placeholders';
import type { PlaceholderNode, TemplateNode } from './template-node';

/** Receives each problem found; throwing from it stops at the first. */
export type ReportError = (error: TemplateError) => void;

type Loc = readonly TemplatePathSegment[];

/**
 * Walks a template (JSON-like data) and compiles every string in it. Object keys are taken as they
 * are; only values are templates. Problems go to `report` with their template path, and the walk
 * carries on past them so validation can list them all.
 */
export function compileNode(
  value: unknown,
  limits: Readonly<TemplateLimits>,
  loc: Loc,
  report: ReportError,
): TemplateNode {
  return new TemplateCompiler(limits, report).walk(value, loc, 0);
}

class TemplateCompiler {
  constructor(
    private readonly limits: Readonly<TemplateLimits>,
    private readonly report: ReportError,
  ) {}

  walk(value: unknown, loc: Loc, depth: number): TemplateNode {
    switch (typeof value) {
      case 'string':
        return this.string(value, loc);
      case 'number':
        return Number.isFinite(value)
          ? { kind: 'constant', value }
          : this.invalid(loc, 'a template number must be finite');
      case 'boolean':
      case 'undefined':
        return { kind: 'constant', value };
      case 'object':
        break;
      default:
        return this.invalid(loc, `a template value must be JSON data, not a ${typeof value}`);
    }
    if (value === null) return { kind: 'constant', value: null };
    if (depth >= this.limits.maxDataDepth) {
      return this.invalid(loc, `the template nests deeper than ${this.limits.maxDataDepth} levels`, 'limit');
    }
    if (Array.isArray(value)) {
      const list: readonly unknown[] = value;
      // A hole would otherwise read through to Array.prototype.
      const items = list.map((item, i) => this.walk(Object.hasOwn(list, i) ? item : undefined, [...loc, i], depth + 1));
      return { kind: 'array', items };
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      return this.invalid(loc, `a template value must be JSON data, not ${Object.prototype.toString.call(value)}`);
    }
    return this.object(value, loc, depth);
  }

  private object(value: object, loc: Loc, depth: number): TemplateNode {
    const entries: [string, TemplateNode][] = [];
    for (const [key, desc] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
      if (!desc.enumerable) continue;
      const at = [...loc, key];
      if (key === '__proto__') {
        // Rendered objects end up merged into ordinary objects, where this key would set the prototype.
        this.report(new TemplateError('forbidden', 'the key "__proto__" is not allowed', { loc: at }));
      } else if (!('value' in desc)) {
        this.invalid(at, 'a template value must be data, not a getter');
      } else {
        entries.push([key, this.walk(desc.value, at, depth + 1)]);
      }
    }
    return { kind: 'object', entries };
  }

  private string(text: string, loc: Loc): TemplateNode {
    let segments: StringSegment[];
    try {
      segments = scanPlaceholders(text);
    } catch (err) {
      this.report(located(err, { loc }));
      return { kind: 'constant', value: text };
    }
    const parts: (string | PlaceholderNode)[] = [];
    for (const segment of segments) {
      if (segment.kind === 'text') {
        parts.push(segment.text);
        continue;
      }
      const { source, position } = segment;
      try {
        parts.push({ expression: parseExpression(source, this.limits), source, position, loc });
      } catch (err) {
        this.report(located(err, { placeholder: source, position, loc }));
      }
    }
    if (parts.every((part) => typeof part === 'string')) return { kind: 'constant', value: text };
    const only = segments[0];
    const whole =
      segments.length === 1 && only.kind === 'placeholder' && only.position === 0 && only.end === text.length;
    const first = parts[0];
    if (whole && typeof first === 'object') return { kind: 'whole', placeholder: first };
    return { kind: 'text', parts, loc };
  }

  private invalid(loc: Loc, reason: string, code: 'type' | 'limit' = 'type'): TemplateNode {
    this.report(new TemplateError(code, reason, { loc }));
    return { kind: 'constant', value: null };
  }
}

function located(err: unknown, where: TemplateErrorLocation): TemplateError {
  if (err instanceof TemplateError) return err.at(where);
  throw err;
}

/** Every placeholder of a compiled template, in document order. */
export function placeholdersOf(node: TemplateNode): PlaceholderNode[] {
  switch (node.kind) {
    case 'constant':
      return [];
    case 'whole':
      return [node.placeholder];
    case 'text':
      return node.parts.filter((part): part is PlaceholderNode => typeof part === 'object');
    case 'array':
      return node.items.flatMap(placeholdersOf);
    case 'object':
      return node.entries.flatMap(([, child]) => placeholdersOf(child));
  }
}
