#!/usr/bin/env node
// Figures for the guard's library half (issue 10): what a costly pattern costs to save and to
// compile, what canonical text costs, and what guarding a streamed answer costs against scanning
// it once. Run on purpose, not in tests:
//   pnpm --filter @bastion/guardrails build && node bench/scanners/guard.js
'use strict';

let g;
try {
  g = require('../../libs/guardrails/dist/index.js');
} catch {
  console.error('Build the library first: pnpm --filter @bastion/guardrails build');
  process.exit(1);
}
const RE2 = require('../../libs/guardrails/node_modules/re2');

const ms = (t) => `${t.toFixed(1)} ms`;
const time = (fn) => {
  const t = performance.now();
  const out = fn();
  return [performance.now() - t, out];
};
const cpu = (fn) => {
  const c = process.cpuUsage();
  const out = fn();
  const d = process.cpuUsage(c);
  return [(d.user + d.system) / 1000, out];
};

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const WORDS =
  'the a of to and in for on with as by at from this that we our you your it is are was request model response prompt customer account order invoice shipping team meeting schedule review report quarterly update please thanks regards summary analysis draft version release deploy service latency budget forecast'.split(
    ' ',
  );
function prose(size, extra = []) {
  let out = '';
  while (out.length < size) {
    out += WORDS[Math.floor(random() * WORDS.length)];
    out += random() < 0.08 ? '. ' : ' ';
    if (extra.length && random() < 0.01) out += `${extra[Math.floor(random() * extra.length)]} `;
  }
  return out.slice(0, size);
}

console.log('\n== Budgets: five 24-character patterns like [\\p{L}\\p{N}]{1,400}z0 ==');
const costly = ['a', 'b', 'c', 'd', 'e'].map((c) => `[\\p{L}\\p{N}]{1,400}${c}0`);
{
  const [t, problems] = time(() => g.validateScannerConfig({ type: 'regex', patterns: costly }));
  console.log(
    `validate on save: ${ms(t)} (first call prices \\p{L}, \\p{N} once per process), ${problems.length} problems, first: ${problems[0]?.msg.slice(0, 90)}...`,
  );
  const [t2] = time(() => g.validateScannerConfig({ type: 'regex', patterns: costly }));
  console.log(`validate again: ${ms(t2)}`);
  const [t3] = time(() => costly.forEach((p) => new RE2(p, 'u')));
  console.log(
    `for contrast, RE2 compiling the five once: ${ms(t3)} (the old save path compiled them, then the proxy twice more)`,
  );
}
{
  const cache = new g.CompiledScannerCache();
  const ref = {
    id: 's',
    version: '1',
    config: { type: 'regex', patterns: ['\\d{3}-\\d{2}-\\d{4}', '(?i)project\\s+falcon', '\\bEMP-\\d{6}\\b'] },
  };
  const [first] = time(() => cache.get(ref));
  const [again] = time(() => {
    for (let i = 0; i < 1000; i++) cache.get(ref);
  });
  console.log(`compile cache: first get ${ms(first)}, 1000 more gets ${ms(again)}, compiles ${cache.compileCount}`);
}

console.log('\n== Canonical text (1 MB) ==');
const MB = 1 << 20;
const ascii = prose(MB);
const mixed = prose(MB, [
  'caf\u00e9',
  '\u00fcber',
  '\u041f\u0440\u0438\u0432\u0435\u0442',
  'na\u00efve',
  '\u4f60\u597d',
  'e\u0301t\u00e9',
  '4111\u00a01111\u00a01111\u00a01111',
  'ja\u200bne\uff20example.com',
  '\u0456gn\u043er\u0435',
]);
for (const [name, text] of [
  ['ASCII prose', ascii],
  ['prose with accents, Cyrillic, CJK, look-alikes', mixed],
]) {
  g.canonicalize(text);
  const [t, c] = time(() => g.canonicalize(text));
  console.log(`${name}: ${ms(t)} (${c.identity ? 'unchanged, offsets shared' : `${c.text.length} canonical units`})`);
}

console.log('\n== Streaming 1 MB of prose, 64-character deltas ==');
const scanners = {
  'three regex scanners': [
    g.compileScanner({ type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' }),
    g.compileScanner({ type: 'regex', pattern: '(?i)project\\s+(?:falcon|osprey)' }),
    g.compileScanner({ type: 'regex', pattern: '\\bEMP-\\d{6}\\b' }),
  ],
  'pii + secrets packages': [g.compileScanner({ type: 'pii' }), g.compileScanner({ type: 'secrets' })],
  'keyword list (20 phrases)': [
    g.compileScanner({
      type: 'keyword',
      words: Array.from({ length: 20 }, (_, i) => `ignore previous instructions ${i}`),
    }),
  ],
};
const answer = prose(MB, ['123-45-6789', 'jane.doe@example.com', 'AKIAIOSFODNN7EXAMPLE']);
console.log('(default steps grow with the answer, 1/64 of it; "every 32" scans each 32 new characters)');
console.log('scanners                      once (CPU)   streamed (CPU)   ratio   chars read/char   mean hold-back');
for (const [label, options] of [
  ['', {}],
  [', every 32', { stepFraction: 0 }],
])
  for (const [name, set] of Object.entries(scanners)) {
    const run = () => {
      const stream = g.createStreamScanner(set, options);
      let lagSum = 0;
      let steps = 0;
      for (let at = 0; at < answer.length; at += 64) {
        const step = stream.push(answer.slice(at, at + 64));
        lagSum += Math.min(answer.length, at + 64) - step.safeUpTo;
        steps++;
      }
      stream.finish();
      return { read: stream.scannedChars / stream.canonicalLength, lag: lagSum / steps };
    };
    // Warm once, as a proxy process is: the figures are the second runs.
    g.scanAll(set, answer);
    run();
    const [once] = cpu(() => g.scanAll(set, answer));
    const [streamed, stats] = cpu(run);
    console.log(
      `${(name + label).padEnd(30)}${ms(once).padStart(10)}${ms(streamed).padStart(17)}${(streamed / once).toFixed(2).padStart(8)}x${stats.read.toFixed(2).padStart(14)}${stats.lag.toFixed(1).padStart(17)} chars`,
    );
  }
