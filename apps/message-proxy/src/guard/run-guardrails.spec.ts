import type { RuntimeGuardrail } from '@bastion/contracts';
import { CompiledGuardrails } from './compiled-guardrails';
import { runGuardrails } from './run-guardrails';

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
  resolvedVersion: { id: 'v1', name: 'v_1', published: true, direction: 'both', config: { type: 'regex', patterns: ['hunter2', 'swordfish'] } },
  ...over,
});

const compiled = new CompiledGuardrails();
const run = (gs: RuntimeGuardrail[], text: string, direction: 'request' | 'response' = 'request', enforce = true) =>
  runGuardrails(gs, (g) => compiled.get(g), text, direction, enforce);

describe('runGuardrails', () => {
  it('clears clean text and records a passed result per applicable scanner', () => {
    const r = run([guardrail({})], 'hello there');
    expect(r.outcome).toBe('cleared');
    expect(r.results).toEqual([expect.objectContaining({ scannerId: 'g1', outcome: 'passed', scanDirection: 'request', data: { type: 'regex', matches: [] } })]);
  });

  it('blocks, redacts or flags by mode', () => {
    expect(run([guardrail({ mode: 'block' })], 'pw is hunter2').outcome).toBe('blocked');
    const redacted = run([guardrail({ mode: 'redact' })], 'pw is hunter2!');
    expect(redacted).toMatchObject({ outcome: 'redacted', text: 'pw is *******!' });
    expect(run([guardrail({ mode: 'audit' })], 'pw is hunter2')).toMatchObject({ outcome: 'flagged', text: 'pw is hunter2', messages: ['no passwords'] });
    expect(run([guardrail({ mode: 'block', blocking: false })], 'pw is hunter2').outcome).toBe('flagged');
  });

  it('skips disabled entries and those of the other direction', () => {
    expect(run([guardrail({ enabled: false })], 'hunter2').results).toEqual([]);
    expect(run([guardrail({ direction: 'response' })], 'hunter2', 'request').results).toEqual([]);
    expect(run([guardrail({ direction: 'response' })], 'hunter2', 'response').outcome).toBe('blocked');
  });

  it('only flags in a project that does not enforce (draft)', () => {
    expect(run([guardrail({ mode: 'block' })], 'hunter2', 'request', false)).toMatchObject({ outcome: 'flagged', text: 'hunter2' });
  });

  it('runs the built-in PII package and records why a custom scanner did not run', () => {
    const pii = guardrail({ id: 'pii', kind: 'package', builtIn: true, mode: 'redact', resolvedVersion: { id: 'p', name: 'v_1', published: true, direction: 'both', config: { type: 'pii' } } });
    expect(run([pii], 'mail me at jane.doe@example.com').text).toBe('mail me at ********************');
    const custom = run([guardrail({ type: 'custom', resolvedVersion: { id: 'c', name: 'v_1', published: true, direction: 'both', config: { type: 'custom', prompt: 'judge' } } })], 'x');
    expect(custom.outcome).toBe('cleared');
    expect(custom.results[0].message).toMatch(/^not run:/);
  });
});
