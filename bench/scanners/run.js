#!/usr/bin/env node
// Throughput and latency of the guardrails scanner engines. Run on purpose, not in tests:
//   pnpm --filter @bastion/guardrails build && node bench/scanners/run.js
'use strict';

let guardrails;
try {
  guardrails = require('../../libs/guardrails/dist/index.js');
} catch {
  console.error('Build the library first: pnpm --filter @bastion/guardrails build');
  process.exit(1);
}
const { compileScanner } = guardrails;
const { quantile } = require('../support/stats');

const SIZES = [
  ['1 KB', 1024, 2],
  ['10 KB', 10 * 1024, 5],
  ['100 KB', 100 * 1024, 20],
];
/** Time spent measuring each scanner on each size. */
const BUDGET_MS = Number(process.env.BENCH_MS ?? 1500);

const REGEX_10 = [
  '(?i)\\bconfidential\\b',
  '(?i)project\\s+(?:falcon|osprey)',
  '\\bEMP-\\d{6}\\b',
  '(?i)password\\s*[:=]\\s*\\S+',
  '\\b[a-z0-9-]+\\.internal\\.example\\.com\\b',
  '(?i)\\bdo not (?:share|forward|distribute)\\b',
  '\\bINV-\\d{4}-\\d{5}\\b',
  '(?i)\\b(?:salary|payroll)\\s+(?:data|report)s?\\b',
  '\\b\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z\\b',
  '(?i)\\bapi[_-]?key\\b',
];

// Deterministic pseudo-random text, so runs compare.
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(random() * list.length)];

const WORDS = (
  'the a of to and in for on with as by at from this that we our you your it is are was were be been ' +
  'request model response prompt customer account order invoice shipping team meeting schedule review ' +
  'report quarterly update please thanks regards summary analysis draft version release deploy service ' +
  'latency budget forecast migration cluster region database backup incident ticket status 2024 17 3.5 ' +
  'owner draft note call follow-up question answer support product feature roadmap design document'
).split(' ');

const SENSITIVE = [
  () => 'jane.doe@example.com',
  () => '+44 20 7946 0958',
  () => '4111 1111 1111 1111',
  () => 'DE89 3704 0044 0532 0130 00',
  () => '123-45-6789',
  () => '192.168.14.27',
  () => '2001:db8::8a2e:370:7334',
  () => 'AKIAIOSFODNN7EXAMPLE',
  () => 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  () => 'sk-proj-abc123DEF456ghi789JKL012mno345',
  () => 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  () => 'password: hunter2',
  () => 'EMP-004211',
  () => 'project Falcon',
];

/** Prose of `bytes` ASCII characters (so bytes = characters) with `items` sensitive values in random sentences. */
function makeText(bytes, items) {
  const sentences = [];
  let length = 0;
  while (length < bytes) {
    const words = Array.from({ length: 6 + Math.floor(random() * 14) }, () => pick(WORDS));
    const sentence = `${words.join(' ')}. `;
    sentences.push(sentence);
    length += sentence.length;
  }
  for (let i = 0; i < items; i++) {
    const at = Math.floor(random() * sentences.length);
    sentences[at] = `${sentences[at].slice(0, -2)} ${pick(SENSITIVE)()}. `;
  }
  return sentences.join('').slice(0, bytes);
}

function percentile(sorted, p) {
  return quantile(sorted, p / 100);
}

/**
 * Scans the texts in turn. Several distinct texts, because re2 keeps the UTF-8 copy of the last
 * string it saw: scanning one string again and again would skip the conversion a real prompt pays.
 */
function measure(scanner, texts) {
  for (let i = 0; i < 20; i++) scanner.scan(texts[i % texts.length]); // warm up
  const times = [];
  let matches = 0;
  let bytes = 0;
  const deadline = performance.now() + BUDGET_MS;
  while (performance.now() < deadline || times.length < 50) {
    const text = texts[times.length % texts.length];
    const t0 = process.hrtime.bigint();
    const result = scanner.scan(text);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    matches += result.data.matches.length;
    bytes += text.length;
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  return {
    calls: times.length,
    matches: matches / times.length,
    mbPerS: bytes / 1e6 / (total / 1e3),
    p50: percentile(times, 50),
    p99: percentile(times, 99),
  };
}

function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map(String));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(cells[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

const scanners = [
  ['pii (6 detectors)', compileScanner({ type: 'pii' })],
  ['secrets (5 detectors)', compileScanner({ type: 'secrets' })],
  ['regex (10 patterns)', compileScanner({ type: 'regex', patterns: REGEX_10 })],
];

console.log(`node ${process.version}, ${BUDGET_MS} ms per row\n`);
const rows = [];
for (const [size, bytes, items] of SIZES) {
  const texts = Array.from({ length: 8 }, () => makeText(bytes, items));
  for (const [name, scanner] of scanners) {
    const m = measure(scanner, texts);
    rows.push([name, size, m.matches.toFixed(1), m.calls, m.mbPerS.toFixed(1), m.p50.toFixed(3), m.p99.toFixed(3)]);
  }
}
table(['scanner', 'text', 'matches/text', 'calls', 'MB/s', 'p50 ms', 'p99 ms'], rows);

console.log('\nCatastrophic backtracking: n x "a" then "!" (RE2 through compileScanner)\n');
// RE2 runs a pattern that ends in `$` backwards from the end of the text, so `(a+)+$` fails at the
// "!" at once; `(a+)+b` has no anchor to exploit and makes RE2 read the whole text.
const linear = [];
for (const pattern of ['(a+)+$', '(a+)+b']) {
  const scanner = compileScanner({ type: 'regex', pattern });
  for (const n of [100_000, 200_000]) {
    scanner.scan(`${'a'.repeat(n)}!`);
    const runs = Array.from({ length: 9 }, () => {
      const text = `${'a'.repeat(n)}!`; // a new string each run: no cached UTF-8 copy
      const t0 = process.hrtime.bigint();
      const result = scanner.scan(text);
      if (result.outcome !== 'passed') throw new Error(`${pattern} must not match a text ending in "!"`);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    }).sort((a, b) => a - b);
    linear.push([pattern, n.toLocaleString('en-US'), runs[4].toFixed(3), runs[8].toFixed(3)]);
  }
}
table(['pattern', 'n', 'median ms', 'max ms'], linear);

console.log("\nFor contrast, (a+)+$ on V8's backtracking RegExp (exponential, so kept small)\n");
/(a+)+$/.test(`${'a'.repeat(12)}!`); // compile and warm up
const v8 = [];
for (const n of [20, 22, 24]) {
  const text = `${'a'.repeat(n)}!`;
  const t0 = process.hrtime.bigint();
  /(a+)+$/.test(text);
  v8.push([n, (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)]);
}
table(['n', 'ms'], v8);
