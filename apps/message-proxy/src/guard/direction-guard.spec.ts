import type { RuntimeGuardrail } from '@bastion/contracts';
import { compiledGuardrail } from './compiled-guardrails';
import { CompiledScannerCache, maskSpans } from '@bastion/guardrails';
import { DirectionGuard, ScanBudget } from './direction-guard';
import { runScanJob, type ScanJob } from './scan-job';

const guardrail = (over: Partial<RuntimeGuardrail>): RuntimeGuardrail => ({
  id: 'g1',
  kind: 'scanner',
  name: 'secret words',
  type: 'regex',
  builtIn: false,
  version: 'latest',
  enabled: true,
  blocking: true,
  force: false,
  mode: 'block',
  direction: 'both',
  flagMessage: 'no passwords',
  resolvedVersion: {
    id: 'v1',
    name: 'v_1',
    published: true,
    direction: 'both',
    config: { type: 'regex', patterns: ['hunter2', 'swordfish'] },
  },
  ...over,
});

/** Scans one text whole, as the proxy does for a request or a JSON answer. */
function run(
  gs: RuntimeGuardrail[],
  text: string,
  direction: 'request' | 'response' = 'request',
  enforce = true,
  budgetMs = 1000,
) {
  const guard = new DirectionGuard(gs, compiledGuardrail, direction, enforce, new ScanBudget(budgetMs));
  const verdict = guard.scan(text);
  const summary = guard.summary();
  return { ...summary, blocked: verdict.blocked, text: maskSpans(text, verdict.redactions) };
}

describe('DirectionGuard', () => {
  it('clears clean text and records a passed result per applicable scanner', () => {
    const r = run([guardrail({})], 'hello there');
    expect(r.outcome).toBe('cleared');
    expect(r.results).toEqual([
      expect.objectContaining({
        scannerId: 'g1',
        outcome: 'passed',
        scanDirection: 'request',
        data: { type: 'regex', matches: [] },
      }),
    ]);
  });

  it('blocks, redacts or flags by mode', () => {
    expect(run([guardrail({ mode: 'block' })], 'pw is hunter2').outcome).toBe('blocked');
    const redacted = run([guardrail({ mode: 'redact' })], 'pw is hunter2!');
    expect(redacted).toMatchObject({ outcome: 'redacted', text: 'pw is *******!' });
    expect(run([guardrail({ mode: 'audit' })], 'pw is hunter2')).toMatchObject({
      outcome: 'flagged',
      text: 'pw is hunter2',
      messages: ['no passwords'],
    });
    expect(run([guardrail({ mode: 'block', blocking: false })], 'pw is hunter2').outcome).toBe('flagged');
  });

  it('skips disabled entries and those of the other direction', () => {
    expect(run([guardrail({ enabled: false })], 'hunter2').results).toEqual([]);
    expect(run([guardrail({ direction: 'response' })], 'hunter2', 'request').results).toEqual([]);
    expect(run([guardrail({ direction: 'response' })], 'hunter2', 'response').outcome).toBe('blocked');
  });

  it('only flags in a project that does not enforce (draft)', () => {
    expect(run([guardrail({ mode: 'block' })], 'hunter2', 'request', false)).toMatchObject({
      outcome: 'flagged',
      text: 'hunter2',
    });
  });

  it('runs the built-in PII package and records why a custom scanner did not run', () => {
    const pii = guardrail({
      id: 'pii',
      kind: 'package',
      builtIn: true,
      mode: 'redact',
      resolvedVersion: { id: 'p', name: 'v_1', published: true, direction: 'both', config: { type: 'pii' } },
    });
    expect(run([pii], 'mail me at jane.doe@example.com').text).toBe('mail me at ********************');
    const custom = run(
      [
        guardrail({
          type: 'custom',
          resolvedVersion: {
            id: 'c',
            name: 'v_1',
            published: true,
            direction: 'both',
            config: { type: 'custom', prompt: 'judge' },
          },
        }),
      ],
      'x',
    );
    expect(custom.outcome).toBe('cleared');
    expect(custom.results[0].message).toMatch(/^not run:/);
  });
});

