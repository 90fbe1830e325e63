import fc from 'fast-check';
import type { ScannerConfig } from '../config/scanner-config';
import { compileScanner } from '../scanners/compile-scanner';
import type { ScanMatch } from '../scanners/scan-result';
import type { Scanner } from '../scanners/scanner';
import { createStreamScanner, type StreamScannerOptions } from './stream-scanner';

const CONFIGS: ScannerConfig[] = [
  { type: 'regex', patterns: ['ab{1,4}c', '\\d{3}-\\d{2}-\\d{4}', 'x[yz]?x', '\\bcat\\b'] },
  { type: 'keyword', words: ['secret', 'ignore previous', 'ab'], wholeWord: false },
  { type: 'keyword', words: ['cat', 'Привет'], wholeWord: true },
  { type: 'pii', detectors: ['us-ssn', 'ip-address', 'phone'] },
  { type: 'secrets', detectors: ['aws-access-key'] },
];
const scanners: Scanner[] = CONFIGS.map((c) => compileScanner(c));

const PIECES = [
  'a',
  'b',
  'c',
  'x',
  'y',
  'z',
  ' ',
  '-',
  '1',
  '2',
  '5',
  '9',
  'cat',
  'secret',
  'ignore',
  'previous',
  'ab',
  'bbc',
  '123-45-6789',
  '10.0.0.1',
  '+44 20 7946 0958',
  'AKIAIOSFODNN7EXAMPLE',
  'Привет',
  '\u00a0',
  '\u200b',
  '\u0430',
  'e\u0301',
  '\uff11',
  '.',
  '\n',
];
const texts = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((a) => a.join(''));

function whole(text: string): string[] {
  return scanners.flatMap((s, i) => s.scan(text).data.matches.map((m) => key(i, m)));
}

function key(scanner: number, m: ScanMatch): string {
  return `${scanner}:${m[0]}:${m[1]}:${m[2]}`;
}

function streamed(text: string, cuts: number[], options: StreamScannerOptions = {}) {
  const stream = createStreamScanner(scanners, { minStep: 1, ...options });
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const found: string[] = [];
  let at = 0;
  let safe = 0;
  const early: string[] = [];
  for (const p of [...points, text.length]) {
    const step = stream.push(text.slice(at, p));
    at = p;
    // Every finding that starts before what was already declared safe must have been known then.
    for (const f of step.findings) if (f.match[0] < safe) early.push(key(f.scanner, f.match));
    if (step.safeUpTo < safe) throw new Error('safeUpTo went back');
    safe = step.safeUpTo;
    found.push(...step.findings.map((f) => key(f.scanner, f.match)));
  }
  const last = stream.finish();
  for (const f of last.findings) if (f.match[0] < safe) early.push(key(f.scanner, f.match));
  found.push(...last.findings.map((f) => key(f.scanner, f.match)));
  return { found, early, stream, safe: last.safeUpTo };
}

