import { TemplateError } from '../errors/template-error';

/** A piece of a template string: literal text, or one `{{ expression }}`. */
export type StringSegment =
  | { kind: 'text'; text: string }
  | {
      kind: 'placeholder';
      /** The expression between the braces, trimmed. */
      source: string;
      /** Offset of `{{` in the string. */
      position: number;
      /** Offset just past the closing `}}`. */
      end: number;
    };

type Context = 'root' | 'brace' | 'substitution' | 'template';

/**
 * Splits a string into text and placeholders. A placeholder ends at the first `}}` outside any string
 * literal, template literal or object literal of its expression, so `{{ {a: {b: 1}} }}` and
 * `{{ '}}' }}` work. Literal `{{` in text is written `{{ '{{' }}`.
 */
export function scanPlaceholders(text: string): StringSegment[] {
  const segments: StringSegment[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('{{', from);
    if (open < 0) break;
    if (open > from) segments.push({ kind: 'text', text: text.slice(from, open) });
    const close = findClose(text, open + 2);
    if (close < 0) {
      throw new TemplateError('syntax', 'the placeholder is not closed with "}}"', { position: open });
    }
    segments.push({ kind: 'placeholder', source: text.slice(open + 2, close).trim(), position: open, end: close + 2 });
    from = close + 2;
  }
  if (from < text.length) segments.push({ kind: 'text', text: text.slice(from) });
  return segments;
}

/** Offset of the `}}` that closes a placeholder whose expression starts at `start`, or -1. */
function findClose(text: string, start: number): number {
  const stack: Context[] = ['root'];
  let i = start;
  while (i < text.length) {
    const c = text[i];
    const context = stack[stack.length - 1];
    if (context === 'template') {
      if (c === '\\') {
        i += 2;
      } else if (c === '$' && text[i + 1] === '{') {
        stack.push('substitution');
        i += 2;
      } else {
        if (c === '`') stack.pop();
        i++;
      }
      continue;
    }
    if (c === "'" || c === '"') {
      i = skipQuoted(text, i);
    } else if (c === '`') {
      stack.push('template');
      i++;
    } else if (c === '{') {
      stack.push('brace');
      i++;
    } else if (c === '}') {
      if (context === 'root') {
        if (text[i + 1] === '}') return i;
      } else {
        stack.pop();
      }
      i++;
    } else {
      i++;
    }
  }
  return -1;
}

/** Past the end of the quoted string at `i`; an unterminated one ends at the line break, as in JS. */
function skipQuoted(text: string, i: number): number {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === quote) return j + 1;
    else if (c === '\n') return j;
    else j++;
  }
  return j;
}
