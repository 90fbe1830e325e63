import { compileScanner, type Scanner, type ScannerConfig, validateScannerConfig } from '@bastion/guardrails';
import type { RuntimeGuardrail } from '@bastion/contracts';

/**
 * Compiled scanners, cached by scanner and version: compiling RE2 patterns costs far more than a
 * scan, so a project's scanners compile once per process, not once per request.
 */
export class CompiledGuardrails {
  private readonly cache = new Map<string, Scanner | Error>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The compiled scanner, or the reason it cannot run (e.g. a model-judged `custom` scanner). */
  get(g: RuntimeGuardrail): Scanner | Error {
    const key = `${g.id}:${g.resolvedVersion.id}:${JSON.stringify(g.resolvedVersion.config)}`;
    let compiled = this.cache.get(key);
    if (!compiled) {
      compiled = compile(g.resolvedVersion.config);
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, compiled);
    }
    return compiled;
  }
}

function compile(config: Record<string, unknown>): Scanner | Error {
  const problems = validateScannerConfig(config);
  if (problems.length) return new Error(problems.map((p) => p.msg).join('; '));
  try {
    return compileScanner(config as unknown as ScannerConfig);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
