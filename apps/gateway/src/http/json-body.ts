import { DomainError } from '@bastion/contracts';
import type { FastifyInstance } from 'fastify';

/**
 * Route config (Nest's `@RouteConfig`) of a route that takes a text body: `text/csv` and
 * `text/plain` bodies reach it as a string, and `bodyLimit` (bytes) replaces the global limit for
 * it alone.
 */
export interface TextBodyRouteConfig {
  textBody: true;
  bodyLimit?: number;
}

/**
 * Route config of a route that passes its JSON body on unparsed (the model-call routes: the
 * message proxy parses and checks it once): the body reaches the handler as the bytes that were
 * sent, a Buffer, never made a string here (a megabyte prompt would be a megabyte string on the
 * gateway's heap, and its collection pauses every request the gateway serves).
 */
export const RAW_JSON_BODY = { rawJsonBody: true } as const;

/**
 * Route config of a model-call route (the ones behind TenantGate): a tenant over its rate is
 * refused before its body is read (see bootstrap.ts), as TenantGate would refuse it after.
 */
export const TENANT_GATED = { tenantGated: true } as const;

/** Whether a request's route is TENANT_GATED. */
export function isTenantGated(req: { routeOptions?: { config?: unknown } }): boolean {
  return (req.routeOptions?.config as Partial<typeof TENANT_GATED> | undefined)?.tenantGated === true;
}

/**
 * The bytes of a request's body as read (whatever its Content-Length said; 0 for a request with no
 * body, for which no parser runs): what limits and lanes that weigh a body count.
 */
export function bodyBytesOf(req: object): number {
  return (req as { bodyBytes?: number }).bodyBytes ?? 0;
}

/** The body of a RAW_JSON_BODY request that came without one (the message proxy refuses it as it refuses any text that is not a request). */
export const NO_BODY: Buffer = Buffer.alloc(0);

const TEXT_TYPES = /^\s*text\/(csv|plain)\s*(;|$)/i;

/**
 * Bodies are JSON whatever the content type says: token-API clients (and `curl -d`) often send JSON
 * as application/x-www-form-urlencoded. An empty body is `{}` (Delete's body may be empty). The
 * exceptions: a route whose config says `textBody` receives `text/csv` and `text/plain` as text,
 * and one whose config is RAW_JSON_BODY receives every body as bytes.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  // Fastify reads a route's body limit from its route options, which Nest does not let a controller
  // set; copy it from the route config as each route is added.
  fastify.addHook('onRoute', (route) => {
    const limit = (route.config as Partial<TextBodyRouteConfig> | undefined)?.bodyLimit;
    if (limit !== undefined && route.bodyLimit === undefined) route.bodyLimit = limit;
  });
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (req, bytes: Buffer, done) => {
    (req as { bodyBytes?: number }).bodyBytes = bytes.length;
    const config = req.routeOptions?.config as Partial<TextBodyRouteConfig & typeof RAW_JSON_BODY> | undefined;
    if (config?.rawJsonBody === true) return done(null, bytes);
    const text = bytes.toString('utf8');
    const wantsText = config?.textBody === true;
    if (wantsText && TEXT_TYPES.test(req.headers['content-type'] ?? '')) return done(null, text);
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(DomainError.invalid('request body is not valid JSON'), undefined);
    }
  });
}
