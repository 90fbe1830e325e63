import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { DomainError, fastCheckFor, type FieldViolation } from '@bastion/contracts';

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

/**
 * class-validator's pipe, after the class's hand-written check where one is declared
 * (`declareFastCheck`): what that check accepts skips class-validator and class-transformer; what it
 * does not goes through them as usual, so refusals look the same either way.
 */
export class FastPathValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return fastCheckFor(metadata.metatype)?.(value) ?? super.transform(value, metadata);
  }
}

/** The pipe every service applies to its NATS payloads: invalid input is an INVALID_ARGUMENT error. */
export function payloadValidationPipe(): ValidationPipe {
  return new FastPathValidationPipe({
    transform: true,
    whitelist: true,
    exceptionFactory: (errors) => {
      const violations = toViolations(errors);
      return DomainError.invalid(summarise(violations), violations);
    },
  });
}
