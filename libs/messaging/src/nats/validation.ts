import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError, type FieldViolation } from '@bastion/contracts';

/** Flattens class-validator's nested errors into field violations with a path each. */
export function toViolations(errors: ValidationError[], prefix: string[] = []): FieldViolation[] {
  return errors.flatMap((e) => {
    const loc = [...prefix, e.property];
    const own = Object.entries(e.constraints ?? {}).map(([type, msg]) => ({ loc, msg, type }));
    return [...own, ...toViolations(e.children ?? [], loc)];
  });
}

export function summarise(violations: FieldViolation[]): string {
  return violations.map((v) => `${v.loc.join('.')}: ${v.msg}`).join('; ');
}

/** The pipe every service applies to its NATS payloads: invalid input is an INVALID_ARGUMENT error. */
export function payloadValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    exceptionFactory: (errors) => {
      const violations = toViolations(errors);
      return DomainError.invalid(summarise(violations), violations);
    },
  });
}
