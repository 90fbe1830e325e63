import { formatTemplatePath, TemplateError } from './template-error';

describe('formatTemplatePath', () => {
  it.each([
    [[], ''],
    [['json', 'messages', 0, 'content'], 'json.messages[0].content'],
    [['headers', 'x-api-key'], 'headers["x-api-key"]'],
    [[0, 'a'], '[0].a'],
    [['$ok', '_ok', '9no'], '$ok._ok["9no"]'],
  ])('%j -> %p', (loc, path) => {
    expect(formatTemplatePath(loc)).toBe(path);
  });
});

describe('TemplateError', () => {
  it('names the path, placeholder and offsets in its message', () => {
    const err = new TemplateError('type', 'bad thing', {
      placeholder: 'a.b',
      position: 3,
      expressionOffset: 2,
      loc: ['url'],
    });
    expect(err.message).toBe('url: bad thing in {{ a.b }} (position 3, expression offset 2)');
    expect(err.name).toBe('TemplateError');
    expect(err).toBeInstanceOf(Error);
  });

  it('keeps what it already knows when placed', () => {
    const inner = new TemplateError('type', 'bad thing', { expressionOffset: 5 });
    const placed = inner.at({ placeholder: 'x', position: 1, expressionOffset: 0, loc: ['a', 1] });
    expect(placed).toMatchObject({
      code: 'type',
      reason: 'bad thing',
      placeholder: 'x',
      position: 1,
      expressionOffset: 5,
    });
    expect(placed.path).toBe('a[1]');
  });

  it('shortens a long placeholder in the message but keeps it whole in the field', () => {
    const long = 'a'.repeat(500);
    const err = new TemplateError('limit', 'too long', { placeholder: long });
    expect(err.placeholder).toBe(long);
    expect(err.message.length).toBeLessThan(200);
  });
});
