/**
 * Kubernetes-style label selectors: `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a, b)`,
 * `key notin (a, b)`, joined by commas (AND). Parsing is separate from matching so a malformed
 * selector is refused before any data is read.
 */
export type Requirement =
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] };

export type Selector = Requirement[];

export class SelectorSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
    this.name = 'SelectorSyntaxError';
  }
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

type Tok = { kind: 'word' | 'op' | 'punct'; text: string; pos: number };

function tokenize(input: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === ',' || c === '(' || c === ')') {
      toks.push({ kind: 'punct', text: c, pos: i++ });
    } else if (c === '=' || c === '!') {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        toks.push({ kind: 'op', text: two, pos: i });
        i += 2;
      } else {
        toks.push({ kind: 'op', text: c, pos: i++ });
      }
    } else {
      const start = i;
      while (i < input.length && !' \t,()=!'.includes(input[i])) i++;
      toks.push({ kind: 'word', text: input.slice(start, i), pos: start });
    }
  }
  return toks;
}

function checkKey(key: string, pos: number): string {
  const slash = key.indexOf('/');
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : [undefined, key];
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    throw new SelectorSyntaxError(`invalid label key prefix "${prefix}"`, pos);
  }
  if (!NAME.test(name)) throw new SelectorSyntaxError(`invalid label key "${key}"`, pos);
  return key;
}

function checkValue(value: string, pos: number): string {
  if (value !== '' && !NAME.test(value)) throw new SelectorSyntaxError(`invalid label value "${value}"`, pos);
  return value;
}

export function parseSelector(input: string): Selector {
  const toks = tokenize(input);
  let i = 0;
  const peek = (): Tok | undefined => toks[i];
  const end = input.length;
  const expectWord = (what: string): Tok => {
    const t = toks[i];
    if (!t || t.kind !== 'word') throw new SelectorSyntaxError(`expected ${what}`, t?.pos ?? end);
    i++;
    return t;
  };
  const expectPunct = (p: string): void => {
    const t = toks[i];
    if (!t || t.kind !== 'punct' || t.text !== p) throw new SelectorSyntaxError(`expected "${p}"`, t?.pos ?? end);
    i++;
  };

  const requirements: Selector = [];
  if (toks.length === 0) return requirements;
  for (;;) {
    const t = peek();
    if (t?.kind === 'op' && t.text === '!') {
      i++;
      const k = expectWord('a label key after "!"');
      requirements.push({ op: 'notexists', key: checkKey(k.text, k.pos) });
    } else {
      const k = expectWord('a label key');
      const key = checkKey(k.text, k.pos);
      const next = peek();
      if (!next || (next.kind === 'punct' && next.text === ',')) {
        requirements.push({ op: 'exists', key });
      } else if (next.kind === 'op' && next.text !== '!') {
        i++;
        const v = peek();
        // An empty value (`key=`) is allowed, as in Kubernetes.
        const value = v && v.kind === 'word' ? (i++, checkValue(v.text, v.pos)) : '';
        requirements.push({ op: next.text === '!=' ? 'neq' : 'eq', key, value });
      } else if (next.kind === 'word' && (next.text === 'in' || next.text === 'notin')) {
        i++;
        expectPunct('(');
        const values: string[] = [];
        for (;;) {
          const v = expectWord('a value');
          values.push(checkValue(v.text, v.pos));
          const sep = peek();
          if (sep?.kind === 'punct' && sep.text === ',') {
            i++;
            continue;
          }
          break;
        }
        expectPunct(')');
        requirements.push({ op: next.text === 'in' ? 'in' : 'notin', key, values });
      } else {
        throw new SelectorSyntaxError(`unexpected "${next.text}"`, next.pos);
      }
    }
    const sep = peek();
    if (!sep) break;
    if (sep.kind === 'punct' && sep.text === ',') {
      i++;
      if (!peek()) throw new SelectorSyntaxError('expected a requirement after ","', end);
      continue;
    }
    throw new SelectorSyntaxError(`unexpected "${sep.text}"`, sep.pos);
  }
  return requirements;
}

export function matchesSelector(selector: Selector, labels: Record<string, string>): boolean {
  return selector.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    const value = labels[r.key];
    switch (r.op) {
      case 'exists':
        return has;
      case 'notexists':
        return !has;
      case 'eq':
        return has && value === r.value;
      case 'neq':
        return !has || value !== r.value;
      case 'in':
        return has && r.values.includes(value);
      case 'notin':
        return !has || !r.values.includes(value);
    }
  });
}
