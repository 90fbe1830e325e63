import { maskSecret, maskSecrets, mergeSecrets } from './secret-mask';

describe('secret masking', () => {
  it('never shows a secret, at most the tail of a long one to admins', () => {
    expect(maskSecret('sk-live-1234567890abcd', true)).toBe('****abcd');
    expect(maskSecret('sk-live-1234567890abcd', false)).toBe('********');
    expect(maskSecret('short', true)).toBe('********');
    expect(maskSecrets({ apiKey: 'sk-live-1234567890abcd' }, false)).toEqual({ apiKey: '********' });
  });

  it('keeps a secret sent back masked, replaces a new value, removes on ""', () => {
    const current = { apiKey: 'sk-live-1234567890abcd', other: 'x' };
    expect(mergeSecrets(current, { apiKey: '****abcd' })).toEqual(current);
    expect(mergeSecrets(current, { apiKey: '********' })).toEqual(current);
    expect(mergeSecrets(current, { apiKey: 'sk-new-key' })).toEqual({ apiKey: 'sk-new-key', other: 'x' });
    expect(mergeSecrets(current, { other: '' })).toEqual({ apiKey: 'sk-live-1234567890abcd' });
    expect(mergeSecrets(current, { added: 'y' })).toEqual({ ...current, added: 'y' });
  });
});
