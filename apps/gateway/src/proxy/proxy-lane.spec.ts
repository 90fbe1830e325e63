import { ProxyBulkRpc, ProxyRpc } from '@bastion/contracts';
import { GatewayConfig } from '../config';
import { ProxyLane } from './proxy-lane';

describe('ProxyLane', () => {
  const lane = (from: number) => new ProxyLane(Object.assign(new GatewayConfig(), { PROXY_BULK_FROM_CHARS: from }));

  it('sends a text of PROXY_BULK_FROM_CHARS characters or more on the bulk lane, a shorter one on the standard', () => {
    expect(lane(1000).of(ProxyRpc.messages, 999)).toBe(ProxyRpc.messages);
    expect(lane(1000).of(ProxyRpc.messages, 1000)).toBe(ProxyBulkRpc.messages);
  });

  it('keeps a request with no bulk twin on its own subject', () => {
    expect(lane(1).of(ProxyRpc.health, 10_000_000)).toBe(ProxyRpc.health);
  });

  it('keeps every request on the standard lane when set to 0, the default', () => {
    expect(lane(0).of(ProxyRpc.messages, 10_000_000)).toBe(ProxyRpc.messages);
    expect(new GatewayConfig().PROXY_BULK_FROM_CHARS).toBe(0);
  });
});
