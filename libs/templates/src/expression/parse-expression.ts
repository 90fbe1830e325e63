import { type AnyNode, type Options, parseExpressionAt } from 'acorn';
import { TemplateError } from '../errors/template-error';
import type { TemplateLimits } from '../limits/template-limits';
import { AcornConverter } from './acorn-converter';
import type { ExpressionNode } from './expression-node';

export interface ParsedExpression {
  readonly root: ExpressionNode;
  /** Every name the expression reads (built-ins included), with its offset. */
  readonly identifiers: readonly { readonly name: string; readonly start: number }[];
}

// Module code is strict: `yield`, `let` and friends are reserved words, `with` and octal escapes are
// syntax errors. Parentheses are kept so the end of the parsed expression is the end of its text.
const ACORN_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowHashBang: false,
  preserveParens: true,
};

/** Parses one placeholder's expression and checks it uses only what the language has. */
export function parseExpression(source: string, limits: Readonly<TemplateLimits>): ParsedExpression {
  if (source.length > limits.maxExpressionLength) {
    throw new TemplateError('limit', `the expression is longer than ${limits.maxExpressionLength} characters`);
  }
  if (source.trim() === '') throw new TemplateError('syntax', 'the placeholder is empty');

  let comment: number | undefined;
  let tree: AnyNode;
  try {
    tree = parseExpressionAt(source, 0, {
      ...ACORN_OPTIONS,
      onComment: (_block, _text, start) => void (comment ??= start),
    });
  } catch (err) {
    throw fromParserError(err);
  }
  if (comment !== undefined) {
    throw new TemplateError('unsupported', 'templates do not support comments', { expressionOffset: comment });
  }
  const rest = source.slice(tree.end);
  if (rest.trim() !== '') {
    throw new TemplateError('syntax', 'unexpected text after the expression', {
      expressionOffset: tree.end + (rest.length - rest.trimStart().length),
    });
  }

  const identifiers: { name: string; start: number }[] = [];
  const root = new AcornConverter(limits.maxExpressionDepth, identifiers).convert(tree, 0);
  return { root, identifiers };
}

function fromParserError(err: unknown): TemplateError {
  // acorn recurses per nesting level and reports running out of stack as a SyntaxError of its own.
  if (err instanceof RangeError || (err instanceof SyntaxError && err.message.startsWith('Not enough stack space'))) {
    return new TemplateError('limit', 'the expression nests too deeply to parse');
  }
  if (err instanceof SyntaxError) {
    // acorn appends "(line:column)"; the offset is reported separately.
    const reason = err.message.replace(/\s*\(\d+:\d+\)$/, '');
    const pos = (err as SyntaxError & { pos?: unknown }).pos;
    return new TemplateError('syntax', `syntax error: ${reason}`, {
      expressionOffset: typeof pos === 'number' ? pos : undefined,
    });
  }
  throw err;
}
