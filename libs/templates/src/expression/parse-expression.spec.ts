import { TemplateError } from '../errors/template-error';
import { DEFAULT_TEMPLATE_LIMITS, resolveLimits } from '../limits/template-limits';
import { parseExpression } from './parse-expression';

const parse = (source: string, limits = DEFAULT_TEMPLATE_LIMITS) => parseExpression(source, limits);

function errorOf(source: string, limits = DEFAULT_TEMPLATE_LIMITS): TemplateError {
  try {
    parse(source, limits);
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error(`expected ${source} to be refused`);
}

describe('parseExpression', () => {
  it('lists the names an expression reads, with offsets', () => {
    expect(parse('a.b + c[d] + String.decode(e)').identifiers).toEqual([
      { name: 'a', start: 0 },
      { name: 'c', start: 6 },
      { name: 'd', start: 8 },
      { name: 'String', start: 13 },
      { name: 'e', start: 27 },
    ]);
  });

  it.each([
    ['a = 1', 'templates do not support assignment ("=")'],
    ['a += 1', 'templates do not support assignment ("+=")'],
    ['a ??= 1', 'templates do not support assignment ("??=")'],
    ['a++', 'templates do not support the "++" operator'],
    ['--a', 'templates do not support the "--" operator'],
    ['new Date()', 'templates do not support "new"'],
    ['this', 'templates do not support "this"'],
    ['() => 1', 'templates do not support arrow functions'],
    ['async () => 1', 'templates do not support arrow functions'],
    ['function () { return 1 }', 'templates do not support function expressions'],
    ['class {}', 'templates do not support classes'],
    ['a, b', 'templates do not support the comma operator'],
    ['a in b', 'templates do not support the "in" operator'],
    ['a instanceof b', 'templates do not support the "instanceof" operator'],
    ['2 ** 3', 'templates do not support the "**" operator'],
    ['a | b', 'templates do not support the "|" operator'],
    ['a & b', 'templates do not support the "&" operator'],
    ['a ^ b', 'templates do not support the "^" operator'],
    ['a << 1', 'templates do not support the "<<" operator'],
    ['a >>> 1', 'templates do not support the ">>>" operator'],
    ['~a', 'templates do not support the "~" operator'],
    ['delete a.b', 'templates do not support the "delete" operator'],
    ['void 0', 'templates do not support the "void" operator'],
    ['tag`x`', 'templates do not support tagged templates'],
    ['String.raw`x`', 'templates do not support tagged templates'],
    ['/x/g', 'templates do not support regular expression literals'],
    ['1n', 'templates do not support BigInt literals'],
    ['await a', 'templates do not support "await"'],
    ['import("fs")', 'templates do not support "import()"'],
    ['import.meta', 'templates do not support "import.meta"'],
    ['[1, , 2]', 'templates do not support an array with holes'],
    ['{[k]: 1}', 'templates do not support computed keys'],
    ['{m() { return 1 }}', 'templates do not support methods'],
    ['{get x() { return 1 }}', 'templates do not support getters and setters'],
    ['JSON.stringify(...a)', 'templates do not support spread arguments'],
    ['a /* note */ + b', 'templates do not support comments'],
  ])('refuses %s, naming the construct', (source, reason) => {
    const err = errorOf(source);
    expect(err.code).toBe('unsupported');
    expect(err.reason).toBe(reason);
  });

  it.each([
    ['yield', "syntax error: The keyword 'yield' is reserved"],
    ['let', "syntax error: The keyword 'let' is reserved"],
    ['super.x', "syntax error: 'super' keyword outside a method"],
    ['new.target', "syntax error: 'new.target' can only be used in functions and class static block"],
    ['#x in a', 'syntax error: Unexpected token'],
    ["'\\08'", 'syntax error: Octal literal in strict mode'],
  ])('refuses %s as a syntax error', (source, reason) => {
    const err = errorOf(source);
    expect(err.code).toBe('syntax');
    expect(err.reason).toBe(reason);
  });

  it('reports where a syntax error is', () => {
    const err = errorOf('a + * b');
    expect(err.code).toBe('syntax');
    expect(err.reason).toBe('syntax error: Unexpected token');
    expect(err.expressionOffset).toBe(4);
  });

  it('refuses text after the expression, which acorn would otherwise ignore', () => {
    const err = errorOf('a b');
    expect(err.reason).toBe('unexpected text after the expression');
    expect(err.expressionOffset).toBe(2);
    expect(errorOf('a; b').reason).toBe('unexpected text after the expression');
    expect(errorOf('a // trailing').code).toBe('unsupported');
  });

  it('keeps parentheses in mind when finding the end', () => {
    expect(parse('({a: 1})').root).toMatchObject({ kind: 'object' });
    expect(parse('  (a) + (b)  ').root).toMatchObject({ kind: 'binary' });
  });

  it('refuses an empty expression', () => {
    expect(errorOf('   ').reason).toBe('the placeholder is empty');
  });

  it.each([
    ['__proto__', 'forbidden'],
    ['a.__proto__', 'forbidden'],
    ["a['constructor']", 'forbidden'],
    ['a?.prototype', 'forbidden'],
    ['{__proto__: {}}', 'forbidden'],
    ["{'constructor': 1}", 'forbidden'],
    ['process', 'forbidden'],
    ['require', 'forbidden'],
    ['globalThis', 'forbidden'],
    ['Function', 'forbidden'],
    ['eval', 'forbidden'],
  ])('refuses %s before evaluation', (source, code) => {
    expect(errorOf(source).code).toBe(code);
  });

  it('refuses an expression over the length limit', () => {
    const limits = resolveLimits({ maxExpressionLength: 10 });
    expect(parse('a + b + cc', limits).root.kind).toBe('binary');
    const err = errorOf('a + b + ccc', limits);
    expect(err.code).toBe('limit');
    expect(err.reason).toBe('the expression is longer than 10 characters');
  });

  it('refuses an expression nested past the depth limit', () => {
    const limits = resolveLimits({ maxExpressionDepth: 5 });
    expect(parse('[[[[1]]]]', limits).root.kind).toBe('array');
    const err = errorOf('[[[[[[1]]]]]]', limits);
    expect(err.code).toBe('limit');
    expect(err.reason).toBe('the expression nests deeper than 5 levels');
  });
});
