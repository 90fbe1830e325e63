import { TemplateError } from '../errors/template-error';
import { evaluateExpression } from './evaluate-expression';

const data = {
  o: { a: { b: [{ c: 'deep' }] }, 'b-c': 2, n: 0, s: '', flag: false, nil: null },
  list: [10, 20, 30],
  s: 'héllo',
  n: 42,
  nested: { inner: { x: 1 } },
};
const ev = (source: string, scope: Readonly<Record<string, unknown>> = data) => evaluateExpression(source, scope);

function errorOf(source: string, scope: Readonly<Record<string, unknown>> = data): TemplateError {
  try {
    ev(source, scope);
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('literals', () => {
  it.each([
    ["'single'", 'single'],
    ['"double"', 'double'],
    ["'esc\\'aped\\n'", "esc'aped\n"],
    ['1.5', 1.5],
    ['0x10', 16],
    ['1e3', 1000],
    ['1_000', 1000],
    ['true', true],
    ['false', false],
    ['null', null],
  ])('%s', (source, expected) => {
    expect(ev(source)).toEqual(expected);
  });

  it('reads `undefined` as the missing value', () => {
    expect(ev('undefined')).toBeUndefined();
  });

  it('interpolates template literals with the placeholder text rules', () => {
    expect(ev('`a${1 + 1}b`')).toBe('a2b');
    expect(ev('`${null}|${undefined}|${[1, 2]}|${ {k: "v"} }|${true}`')).toBe('||[1,2]|{"k":"v"}|true');
    expect(ev('`x ${ `inner ${n}` } y`')).toBe('x inner 42 y');
  });
});

describe('object and array literals', () => {
  it('builds objects with unquoted, quoted and numeric keys', () => {
    expect(ev(`{a: 1, 'b-c': 2, "d": 3, 4: 5, nested: {e: [true]}}`)).toEqual({
      a: 1,
      'b-c': 2,
      d: 3,
      '4': 5,
      nested: { e: [true] },
    });
  });

  it('takes shorthand properties from the scope', () => {
    expect(ev('{n, s}')).toEqual({ n: 42, s: 'héllo' });
  });

  it('spreads objects, later keys winning, and ignores spread null or undefined', () => {
    expect(ev('{...nested.inner, y: 2, ...{x: 3}}')).toEqual({ x: 3, y: 2 });
    expect(ev('{...missing, ...null, a: 1}')).toEqual({ a: 1 });
  });

  it('refuses to spread anything but an object into an object', () => {
    expect(errorOf('{...list}').reason).toBe('only an object can be spread into an object, got an array');
    expect(errorOf('{...s}').reason).toBe('only an object can be spread into an object, got a string');
  });

  it('builds arrays, with spreads of arrays only', () => {
    expect(ev("[1, 'a', null, [2], {k: 1}]")).toEqual([1, 'a', null, [2], { k: 1 }]);
    expect(ev('[0, ...list, 40]')).toEqual([0, 10, 20, 30, 40]);
    expect(errorOf('[...s]').reason).toBe('only an array can be spread into an array, got a string');
    expect(errorOf('[...missing]').reason).toBe('only an array can be spread into an array, got undefined');
  });

  it('renders undefined items as null and leaves undefined properties out', () => {
    expect(ev('[missing, 1]')).toEqual([null, 1]);
    expect(ev('{a: missing, b: 1}')).toEqual({ b: 1 });
  });
});

describe('member access', () => {
  it.each([
    ['o.a.b[0].c', 'deep'],
    ["o['b-c']", 2],
    ['o["a"]["b"][0]["c"]', 'deep'],
    ['list[0]', 10],
    ["list['2']", 30],
    ['list[1 + 1]', 30],
    ['list.length', 3],
    ['s.length', 5],
    ['s[1]', 'é'],
    ['o.n', 0],
    ['o.nil', null],
  ])('%s', (source, expected) => {
    expect(ev(source)).toEqual(expected);
  });

  it('reads a missing property or an index out of range as undefined', () => {
    expect(ev('o.missing')).toBeUndefined();
    expect(ev('list[3]')).toBeUndefined();
    expect(ev('list[-1]')).toBeUndefined();
    expect(ev('list[0.5]')).toBeUndefined();
    expect(ev('s[99]')).toBeUndefined();
  });

  it('fails on reading through null or undefined, pointing at the property', () => {
    const err = errorOf('1 + o.missing.x');
    expect(err.code).toBe('type');
    expect(err.reason).toBe('cannot read "x" of undefined (use "?." if it may be missing)');
    expect(err.expressionOffset).toBe(14);
    expect(errorOf('o.nil.x').reason).toBe('cannot read "x" of null (use "?." if it may be missing)');
  });

  it('gives numbers, booleans, strings and arrays no properties beyond length and indexes', () => {
    expect(errorOf('n.x').reason).toBe('cannot read "x" of a number');
    expect(errorOf('o.flag.x').reason).toBe('cannot read "x" of a boolean');
    expect(errorOf('s.toUpperCase').reason).toBe(
      'strings have only "length" and indexes; "toUpperCase" is not available',
    );
    expect(errorOf('list.map').reason).toBe('arrays have only "length" and indexes; "map" is not available');
  });
});

describe('optional chaining', () => {
  it.each([
    ['missing?.a', undefined],
    ['missing?.a.b.c', undefined],
    ['missing?.[0]', undefined],
    ['o?.a?.b?.[0]?.c', 'deep'],
    ['o.a?.b?.[5]?.c', undefined],
    ['o.nil?.x', undefined],
    ['list?.[1]', 20],
    ['missing?.()', undefined],
    ['JSON?.stringify?.(1)', '1'],
    ['o.missing?.()', undefined],
  ])('%s', (source, expected) => {
    expect(ev(source)).toEqual(expected);
  });

  it('short-circuits only to the end of the chain, as in JavaScript', () => {
    expect(errorOf('(missing?.a).b').reason).toBe('cannot read "b" of undefined (use "?." if it may be missing)');
  });

  it('still checks the value it does not skip', () => {
    expect(errorOf('n?.x').reason).toBe('cannot read "x" of a number');
  });
});

describe('unary operators', () => {
  it.each([
    ['!true', false],
    ['!0', true],
    ["!''", true],
    ['![]', false],
    ['!{}', false],
    ['!!missing', false],
    ['-5', -5],
    ['-(-n)', 42],
    ['+n', 42],
    ["+'42'", 42],
    ["+' 3.5 '", 3.5],
    ["+'-1e2'", -100],
    ['typeof 1', 'number'],
    ["typeof ''", 'string'],
    ['typeof true', 'boolean'],
    ['typeof null', 'object'],
    ['typeof list', 'object'],
    ['typeof o', 'object'],
    ['typeof missing', 'undefined'],
    ['typeof JSON.stringify', 'function'],
  ])('%s', (source, expected) => {
    expect(ev(source)).toEqual(expected);
  });

  it.each([
    ["-'5'", 'unary "-" needs a number, got a string'],
    ["+'abc'", 'unary "+" needs a number or a numeric string, got a string'],
    ["+''", 'unary "+" needs a number or a numeric string, got a string'],
    ['+true', 'unary "+" needs a number or a numeric string, got a boolean'],
    ['+null', 'unary "+" needs a number or a numeric string, got null'],
  ])('%s is refused', (source, reason) => {
    expect(errorOf(source).reason).toBe(reason);
  });
});

describe('arithmetic', () => {
  it.each([
    ['7 + 2', 9],
    ['7 - 2', 5],
    ['7 * 2', 14],
    ['7 / 2', 3.5],
    ['7 % 4', 3],
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['-2 * -2', 4],
    ["'a' + 1", 'a1'],
    ["1 + 'a'", '1a'],
    ["'a' + true", 'atrue'],
    ["'x' + s", 'xhéllo'],
    ["1 + 2 + 'x'", '3x'],
  ])('%s', (source, expected) => {
    expect(ev(source)).toEqual(expected);
  });

  it.each([
    ["'a' + null", '"+" needs two numbers, or a string and a string, number or boolean; got a string and null'],
    ["'a' + missing", '"+" needs two numbers, or a string and a string, number or boolean; got a string and undefined'],
    ['1 + null', '"+" needs two numbers, or a string and a string, number or boolean; got a number and null'],
    ['[] + {}', '"+" needs two numbers, or a string and a string, number or boolean; got an array and an object'],
    ["'a' + [1]", '"+" needs two numbers, or a string and a string, number or boolean; got a string and an array'],
    ["'5' - 2", '"-" needs two numbers, got a string and a number'],
    ['o * 2', '"*" needs two numbers, got an object and a number'],
    ['true / 1', '"/" needs two numbers, got a boolean and a number'],
    ['list % 2', '"%" needs two numbers, got an array and a number'],
  ])('%s is refused', (source, reason) => {
    const err = errorOf(source);
    expect(err.code).toBe('type');
    expect(err.reason).toBe(reason);
  });

  it('refuses to render a number JSON cannot carry', () => {
    expect(errorOf('1 / 0').reason).toBe('the result holds a number that is not finite, which JSON cannot carry');
    expect(ev('`${1 / 0}`')).toBe('Infinity');
  });
});

describe('comparisons', () => {
  it.each([
    ['1 < 2', true],
    ['2 <= 2', true],
    ['3 > 2', true],
    ['2 >= 3', false],
    ["'a' < 'b'", true],
    ["'b' >= 'b'", true],
    ['1 === 1', true],
    ["1 === '1'", false],
    ["1 == '1'", false],
    ['null == undefined', true],
    ['missing == null', true],
    ['null === undefined', false],
    ["'a' != 'b'", true],
    ['null != undefined', false],
    ['1 !== 1', false],
    ['o == o', true],
    ['[1] == [1]', false],
    ['{} === {}', false],
  ])('%s', (source, expected) => {
    expect(ev(source)).toBe(expected);
  });

  it.each([
    ["1 < '2'", '"<" needs two numbers or two strings, got a number and a string'],
    ['null <= 1', '"<=" needs two numbers or two strings, got null and a number'],
    ['list > 1', '">" needs two numbers or two strings, got an array and a number'],
    ['missing >= 0', '">=" needs two numbers or two strings, got undefined and a number'],
  ])('%s is refused', (source, reason) => {
    expect(errorOf(source).reason).toBe(reason);
  });
});

describe('logical operators and ternaries', () => {
  it.each([
    ["0 || 'x'", 'x'],
    ["'a' || 'x'", 'a'],
    ['1 && 2', 2],
    ['0 && 2', 0],
    ["null ?? 'd'", 'd'],
    ["missing ?? 'd'", 'd'],
    ["0 ?? 'd'", 0],
    ["'' ?? 'd'", ''],
    ['o.flag ?? true', false],
    ["n > 40 ? 'big' : 'small'", 'big'],
    ["n > 50 ? 'big' : n > 40 ? 'medium' : 'small'", 'medium'],
    ["list.length ? 'some' : 'none'", 'some'],
  ])('%s', (source, expected) => {
    expect(ev(source)).toEqual(expected);
  });

  it('does not evaluate the side it skips', () => {
    expect(ev('true || missing.x')).toBe(true);
    expect(ev('false && missing.x')).toBe(false);
    expect(ev('1 ?? missing.x')).toBe(1);
    expect(ev('true ? 1 : missing.x')).toBe(1);
    expect(ev('false ? missing.x : 2')).toBe(2);
  });
});

describe('names and calls', () => {
  it('reads a name that is not in the scope as undefined, so defaults work', () => {
    expect(ev('temperature')).toBeUndefined();
    expect(ev('temperature ?? 0.7')).toBe(0.7);
    expect(ev('temperature ?? 0.7', { temperature: 0.2 })).toBe(0.2);
  });

  it('calls only built-in functions', () => {
    const err = errorOf('o.a()');
    expect(err.code).toBe('type');
    expect(err.reason).toBe('"a" is an object, not a function: only built-in functions can be called');
    expect(errorOf('missing()').reason).toBe(
      '"missing" is undefined, not a function: only built-in functions can be called',
    );
    expect(errorOf('(1)()').reason).toBe(
      'the callee is a number, not a function: only built-in functions can be called',
    );
  });

  it('refuses to render a built-in function itself', () => {
    expect(errorOf('JSON.stringify').reason).toBe(
      'the built-in JSON.stringify is a function and cannot be rendered (call it?)',
    );
  });

  it('names the placeholder and offset in the message', () => {
    const err = errorOf('  o.nil.x');
    expect(err.placeholder).toBe('  o.nil.x');
    expect(err.message).toBe(
      'cannot read "x" of null (use "?." if it may be missing) in {{   o.nil.x }} (expression offset 8)',
    );
  });
});
