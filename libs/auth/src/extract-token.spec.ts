import { extractToken } from './extract-token';

describe('extractToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['APIToken abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc', 'abc'],
    ['apitoken abc', 'abc'],
    ['abc.def.ghi', 'abc.def.ghi'],
    ['bsk_0123_secret', 'bsk_0123_secret'],
  ])('reads %p', (header, token) => {
    expect(extractToken({ authorization: header })).toBe(token);
  });

  it.each([undefined, '', 'Basic dXNlcjpw', 'Bearer', 'Bearer a b', 'Token abc'])('refuses %p', (header) => {
    expect(extractToken({ authorization: header })).toBeNull();
  });

  it('reads x-api-key on the routes SDKs call, and nowhere else', () => {
    expect(extractToken({ 'x-api-key': 'k1' }, '/vendor/p/v1/messages')).toBe('k1');
    expect(extractToken({ 'x-api-key': 'k1' }, '/openai/p/chat/completions')).toBe('k1');
    expect(extractToken({ 'x-api-key': 'k1' }, '/backend/v1/scans')).toBe('k1');
    expect(extractToken({ 'x-api-key': 'k1' }, '/api/register/namespaces/system/tokens')).toBeNull();
    expect(extractToken({ authorization: 'Bearer a.b.c', 'x-api-key': 'x.y.z' }, '/vendor/p/v1/messages')).toBe(
      'a.b.c',
    );
  });
});
