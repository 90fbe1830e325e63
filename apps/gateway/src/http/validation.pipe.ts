import type { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { FastPathValidationPipe, summarise, toViolations } from '@bastion/messaging';

const LOCATION: Record<ArgumentMetadata['type'], string> = {
  body: 'body',
  query: 'query',
  param: 'path',
  custom: 'body',
};

/**
 * Validates every body, query and path DTO. A violation is INVALID_ARGUMENT with each field's
 * location first (`["body", "metadata", "name"]`), as FastAPI-style clients expect in `loc`.
 */
class HttpValidationPipe extends FastPathValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== ErrorCode.INVALID_ARGUMENT) throw err;
      const details = err.details.map((d) => ({ ...d, loc: [LOCATION[metadata.type], ...d.loc] }));
      throw DomainError.invalid(err.message, details);
    }
  }
}

export function httpValidationPipe(): ValidationPipe {
  return new HttpValidationPipe({
    transform: true,
    whitelist: true,
    exceptionFactory: (errors) => {
      const violations = toViolations(errors);
      return DomainError.invalid(summarise(violations), violations);
    },
  });
}
