import { ErrorCode, HTTP_BODY_SCHEMAS, HTTP_STATUS, type HttpBodyName } from '@bastion/contracts';
import type { OpenAPIObject } from '@nestjs/swagger';
import { errorStyleFor, type ErrorStyle } from '../errors/error-renderer';

const ERROR_BODY: Record<ErrorStyle, HttpBodyName> = {
  token: 'TokenApiError',
  backend: 'BackendApiError',
  anthropic: 'AnthropicApiError',
  openai: 'OpenAiApiError',
};

/** Every status an error can leave with, from the one code-to-status table; `/backend` adds 422 for field violations. */
function errorStatuses(style: ErrorStyle): number[] {
  const statuses = new Set(Object.values(ErrorCode).map((code) => HTTP_STATUS[code]));
  if (style === 'backend') statuses.add(422);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * Completes the generated document: the body schemas (generated from the `HttpBodies` types) as
 * components, and on every operation the error responses its route can give, in its API's error shape.
 */
export function completeOpenApi(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...HTTP_BODY_SCHEMAS, ...document.components?.schemas } };
  for (const [path, item] of Object.entries(document.paths)) {
    const style = errorStyleFor(path);
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item[method];
      if (!op) continue;
      for (const status of errorStatuses(style)) {
        op.responses[String(status)] ??= {
          description: status === 422 ? 'field violations' : 'error',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_BODY[style]}` } } },
        };
      }
    }
  }
  return document;
}
