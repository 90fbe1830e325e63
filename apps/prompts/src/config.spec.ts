import { ConfigError, loadConfig } from '@bastion/platform';
import { PromptsConfig } from './config';

describe('PromptsConfig', () => {
  const env = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/postgres' };

  it('keeps scanner results as arrays unless told objects, and refuses any other form at boot', () => {
    expect(loadConfig(PromptsConfig, env).PROMPTS_SCANNER_RESULTS_FORM).toBe('arrays');
    expect(
      loadConfig(PromptsConfig, { ...env, PROMPTS_SCANNER_RESULTS_FORM: 'objects' }).PROMPTS_SCANNER_RESULTS_FORM,
    ).toBe('objects');
    // A typo is refused, not taken for one of the two.
    expect(() => loadConfig(PromptsConfig, { ...env, PROMPTS_SCANNER_RESULTS_FORM: 'array' })).toThrow(ConfigError);
    expect(() => loadConfig(PromptsConfig, { ...env, PROMPTS_SCANNER_RESULTS_FORM: 'array' })).toThrow(
      /PROMPTS_SCANNER_RESULTS_FORM/,
    );
  });
});
