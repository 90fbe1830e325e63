/**
 * The prefix language of an RE2 pattern: a pattern matching exactly the beginnings of the texts
 * the given pattern matches (the empty text included), made from its syntax. `(?:P')\z` then finds,
 * with one search from the end of a growing text, the earliest offset from which the text so far
 * could still become a match: what a stream must hold back.
 *
 * Over-approximations keep it safe: assertions (`^`, `$`, `\b`, `\B`, `\A`, `\z`) are dropped,
 * which only adds prefixes; anything unknown gives up (undefined), and the caller falls back to
 * holding back the longest possible match.
 */

type Node =
  | { readonly k: 'atom'; readonly src: string }
  | { readonly k: 'empty' }
  | { readonly k: 'cat'; readonly items: readonly Node[] }
  | { readonly k: 'alt'; readonly items: readonly Node[] }
  | { readonly k: 'rep'; readonly item: Node; readonly min: number; readonly max: number };

class Unsupported extends Error {}

/** RE2 source for the prefixes of `pattern`'s matches, or undefined when it cannot be built. */
export function prefixPattern(pattern: string): string | undefined {
  try {
    const parser = new Parser(pattern);
    const node = parser.alternation();
    if (parser.i < pattern.length) return undefined;
    return pre(node);
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

function src(n: Node): string {
  switch (n.k) {
    case 'atom':
      return n.src;
    case 'empty':
      return '';
    case 'cat':
      return n.items.map(src).join('');
    case 'alt':
      return `(?:${n.items.map(src).join('|')})`;
    case 'rep':
      return `(?:${src(n.item)}){${n.min},${Number.isFinite(n.max) ? n.max : ''}}`;
  }
}

function pre(n: Node): string {
  switch (n.k) {
    case 'atom':
      return `(?:${n.src})?`;
    case 'empty':
      return '';
    case 'cat': {
      // pre(a b c) = pre(a) | a (pre(b) | b pre(c))
      let out = '';
      for (let k = n.items.length - 1; k >= 0; k--) {
        const item = n.items[k];
        out = k === n.items.length - 1 ? pre(item) : `(?:${pre(item)}|${src(item)}${out})`;
      }
      return out;
    }
    case 'alt':
      return `(?:${n.items.map(pre).join('|')})`;
    case 'rep': {
      if (n.max === 0) return '';
      const reps = Number.isFinite(n.max) ? (n.max - 1 === 0 ? '' : `{0,${n.max - 1}}`) : '*';
      return reps === '' ? pre(n.item) : `(?:${src(n.item)})${reps}${pre(n.item)}`;
    }
  }
}

const GROUP = /^\?(?:P?<[^>]*>|([a-zA-Z]*(?:-[a-zA-Z]*)?)(:|\)))/;

class Parser {
  i = 0;
  private flags = '';

  constructor(private readonly p: string) {}

  alternation(): Node {
    const items = [this.concatenation()];
    while (this.p[this.i] === '|') {
      this.i++;
      items.push(this.concatenation());
    }
    return items.length === 1 ? items[0] : { k: 'alt', items };
  }

  private concatenation(): Node {
    const items: Node[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const quoted = this.p.startsWith('\\Q', this.i);
      let atom = this.atom();
      if (quoted && atom.k === 'cat') {
        // A quantifier after \Q...\E repeats its last character only.
        items.push(...atom.items.slice(0, -1));
        atom = atom.items[atom.items.length - 1];
      }
      atom = this.repeated(atom);
      if (atom.k !== 'empty') items.push(atom);
    }
    return items.length === 0 ? { k: 'empty' } : items.length === 1 ? items[0] : { k: 'cat', items };
  }

  private repeated(atom: Node): Node {
    for (;;) {
      const ch = this.p[this.i];
      let min: number;
      let max: number;
      if (ch === '*' || ch === '+' || ch === '?') {
        this.i++;
        min = ch === '+' ? 1 : 0;
        max = ch === '?' ? 1 : Infinity;
      } else if (ch === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24));
        if (!m) return atom;
        this.i += m[0].length;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      } else {
        return atom;
      }
      if (this.p[this.i] === '?') this.i++;
      atom = atom.k === 'empty' ? atom : { k: 'rep', item: atom, min, max };
    }
  }

  /** One code point's pattern, carrying the flags in force so it can be moved. */
  private wrap(text: string): Node {
    return { k: 'atom', src: this.flags ? `(?${this.flags}:${text})` : text };
  }

  private atom(): Node {
    const ch = this.p[this.i];
    if (ch === '(') return this.group();
    if (ch === '^' || ch === '$') {
      this.i++;
      return { k: 'empty' };
    }
    if (ch === '[') {
      const end = classEnd(this.p, this.i);
      const text = this.p.slice(this.i, end);
      this.i = end;
      return this.wrap(text);
    }
    if (ch === '\\') return this.escape();
    const cp = this.p.codePointAt(this.i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const text = this.p.slice(this.i, this.i + width);
    this.i += width;
    if (ch === '*' || ch === '+' || ch === '?' || ch === '{') return this.wrap(`\\${text}`);
    return this.wrap(text);
  }

  private escape(): Node {
    const next = this.p[this.i + 1] ?? '';
    if ('bBAzZ'.includes(next)) {
      this.i += 2;
      return { k: 'empty' };
    }
    if (next === 'Q') {
      const end = this.p.indexOf('\\E', this.i + 2);
      const text = this.p.slice(this.i + 2, end < 0 ? this.p.length : end);
      this.i = end < 0 ? this.p.length : end + 2;
      const items = [...text].map((c) => this.wrap(c.replace(/[\\^$.*+?()[\]{}|]/, '\\$&')));
      return items.length === 0 ? { k: 'empty' } : items.length === 1 ? items[0] : { k: 'cat', items };
    }
    if (next === 'p' || next === 'P') {
      const m = /^\\[pP](\{[^}]*\}|.)/u.exec(this.p.slice(this.i));
      if (!m) throw new Unsupported();
      this.i += m[0].length;
      return this.wrap(m[0]);
    }
    if (next === 'x') {
      const m = /^\\x(\{[0-9a-fA-F]+\}|[0-9a-fA-F]{2})/.exec(this.p.slice(this.i));
      if (!m) throw new Unsupported();
      this.i += m[0].length;
      return this.wrap(m[0]);
    }
    if (/[0-7]/.test(next)) {
      const m = /^\\[0-7]{1,3}/.exec(this.p.slice(this.i)) as RegExpExecArray;
      this.i += m[0].length;
      return this.wrap(m[0]);
    }
    if (next === 'C') throw new Unsupported();
    const cp = this.p.codePointAt(this.i + 1);
    const width = cp !== undefined && cp > 0xffff ? 2 : 1;
    const text = this.p.slice(this.i, this.i + 1 + width);
    this.i += 1 + width;
    return this.wrap(text);
  }

  private group(): Node {
    this.i++;
    const saved = this.flags;
    if (this.p[this.i] === '?') {
      const m = GROUP.exec(this.p.slice(this.i, this.i + 80));
      if (!m) throw new Unsupported();
      this.i += m[0].length;
      if (m[1] !== undefined) this.flags = mergeFlags(this.flags, m[1]);
      if (m[2] === ')') return { k: 'empty' }; // flags for the rest of the enclosing group
    }
    const inner = this.alternation();
    if (this.p[this.i] !== ')') throw new Unsupported();
    this.i++;
    this.flags = saved;
    return inner;
  }
}

/** The flags in force after `(?flags)`, as RE2 reads `on-off`; only `i`, `s` and `U` matter here. */
function mergeFlags(current: string, change: string): string {
  const [on, off = ''] = change.split('-');
  const set = new Set(
    current
      .replace('-', '')
      .split('')
      .filter((f) => 'isU'.includes(f)),
  );
  for (const f of on) if ('isU'.includes(f)) set.add(f);
  for (const f of off) set.delete(f);
  const kept = [...set]
    .filter((f) => f !== 'U')
    .sort()
    .join('');
  const cleared = ['i', 's'].filter((f) => !set.has(f)).join('');
  // Always state both, so a moved piece does not inherit flags from where it lands.
  return `${kept}${cleared ? `-${cleared}` : ''}`;
}

function classEnd(p: string, start: number): number {
  let i = start + 1;
  if (p[i] === '^') i++;
  if (p[i] === ']') i++;
  while (i < p.length && p[i] !== ']') {
    if (p[i] === '\\') i += 2;
    else if (p.startsWith('[:', i)) {
      const close = p.indexOf(':]', i + 2);
      i = close < 0 ? i + 1 : close + 2;
    } else i++;
  }
  if (i >= p.length) throw new Unsupported();
  return i + 1;
}
