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
});
