import { DomainError } from '@bastion/contracts';
import type { FastifyInstance } from 'fastify';

/**
 * Bodies are JSON whatever the content type says: token-API clients (and `curl -d`) often send JSON
 * as application/x-www-form-urlencoded. An empty body is `{}` (Delete's body may be empty).
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(DomainError.invalid('request body is not valid JSON'), undefined);
    }
  });
}
