import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { MessagesCommand } from './proxy.dto';
import { ProxySignals } from './proxy.contracts';

const command = (cancelSubject?: string) =>
  plainToInstance(MessagesCommand, {
    principal: { sub: 'u', tenant: 't', roles: ['member'] },
    provider: 'claude',
    rawBody: '{}',
    headers: {},
    cancelSubject,
  });
const problems = (c: MessagesCommand) => validateSync(c).map((e) => e.property);

describe('MessagesCommand.cancelSubject', () => {
  it('takes the cancel signal subject the gateway makes', () => {
    expect(problems(command(ProxySignals.cancel.subject('0b0e4c1a-4f7e-4c55-9d37-1f2a3b4c5d6e')))).toEqual([]);
    expect(problems(command())).toEqual([]);
  });

  it('refuses any other subject, wildcards included: the proxy subscribes to it', () => {
    for (const s of [
      '>',
      'proxy.cancel.>',
      'proxy.cancel.*',
      'proxy.cancel',
      'tokens.site.refused.v1',
      'proxy.cancel.a.b',
      `proxy.cancel.${'a'.repeat(65)}`,
    ]) {
      expect([s, problems(command(s))]).toEqual([s, ['cancelSubject']]);
    }
  });
});