describe('DirectionGuard over separate parts (checkParts)', () => {
  const pii = (mode: 'block' | 'redact') =>
    guardrail({
      id: 'pii',
      kind: 'package',
      builtIn: true,
      mode,
      resolvedVersion: { id: 'p', name: 'v_1', published: true, direction: 'both', config: { type: 'pii' } },
    });
  const check = async (gs: RuntimeGuardrail[], parts: string[]) => {
    const guard = new DirectionGuard(gs, compiledGuardrail, 'request', true, new ScanBudget(1000));
    const verdict = await guard.checkParts(parts);
    return { ...guard.summary(), blocked: verdict.blocked, text: maskSpans(parts.join(''), verdict.redactions) };
  };

  it('finds a card number that stands alone in its part though the join puts a word against it', async () => {
    // The system prompt's last word, then the user's message: the model reads two texts.
    const parts = ['You are helpful', '4111111111111111'];
    expect(run([pii('block')], parts.join('')).outcome).toBe('cleared');
    expect((await check([pii('block')], parts)).blocked).toBe(true);
    const redacted = await check([pii('redact')], [...parts, 'thanks']);
    expect(redacted.text).toBe('You are helpful****************thanks');
    expect(redacted.results[0].data.matches).toEqual([[15, 31, expect.any(String)]]);
  });

  it('still sees a match split across parts, and scans a part alone only where the join could hide its edge', async () => {
    expect((await check([guardrail({})], ['pw is hun', 'ter2'])).blocked).toBe(true);
    const scanned: string[] = [];
    const guard = new DirectionGuard([guardrail({})], compiledGuardrail, 'request', true, new ScanBudget(1000));
    const check1 = guard.check.bind(guard);
    jest.spyOn(guard, 'check').mockImplementation((text, base) => (scanned.push(text), check1(text, base)));
    await guard.checkParts(['Be brief.', 'hi', 'there', ' ok']);
    // The join, then "hi" and "there", which meet letter to letter; "Be brief." and " ok" keep their edges.
    expect(scanned).toEqual(['Be brief.hithere ok', 'hi', 'there']);
  });
});

describe('DirectionGuard across windows', () => {
  it('keeps findings in absolute offsets and counts a match seen by two overlapping windows once', () => {
    const guard = new DirectionGuard(
      [guardrail({ mode: 'redact' })],
      compiledGuardrail,
      'response',
      true,
      new ScanBudget(1000),
    );
    const text = 'aaaa hunter2 bbbb';
    expect(guard.scan(text.slice(0, 13), 0).redactions).toEqual([[5, 12]]);
    expect(guard.scan(text.slice(3), 3).redactions).toEqual([[5, 12]]);
    const summary = guard.summary();
    expect(summary.outcome).toBe('redacted');
    expect(summary.results[0].data.matches).toEqual([[5, 12, 0]]);
  });

  it('fails closed when the request has spent its scan budget', () => {
    const r = run([guardrail({ mode: 'audit' })], 'nothing here', 'request', true, 0);
    expect(r.blocked).toBe(true);
    expect(r.outcome).toBe('blocked');
    expect(r.results[0].message).toMatch(/scan budget/);
  });

  it('scanning on a runner (another thread) gives the same verdict and record, and charges the budget with its time', async () => {
    const text = 'pw is hunter2 and swordfish';
    const entries = [
      guardrail({ mode: 'redact' }),
      guardrail({ id: 'g2', resolvedVersion: { ...guardrail({}).resolvedVersion, id: 'v2', config: { type: 'pii' } } }),
    ];
    const inline = new DirectionGuard(entries, compiledGuardrail, 'request', true, new ScanBudget(1000));
    const budget = new ScanBudget(1000);
    const jobs: ScanJob[] = [];
    // What a scan worker runs, with a compile cache of its own.
    const runner = async (job: ScanJob) => {
      jobs.push(job);
      return runScanJob(job, (ref) => new CompiledScannerCache().get(ref), new ScanBudget(job.limitMs, job.spentMs));
    };
    const elsewhere = new DirectionGuard(entries, compiledGuardrail, 'request', true, budget, runner);
    expect(await elsewhere.check(text)).toEqual(inline.scan(text));
    expect(jobs).toEqual([
      expect.objectContaining({
        text,
        limitMs: 1000,
        spentMs: 0,
        scanners: [
          expect.objectContaining({ id: 'g1', version: 'v1' }),
          expect.objectContaining({ id: 'g2', version: 'v2' }),
        ],
      }),
    ]);
    const strip = (r: ReturnType<DirectionGuard['summary']>) =>
      r.results.map(({ startedDate, completedDate, ...rest }) => rest);
    expect(strip(elsewhere.summary())).toEqual(strip(inline.summary()));
    expect(budget.spent).toBeGreaterThan(0);
  });

  it('a runner continues the exchange budget: past it the scan fails closed', async () => {
    const budget = new ScanBudget(5, 5);
    const runner = async (job: ScanJob) =>
      runScanJob(job, (ref) => new CompiledScannerCache().get(ref), new ScanBudget(job.limitMs, job.spentMs));
    const guard = new DirectionGuard(
      [guardrail({ mode: 'audit' })],
      compiledGuardrail,
      'request',
      true,
      budget,
      runner,
    );
    expect((await guard.check('nothing here')).blocked).toBe(true);
    expect(guard.summary().results[0].message).toMatch(/scan budget of 5 ms/);
  });
});

