import type { LookupAddress } from 'node:dns';
import { AddressGuard } from './address-guard';
import { parseAllowlist } from './allowlist';
import { createGuardedLookup, type Resolver } from './guarded-lookup';
import { OutboundError } from '../errors/outbound-error';

type Outcome = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookup(
  resolve: Resolver,
  hostname: string,
  options: { all?: boolean; family?: number } = {},
  allowlist = '',
): Promise<Outcome> {
  const fn = createGuardedLookup(new AddressGuard(parseAllowlist(allowlist)), 443, resolve);
  return new Promise((done) => fn(hostname, options, (err, address, family) => done({ err, address, family })));
}

/** A DNS server under an attacker's control: it answers from a script and counts the questions. */
function scriptedDns(...answers: LookupAddress[][]): Resolver & { calls: number } {
  const resolver = Object.assign(
    async () => {
      const answer = answers[Math.min(resolver.calls, answers.length - 1)];
      resolver.calls++;
      return answer;
    },
    { calls: 0 },
  );
  return resolver;
}

const PUBLIC = { address: '93.184.216.34', family: 4 };
const PRIVATE = { address: '10.0.0.5', family: 4 };

describe('createGuardedLookup', () => {
  it('hands the socket the address it checked, from a single resolution', async () => {
    // The second answer is the rebinding: a second lookup would get the private address.
    const dns = scriptedDns([PUBLIC], [PRIVATE]);
    const out = await lookup(dns, 'api.provider.example');
    expect(out).toEqual({ err: null, address: PUBLIC.address, family: 4 });
    expect(dns.calls).toBe(1);
  });

  it('answers with every checked address when the socket asks for all (Happy Eyeballs)', async () => {
    const v6 = { address: '2606:4700:4700::1111', family: 6 };
    const out = await lookup(scriptedDns([PUBLIC, v6]), 'api.provider.example', { all: true });
    expect(out.err).toBeNull();
    expect(out.address).toEqual([PUBLIC, v6]);
  });

  it('refuses the name when any of its addresses is private', async () => {
    const dns = scriptedDns([PUBLIC, PRIVATE]);
    const out = await lookup(dns, 'rebind.example', { all: true });
    expect(out.err).toBeInstanceOf(OutboundError);
    expect((out.err as OutboundError).kind).toBe('blocked_address');
    expect(out.err?.message).toBe(
      'refused: rebind.example is not an allowed destination (set OUTBOUND_ALLOWLIST to allow it)',
    );
    expect(dns.calls).toBe(1);
  });

  it('refuses a private answer in IPv4-mapped form', async () => {
    const out = await lookup(scriptedDns([{ address: '::ffff:169.254.169.254', family: 6 }]), 'sneaky.example');
    expect((out.err as OutboundError).kind).toBe('blocked_address');
  });

  it('lets an allow-listed private address through', async () => {
    const out = await lookup(scriptedDns([PRIVATE]), 'models.internal', {}, '10.0.0.0/8');
    expect(out).toEqual({ err: null, address: PRIVATE.address, family: 4 });
  });

  it('passes on DNS failures and treats an empty answer as not found', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nope.example'), { code: 'ENOTFOUND' });
    };
    expect((await lookup(failing, 'nope.example')).err?.code).toBe('ENOTFOUND');
    expect((await lookup(scriptedDns([]), 'empty.example')).err?.code).toBe('ENOTFOUND');
  });

  it('asks the resolver for the family the socket wants', async () => {
    const families: number[] = [];
    const resolve: Resolver = async (_host, family) => {
      families.push(family);
      return [PUBLIC];
    };
    await lookup(resolve, 'a.example', { family: 4 });
    await lookup(resolve, 'a.example', {});
    expect(families).toEqual([4, 0]);
  });
});
