import { DomainError, type FieldViolation } from '@bastion/contracts';
import { validateProviderTemplate } from '@bastion/templates';
import { checkOutputsReadNoSecret } from './secret-binding';

/**
 * Refuses a template that does not parse, is not a well-formed request or workflow, or uses names
 * it will not have; 422 naming each place (and, in a workflow, each stage). `declaredSecrets` are
 * the names a system provider declares: known even while unset.
 */
export function checkTemplate(
  template: unknown,
  inputs: Record<string, string>,
  secrets: Record<string, string>,
  declaredSecrets: string[] = [],
): void {
  checkOutputsReadNoSecret(template, [...Object.keys(secrets), ...declaredSecrets]);
  const clash = Object.keys(inputs).filter((k) => k in secrets);
  if (clash.length) throw invalid(['body', 'secrets'], `names used both as input and secret: ${clash.join(', ')}`);
  const known = [...Object.keys(inputs), ...Object.keys(secrets), ...declaredSecrets];
  const errors = validateProviderTemplate(template, { knownNames: known });
  if (errors.length > 0) {
    const details: FieldViolation[] = errors.map((e) => ({
      loc: ['body', 'template', ...e.loc.map(String)],
      msg: e.message,
      type: `template.${e.code}`,
    }));
    throw DomainError.invalid(`invalid template: ${errors[0].message}`, details);
  }
}

/** Validated DTOs are class instances; the template sandbox takes plain JSON only. */
export function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function invalid(loc: string[], msg: string): DomainError {
  return DomainError.invalid(msg, [{ loc, msg, type: 'value_error' }]);
}