describe('DirectionGuard on a scan runner', () => {
  const strip = (r: ReturnType<DirectionGuard['summary']>) =>
    r.results.map(({ startedDate, completedDate, ...rest }) => rest);
  // What a scan worker runs, with a compile cache of its own.
  const runner = async (job: ScanJob) =>
    runScanJob(job, (ref) => new CompiledScannerCache().get(ref), new ScanBudget(job.limitMs, job.spentMs));
  const version = (id: string, config: Record<string, unknown>) => ({ ...guardrail({}).resolvedVersion, id, config });
  const custom = guardrail({ id: 'c', type: 'custom', resolvedVersion: version('c', { type: 'custom', prompt: 'x' }) });
  // Saved under older limits: an engine type whose config no longer compiles.
  const broken = guardrail({ id: 'b', resolvedVersion: version('b', { type: 'regex', pattern: 'a*' }) });

  it('compiles no engine scanner in this thread for a whole-text check', async () => {
    const entries = [
      guardrail({ mode: 'redact' }),
      guardrail({ id: 'g2', resolvedVersion: version('v2', { type: 'pii' }) }),
      custom,
    ];
    const compiledHere: string[] = [];
    const counting = (g: RuntimeGuardrail) => {
      compiledHere.push(g.id);
      return compiledGuardrail(g);
    };
    const guard = new DirectionGuard(entries, counting, 'request', true, new ScanBudget(1000), runner);
    const inline = new DirectionGuard(entries, compiledGuardrail, 'request', true, new ScanBudget(1000));
    const text = 'pw hunter2, mail jane@example.com';
    expect(await guard.check(text)).toEqual(inline.scan(text));
    expect(strip(guard.summary())).toEqual(strip(inline.summary()));
    // Only the custom entry, which fails before any RE2 program, to record why it did not run.
    expect(compiledHere).toEqual(['c']);
  });

  it('records a scanner whose config fails to compile on the runner as not run, as a scan here does', async () => {
    for (const entries of [[broken], [broken, guardrail({ mode: 'audit' })], [custom, broken]]) {
      for (const enforce of [true, false]) {
        const inline = new DirectionGuard(entries, compiledGuardrail, 'response', enforce, new ScanBudget(1000));
        const guard = new DirectionGuard(entries, compiledGuardrail, 'response', enforce, new ScanBudget(1000), runner);
        const text = 'hunter2 aaa';
        expect(await guard.check(text)).toEqual(inline.scan(text));
        const [here, there] = [inline.summary(), guard.summary()];
        expect({ ...there, results: strip(there) }).toEqual({ ...here, results: strip(here) });
        expect(there.results.find((r) => r.scannerId === 'b')).toMatchObject({
          outcome: 'passed',
          message: expect.stringMatching(/^not run: /),
        });
        expect(guard.active).toBe(inline.active);
      }
    }
  });
});
