import { sharedScannerCache, type Scanner } from '@bastion/guardrails';
import type { RuntimeGuardrail } from '@bastion/contracts';

/**
 * A guardrail's compiled scanner, from the process's shared compile cache (each scanner version
 * compiles once, whoever asks), or the Error saying why it cannot run (e.g. a model-judged `custom`
 * scanner, or a config saved under older limits).
 */
export function compiledGuardrail(g: RuntimeGuardrail): Scanner | Error {
  return sharedScannerCache.get({ id: g.id, version: g.resolvedVersion.id, config: g.resolvedVersion.config });
}
