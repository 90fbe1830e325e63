import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACCESS_POLICY } from './access-policy.table';
import { policyMarkdown } from './policy-markdown';

describe('the access policy in README.md', () => {
  it('is the table the gateway enforces', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    const m = /<!-- access-policy:start -->\n([\s\S]*?)\n<!-- access-policy:end -->/.exec(readme);
    expect(m?.[1]).toBe(policyMarkdown(ACCESS_POLICY));
  });
});