describe('createStreamScanner', () => {
  it('finds in any split of a text what a scan of the whole text finds, before releasing it (property)', () => {
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const { found, early, safe } = streamed(text, cuts);
        expect(early).toEqual([]);
        expect(safe).toBe(text.length);
        expect(found.sort()).toEqual(whole(text).sort());
      }),
      { numRuns: 300 },
    );
  });

  it('scans each character a bounded number of times (property)', () => {
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 30 }), (text, cuts) => {
        const { stream } = streamed(text.repeat(8), cuts, { minStep: 16, cap: 64 });
        const n = stream.canonicalLength;
        // Each pass reads at most the new text, the longest match and its context on both sides.
        const passes = Math.ceil(n / 16) + 1;
        expect(stream.scannedChars).toBeLessThanOrEqual(n + passes * (64 + 2 * 16 + 16));
      }),
      { numRuns: 100 },
    );
  });

  it('lets pieces wait, unscanned and not yet canonicalized, until a scan is due', () => {
    const stream = createStreamScanner([compileScanner({ type: 'regex', pattern: 'top\\s+secret' })], { minStep: 32 });
    expect(stream.untilScan).toBe(31);
    const first = stream.push('x'.repeat(20));
    expect(stream.untilScan).toBe(11);
    expect(stream.push('top secre')).toBe(first);
    expect(stream.scannedChars).toBe(0);
    expect(stream.canonicalLength).toBe(0);
    const due = stream.push('t and more');
    expect(stream.scannedChars).toBeGreaterThan(0);
    expect(due.findings).toEqual([{ scanner: 0, match: [20, 30, 0] }]);
    expect(stream.finish().safeUpTo).toBe(39);
    expect(stream.untilScan).toBe(0);
  });

  it('scans as soon as minStep canonical characters have come, however small the pieces', () => {
    const stream = createStreamScanner([compileScanner({ type: 'regex', pattern: 'top\\s+secret' })], { minStep: 32 });
    let pushed = 0;
    while (stream.scannedChars === 0) {
      stream.push('abc ');
      pushed += 4;
    }
    // The last character waits for what follows it (a combining mark would join it): 33 are needed.
    expect(pushed).toBe(36);
    expect(stream.safeUpTo).toBeGreaterThan(0);
  });

  it('holds back nothing without scanners', () => {
    const stream = createStreamScanner([]);
    expect(stream.push('hello wor').safeUpTo).toBe(9);
    expect(stream.push('ld \ud83d').safeUpTo).toBe(12);
    expect(stream.push('\ude00').safeUpTo).toBe(14);
    expect(stream.finish().safeUpTo).toBe(14);
  });

  it('holds back only the longest possible match and its context', () => {
    const stream = createStreamScanner([compileScanner({ type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' })], {
      minStep: 1,
    });
    const step = stream.push('x'.repeat(100));
    expect(step.safeUpTo).toBeGreaterThanOrEqual(100 - 11 - 2);
  });

  it('holds back only from where a match could still be in progress', () => {
    const pii = createStreamScanner([compileScanner({ type: 'pii' }), compileScanner({ type: 'secrets' })], {
      minStep: 1,
    });
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    // Clean prose: only the detectors' context is held, not their (unbounded) maximum length.
    expect(pii.push(prose).safeUpTo).toBeGreaterThanOrEqual(prose.length - 16 - 2);
    const keywords = createStreamScanner(
      [compileScanner({ type: 'keyword', words: ['ignore previous instructions'] })],
      { minStep: 1 },
    );
    const head = 'Sure. Now please ignore   previous';
    expect(keywords.push(head).safeUpTo).toBe(head.indexOf('ignore'));
    const step = keywords.push(' instructions and go');
    expect(step.findings).toEqual([{ scanner: 0, match: [17, 47, 0] }]);
  });

  it('holds a scanner too large for prefix patterns back over its longest match, and still finds it', () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i}-${'x'.repeat(150)}`);
    const big = compileScanner({ type: 'keyword', words });
    const text = `${'filler '.repeat(100)}${words[399]} and ${'more '.repeat(100)}`;
    const stream = createStreamScanner([big], { minStep: 1 });
    const found: ScanMatch[] = [];
    let safe = 0;
    for (let at = 0; at < text.length; at += 37) {
      const step = stream.push(text.slice(at, at + 37));
      found.push(...step.findings.map((f) => f.match));
      if (found.length === 0) expect(step.safeUpTo).toBeLessThanOrEqual(700);
      safe = step.safeUpTo;
    }
    found.push(...stream.finish().findings.map((f) => f.match));
    expect(safe).toBeLessThan(text.length);
    expect(found).toEqual(big.scan(text).data.matches);
  });

  it('reports a match split across chunks in original offsets', () => {
    const stream = createStreamScanner([compileScanner({ type: 'pii', detectors: ['us-ssn'] })], { minStep: 1 });
    const findings = [
      ...stream.push('my ssn is 123\u2011').findings,
      ...stream.push('45\u2011678').findings,
      ...stream.push('9 ok').findings,
      ...stream.finish().findings,
    ];
    expect(findings).toEqual([{ scanner: 0, match: [10, 21, 'us-ssn'] }]);
  });
});
