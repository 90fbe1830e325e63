import { plainToInstance } from 'class-transformer';
import { type ValidationError, validateSync } from 'class-validator';

export class ConfigError extends Error {}

function describe(errors: ValidationError[]): string[] {
  return errors.flatMap((e) => Object.values(e.constraints ?? {}).map((msg) => `  ${e.property}: ${msg}`));
}

/** Environment values are strings; a numeric or boolean default says how to read them. */
function coerce(value: string, fallback: unknown): unknown {
  if (typeof fallback === 'number') return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  if (typeof fallback === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

/**
 * Reads the environment into a validated config class once, at boot. Property names are the
 * variable names; defaults are the class's initialisers. Throws a ConfigError naming every bad
 * variable, so a misconfigured process fails fast with a message an operator can act on.
 */
export function loadConfig<T extends object>(cls: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  const defaults = new cls();
  const raw: Record<string, unknown> = {};
  for (const [key, fallback] of Object.entries(defaults)) {
    const value = env[key];
    raw[key] = value === undefined || value === '' ? fallback : coerce(value, fallback);
  }
  const config = plainToInstance(cls, raw);
  const errors = validateSync(config, { whitelist: false });
  if (errors.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${describe(errors).join('\n')}`);
  }
  return config;
}
