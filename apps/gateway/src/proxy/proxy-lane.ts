import { Inject, Injectable } from '@nestjs/common';
import { bulkTwinOf } from '@bastion/contracts';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';

/**
 * Which lane of the message proxy a request takes: its bulk-lane twin when its body has at least
 * PROXY_BULK_FROM_CHARS bytes as received (the name is older than that count), else its own subject. (A bulk request nobody answers
 * on its lane goes to its own subject: see the contracts' `orElse`.)
 */
@Injectable()
export class ProxyLane {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  of<C extends { readonly subject: string }>(request: C, bodyBytes: number): C {
    const from = this.config.PROXY_BULK_FROM_CHARS;
    return (from > 0 && bodyBytes >= from && bulkTwinOf(request)) || request;
  }
}
