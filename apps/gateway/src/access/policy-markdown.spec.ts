import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RPC_POLICY } from '@bastion/contracts';
import { ACCESS_POLICY } from './access-policy.table';
import { policyMarkdown } from './policy-markdown';

describe('the access policy in README.md', () => {
  it('is the table the gateway enforces', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    const m = /<!-- access-policy:start -->\n([\s\S]*?)\n<!-- access-policy:end -->/.exec(readme);
    expect(m?.[1]).toBe(policyMarkdown(ACCESS_POLICY));
  });

  it('shows the RPC policy every service enforces', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    const m = /<!-- rpc-policy:start -->\n([\s\S]*?)\n<!-- rpc-policy:end -->/.exec(readme);
    expect(m?.[1]).toBe(policyMarkdown(RPC_POLICY, 'NATS request'));
  });
});
