import { createHash } from 'node:crypto';
import { assembleDataset } from './dataset-assembly';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('assembleDataset', () => {
  const whole = Buffer.from('prompt,label\nh\u00e9llo,1\n');
  const parts = [
    { part: 1, data: whole.subarray(15) },
    { part: 0, data: whole.subarray(0, 15) },
  ];

  it('joins parts in order, even split inside a UTF-8 character', () => {
    expect(assembleDataset(parts, { parts: 2, bytes: whole.length, sha256: sha(whole) }).toString('utf8')).toBe(
      'prompt,label\nh\u00e9llo,1\n',
    );
  });

  it('refuses a missing part, a wrong size and a wrong checksum', () => {
    expect(() => assembleDataset(parts.slice(0, 1), { parts: 2, bytes: whole.length, sha256: sha(whole) })).toThrow(
      /incomplete \(1 of 2 parts\)/,
    );
    expect(() => assembleDataset(parts, { parts: 2, bytes: whole.length + 1, sha256: sha(whole) })).toThrow(
      /size or checksum/,
    );
    expect(() => assembleDataset(parts, { parts: 2, bytes: whole.length, sha256: sha(Buffer.from('x')) })).toThrow(
      /size or checksum/,
    );
  });
});
