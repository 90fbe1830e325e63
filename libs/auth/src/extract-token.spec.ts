import { extractToken } from './extract-token';

describe('extractToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['APIToken abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc', 'abc'],
    ['apitoken abc', 'abc'],
  ])('reads %p', (header, token) => {
    expect(extractToken({ authorization: header })).toBe(token);
  });

  it.each([undefined, '', 'Basic dXNlcjpw', 'Bearer', 'Bearer a b', 'Token abc'])('refuses %p', (header) => {
    expect(extractToken({ authorization: header })).toBeNull();
  });

  it('reads x-api-key on the vendor routes only', () => {
    expect(extractToken({ 'x-api-key': 'abc.def.ghi' }, '/vendor/p/v1/messages')).toBe('abc.def.ghi');
    expect(extractToken({ 'x-api-key': 'abc.def.ghi' }, '/backend/v1/providers')).toBeNull();
    expect(extractToken({ authorization: 'Bearer a.b.c', 'x-api-key': 'x.y.z' }, '/vendor/p/v1/messages')).toBe('a.b.c');
  });
});
