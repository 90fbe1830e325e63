import type { RuntimeGuardrail } from '@bastion/contracts';
import { CompiledGuardrails } from './compiled-guardrails';
import { runGuardrails } from './run-guardrails';
import { StreamGuard } from './stream-guard';

const compiled = new CompiledGuardrails();
const guard = (mode: RuntimeGuardrail['mode'], holdBack = 16) => {
  const g: RuntimeGuardrail = {
    id: 'g',
    kind: 'scanner',
    name: 'g',
    type: 'regex',
    builtIn: false,
    version: 'latest',
    enabled: true,
    blocking: true,
    force: false,
    mode,
    direction: 'response',
    flagMessage: '',
    resolvedVersion: { id: 'v', name: 'v_1', published: true, direction: 'response', config: { type: 'regex', patterns: ['top secret'] } },
  };
  return new StreamGuard((text) => runGuardrails([g], (x) => compiled.get(x), text, 'response', true), holdBack, 1);
};

/** Feeds text in small deltas; returns what reached the client and whether it was blocked. */
function feed(sg: StreamGuard, text: string, size = 3): { out: string; blocked: boolean } {
  let out = '';
  for (let i = 0; i < text.length; i += size) {
    const step = sg.push(text.slice(i, i + size));
    if ('blocked' in step) return { out, blocked: true };
    out += step.release;
  }
  const end = sg.finish();
  if ('blocked' in end) return { out, blocked: true };
  return { out: out + end.release, blocked: false };
}

describe('StreamGuard', () => {
  it('passes clean text through whole, in order', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(5);
    expect(feed(guard('block'), text)).toEqual({ out: text, blocked: false });
  });

  it('never lets any part of blocked text reach the client', () => {
    const text = 'Here is the plan, which is top secret, do not share it.';
    const { out, blocked } = feed(guard('block'), text);
    expect(blocked).toBe(true);
    expect(out).not.toContain('top');
    expect(text.startsWith(out)).toBe(true);
  });

  it('redacts matches that span delta boundaries', () => {
    const text = 'Here is the plan, which is top secret, do not share it.';
    expect(feed(guard('redact'), text, 2)).toEqual({ out: 'Here is the plan, which is **********, do not share it.', blocked: false });
  });
});
