import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@opentelemetry/api';

export interface RequestContext {
  requestId: string;
  tenant?: string;
  /** The request's trace context (its span), for the spans and messages the request starts. */
  trace?: Context;
}

/** Carries the request id (and tenant) through async work so every log line can name it. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export const REQUEST_ID_HEADER = 'x-request-id';
