import type { TemplatePathSegment } from '../errors/template-error';
import type { ParsedExpression } from '../expression/parse-expression';

/** One `{{ expression }}`, with what an error needs to point at it. */
export interface PlaceholderNode {
  readonly expression: ParsedExpression;
  readonly source: string;
  readonly position: number;
  readonly loc: readonly TemplatePathSegment[];
}

/** A compiled template: the shape of the value, with each string split at its placeholders. */
export type TemplateNode =
  | { readonly kind: 'constant'; readonly value: undefined | null | boolean | number | string }
  // A string that is exactly one placeholder: renders to the expression's value, of any type.
  | { readonly kind: 'whole'; readonly placeholder: PlaceholderNode }
  // Text with placeholders in it: renders to a string.
  | {
      readonly kind: 'text';
      readonly parts: readonly (string | PlaceholderNode)[];
      readonly loc: readonly TemplatePathSegment[];
    }
  | { readonly kind: 'array'; readonly items: readonly TemplateNode[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, TemplateNode])[] };
