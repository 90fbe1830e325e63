import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, type ProviderRuntime } from '@bastion/contracts';
import { type OutboundClient, OutboundError } from '@bastion/outbound';
import {
  outboundSigners,
  outboundTransport,
  type ProviderCallResult,
  runProvider,
  type Transport,
} from '@bastion/provider-runtime';
import { OUTBOUND_CLIENT, PROXY_CONFIG, type ProxyConfig } from '../config';

export const ANTHROPIC_TYPE = 'anthropic';
const DEFAULT_ANTHROPIC_URL = 'https://api.anthropic.com';
const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export interface UpstreamAnswer {
  status: number;
  body: string;
  sentAt: Date;
  receivedAt: Date;
}

export interface UpstreamStream {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  sentAt: Date;
}

/**
 * Calls model providers through the guarded outbound client. Anthropic providers get the request
 * as the client sent it, with the provider's key; others go through their template. A transport
 * failure is a 504 (no answer in time) or a 502 (could not be reached, refused, too large).
 */
@Injectable()
export class UpstreamService {
  private readonly transport: Transport;

  constructor(
    @Inject(OUTBOUND_CLIENT) private readonly client: OutboundClient,
    @Inject(PROXY_CONFIG) private readonly config: ProxyConfig,
  ) {
    this.transport = outboundTransport(client);
  }

  async anthropic(
    provider: ProviderRuntime,
    body: Record<string, unknown>,
    headers: Record<string, string>,
  ): Promise<UpstreamAnswer> {
    const sentAt = new Date();
    try {
      const res = await this.client.request(this.anthropicRequest(provider, body, headers));
      return { status: res.status, body: res.body.toString('utf8'), sentAt, receivedAt: new Date() };
    } catch (err) {
      throw upstreamError(err);
    }
  }

  async anthropicStream(
    provider: ProviderRuntime,
    body: Record<string, unknown>,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<UpstreamStream> {
    const sentAt = new Date();
    try {
      const res = await this.client.stream({ ...this.anthropicRequest(provider, body, headers), signal });
      return { status: res.status, headers: res.headers, body: res.body, sentAt };
    } catch (err) {
      throw upstreamError(err);
    }
  }

  /** A provider reached through its template; transport failures come back as 502/504 errors. */
  async viaTemplate(provider: ProviderRuntime, prompt: string, messages: unknown): Promise<ProviderCallResult> {
    const result = await runProvider(
      { template: provider.template, inputs: provider.inputs, secrets: provider.secrets, prompt, messages },
      {
        transport: this.transport,
        signers: outboundSigners,
        defaultTimeoutMs: this.config.UPSTREAM_TIMEOUT_MS,
        maxTimeoutMs: this.config.UPSTREAM_TIMEOUT_MS,
      },
    );
    if (result.failure === 'timeout')
      throw new DomainError(ErrorCode.DEADLINE_EXCEEDED, 'the provider did not answer in time');
    if (result.failure)
      throw new DomainError(ErrorCode.BAD_GATEWAY, `the provider could not be reached: ${result.error}`);
    return result;
  }

  private anthropicRequest(provider: ProviderRuntime, body: Record<string, unknown>, headers: Record<string, string>) {
    const base = (provider.inputs.baseUrl || DEFAULT_ANTHROPIC_URL).replace(/\/+$/, '');
    const out: Record<string, string> = {
      'content-type': 'application/json',
      'anthropic-version':
        headers['anthropic-version'] ?? provider.inputs.anthropicVersion ?? DEFAULT_ANTHROPIC_VERSION,
    };
    if (headers['anthropic-beta']) out['anthropic-beta'] = headers['anthropic-beta'];
    if (provider.secrets.apiKey) out['x-api-key'] = provider.secrets.apiKey;
    return {
      method: 'POST',
      url: `${base}/v1/messages`,
      headers: out,
      body: JSON.stringify(body),
      timeoutMs: this.config.UPSTREAM_TIMEOUT_MS,
    };
  }
}

export function upstreamError(err: unknown): DomainError {
  if (err instanceof OutboundError) {
    if (err.kind === 'timeout')
      return new DomainError(ErrorCode.DEADLINE_EXCEEDED, 'the provider did not answer in time');
    return new DomainError(ErrorCode.BAD_GATEWAY, `the provider could not be reached: ${err.message}`);
  }
  return err instanceof DomainError ? err : new DomainError(ErrorCode.BAD_GATEWAY, 'the provider could not be reached');
}
