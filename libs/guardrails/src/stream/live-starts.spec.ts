import fc from 'fast-check';
import { compileScanner } from '../scanners/compile-scanner';
import { EngineScanner } from '../scanners/engine-scanner';
import { LiveStarts } from './live-starts';

const engines = [
  compileScanner({ type: 'regex', patterns: ['ab{1,4}c', '\\d{3}-\\d{2}-\\d{4}'] }),
  compileScanner({ type: 'keyword', words: ['ignore previous', 'secret'] }),
  compileScanner({ type: 'pii', detectors: ['us-ssn', 'email'] }),
] as EngineScanner[];

describe('LiveStarts', () => {
  it('searching on from where the last search found a match in progress finds what a search of the whole tail finds (property)', () => {
    const live = new LiveStarts(engines, 64);
    const pieces = fc.constantFrom(
      'a',
      'b',
      'c',
      ' ',
      '1',
      '2',
      '-',
      'ignore',
      ' previous',
      'sec',
      'ret',
      'x@',
      'y.io',
      '.',
    );
    fc.assert(
      fc.property(fc.array(fc.array(pieces, { maxLength: 8 }), { maxLength: 12 }), (steps) => {
        let text = '';
        let searched = 0;
        for (const step of steps) {
          text += step.join('');
          const whole = live.earliest(text, 0, text.length);
          const next = live.earliest(text, 0, text.length, searched);
          expect(next).toEqual(whole);
          searched = next.searched;
        }
      }),
      { numRuns: 300 },
    );
  });
});
