import type { ProviderTestResult } from '@bastion/contracts';

export const DEFAULT_TEST_PROMPT = 'Say hello.';

/**
 * The spec's Test provider body has no field for a test prompt, so clients put it in
 * `inputs.prompt`: when given, it is the test prompt (the built-in `prompt` takes that value), and
 * the non-spec `prompt` field is an alias it wins over. An input named `prompt` never reaches the
 * template's scope as an input, where it would clash with the built-in name.
 */
export function splitTestPrompt(
  inputs: Readonly<Record<string, string>> | undefined,
  alias?: string,
): { prompt: string; inputs: Record<string, string> } {
  const { prompt, ...rest } = inputs ?? {};
  return { prompt: prompt ?? alias ?? DEFAULT_TEST_PROMPT, inputs: rest };
}

/** Why a connection test failed (its error, or an answer without content), or null when it passed. */
export function testFailure(result: Pick<ProviderTestResult, 'error' | 'content' | 'statusCode'>): string | null {
  if (result.error !== null) return result.error;
  if (result.content === null)
    return `the provider answered${result.statusCode === null ? '' : ` HTTP ${result.statusCode}`} without content`;
  return null;
}
