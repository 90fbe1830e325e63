import { ValidationPipe } from '@nestjs/common';
import { DomainError } from '@bastion/contracts';
import { summarise, toViolations } from '@bastion/platform';

/** Validates every body, query and path DTO; a violation is a 400 (422 on backend routes) naming the field. */
export function httpValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    exceptionFactory: (errors) => {
      const violations = toViolations(errors);
      return DomainError.invalid(summarise(violations), violations);
    },
  });
}
